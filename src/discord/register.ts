// `fairdice discord register` (docs/discord.md): puts the command definitions (src/discord/commands.ts)
// to Discord's API, replacing the application's global commands, with the bot token from the
// environment; `--dry-run` prints them instead. Also the links that install the application to
// a server or to a user.
import { RouteBases, Routes } from 'discord-api-types/v10';
import { VERSION } from '../version.js';
import { COMMANDS } from './commands.js';
import { cut } from './render.js';

/** How long Discord's API gets to answer. */
const REQUEST_TIMEOUT_MS = 15_000;

export interface RegisterSettings {
  /** Discord's API, `https://discord.com/api/v10` unless DISCORD_API_URL says otherwise (a test's stand-in). */
  apiUrl: string;
  applicationId: string;
  botToken: string;
}

/** The settings from the environment, or the sentence naming what is missing or wrong. */
export function registerSettings(
  env: Readonly<Record<string, string | undefined>>,
): RegisterSettings | string {
  const applicationId = env.DISCORD_APPLICATION_ID?.trim() ?? '';
  const botToken = env.DISCORD_BOT_TOKEN?.trim() ?? '';
  const apiUrl = (env.DISCORD_API_URL?.trim() || RouteBases.api).replace(/\/+$/, '');
  if (!/^\d{15,25}$/.test(applicationId))
    return 'DISCORD_APPLICATION_ID must be set to the application id (digits) from the Developer Portal.';
  if (botToken === '')
    return "DISCORD_BOT_TOKEN must be set to the application's bot token (Developer Portal, Bot).";
  if (!/^https?:\/\//.test(apiUrl)) return 'DISCORD_API_URL must be an http:// or https:// URL.';
  return { apiUrl, applicationId, botToken };
}

/** The body of the request: every command, as Discord takes it. */
export const commandsJson = (): string => JSON.stringify(COMMANDS, null, 2);

/**
 * Replaces the application's global commands with fairdice's (`PUT
 * /applications/{application.id}/commands`); resolves with the names Discord registered, or
 * rejects with what Discord answered.
 */
export async function registerCommands(settings: RegisterSettings): Promise<string[]> {
  const response = await fetch(`${settings.apiUrl}${Routes.applicationCommands(settings.applicationId)}`, {
    method: 'PUT',
    headers: {
      authorization: `Bot ${settings.botToken}`,
      'content-type': 'application/json',
      // The form Discord asks of every API client.
      'user-agent': `DiscordBot (https://github.com/fairdice/fairdice, ${VERSION})`,
    },
    body: JSON.stringify(COMMANDS),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Discord answered ${response.status}: ${cut(text, 500)}`);
  const registered = JSON.parse(text) as Array<{ name?: unknown }>;
  return registered.map((command) => String(command.name));
}

/** The links that install the application: to a server (`guild`), or to a user's account (`user`). */
export function installLinks(applicationId: string): { guild: string; user: string } {
  const link = (integrationType: 0 | 1) =>
    `https://discord.com/oauth2/authorize?client_id=${applicationId}&integration_type=${integrationType}&scope=applications.commands`;
  return { guild: link(0), user: link(1) };
}
