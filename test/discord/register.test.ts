// The command definitions against Discord's rules for them, and `fairdice discord register` (the
// package's bin) against a local stand-in for Discord's API that records what it is sent.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationIntegrationType,
  InteractionContextType,
} from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/discord/commands.js';
import { installLinks, registerSettings } from '../../src/discord/register.js';

const cliJs = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Discord's rule for the name of a chat-input command or option. */
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** The characters Discord counts against a command's 4,000: names, descriptions, choices, all levels. */
function characters(option: { name: string; description: string; options?: readonly unknown[] }): number {
  const nested = (option.options ?? []) as APIApplicationCommandOption[];
  return (
    option.name.length + option.description.length + nested.reduce((sum, inner) => sum + characters(inner), 0)
  );
}

function checkOptions(options: readonly APIApplicationCommandOption[]): void {
  expect(options.length).toBeLessThanOrEqual(25);
  let optionalSeen = false;
  for (const option of options) {
    expect(option.name).toMatch(NAME);
    expect(option.name).toBe(option.name.toLowerCase());
    expect(option.description.length).toBeGreaterThanOrEqual(1);
    expect(option.description.length).toBeLessThanOrEqual(100);
    const required = 'required' in option && option.required === true;
    // Required options come before optional ones.
    if (required) expect(optionalSeen).toBe(false);
    else optionalSeen = true;
    if ('autocomplete' in option && option.autocomplete === true) expect('choices' in option).toBe(false);
    if (option.type === ApplicationCommandOptionType.Subcommand) checkOptions(option.options ?? []);
  }
}

describe('the command definitions', () => {
  it("follow Discord's rules, and install to servers and users, usable everywhere", () => {
    expect(COMMANDS.map((command) => command.name)).toEqual(['roll', 'odds', 'table']);
    for (const command of COMMANDS) {
      expect(command.name).toMatch(NAME);
      expect(command.description.length).toBeGreaterThanOrEqual(1);
      expect(command.description.length).toBeLessThanOrEqual(100);
      expect(characters(command as never)).toBeLessThanOrEqual(4_000);
      expect(command.integration_types).toEqual([
        ApplicationIntegrationType.GuildInstall,
        ApplicationIntegrationType.UserInstall,
      ]);
      expect(command.contexts).toEqual([
        InteractionContextType.Guild,
        InteractionContextType.BotDM,
        InteractionContextType.PrivateChannel,
      ]);
      checkOptions(('options' in command ? command.options : undefined) ?? []);
    }
  });

  it('define every option, those of later work included', () => {
    const names = (name: string) =>
      (COMMANDS.find((command) => command.name === name) as { options: Array<{ name: string }> }).options.map(
        (option) => option.name,
      );
    expect(names('roll')).toEqual(['formula', 'private', 'note', 'sealed']);
    expect(names('odds')).toEqual(['formula', 'target', 'versus']);
    expect(names('table')).toEqual(['start', 'log', 'verify', 'report', 'reveal']);
  });
});

describe('registerSettings and installLinks', () => {
  it('need the application id and the bot token, and take another API base', () => {
    const id = '1234567890123456789';
    expect(registerSettings({})).toMatch(/^DISCORD_APPLICATION_ID must be set/);
    expect(registerSettings({ DISCORD_APPLICATION_ID: id })).toMatch(/^DISCORD_BOT_TOKEN must be set/);
    expect(registerSettings({ DISCORD_APPLICATION_ID: id, DISCORD_BOT_TOKEN: 't' })).toEqual({
      apiUrl: 'https://discord.com/api/v10',
      applicationId: id,
      botToken: 't',
    });
    expect(
      registerSettings({
        DISCORD_APPLICATION_ID: id,
        DISCORD_BOT_TOKEN: 't',
        DISCORD_API_URL: 'http://127.0.0.1:9/api/',
      }),
    ).toMatchObject({ apiUrl: 'http://127.0.0.1:9/api' });
    expect(installLinks(id)).toEqual({
      guild: `https://discord.com/oauth2/authorize?client_id=${id}&integration_type=0&scope=applications.commands`,
      user: `https://discord.com/oauth2/authorize?client_id=${id}&integration_type=1&scope=applications.commands`,
    });
  });
});

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Runs the bin; resolves with its exit code and output (never rejects on a non-zero exit). */
function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliJs, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : Number((error as { code?: unknown }).code ?? 1),
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('fairdice discord register', () => {
  const applicationId = '1234567890123456789';
  const recorded: Recorded[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '[]' };
  let server: Server;
  let apiUrl = '';
  beforeAll(async () => {
    if (!existsSync(cliJs)) throw new Error('dist/cli.js is missing: run `npm run build` (npm test does)');
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        recorded.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body,
        });
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v10`;
  });
  afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

  it('puts every command to the application, with the bot token, and prints the install links', async () => {
    recorded.length = 0;
    answer = {
      status: 200,
      body: JSON.stringify(
        COMMANDS.map((command, index) => ({
          ...command,
          id: String(900 + index),
          application_id: applicationId,
        })),
      ),
    };
    const result = await run(['discord', 'register'], {
      DISCORD_APPLICATION_ID: applicationId,
      DISCORD_BOT_TOKEN: 'test-token',
      DISCORD_API_URL: apiUrl,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request!.method).toBe('PUT');
    expect(request!.url).toBe(`/api/v10/applications/${applicationId}/commands`);
    expect(request!.headers.authorization).toBe('Bot test-token');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(
      /^DiscordBot \(https:\/\/github\.com\/fairdice\/fairdice, \d+\.\d+\.\d+\)$/,
    );
    expect(JSON.parse(request!.body)).toEqual(COMMANDS);
    expect(result.stdout).toContain('Registered 3 commands with Discord: /roll, /odds, /table.');
    expect(result.stdout).toContain(`Install to a server: ${installLinks(applicationId).guild}`);
    expect(result.stdout).toContain(`Install to your account: ${installLinks(applicationId).user}`);
  });

  it("exits 1 with Discord's answer when it refuses", async () => {
    recorded.length = 0;
    answer = { status: 401, body: '{"message": "401: Unauthorized", "code": 0}' };
    const result = await run(['discord', 'register'], {
      DISCORD_APPLICATION_ID: applicationId,
      DISCORD_BOT_TOKEN: 'wrong',
      DISCORD_API_URL: apiUrl,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'fairdice: Discord answered 401: {"message": "401: Unauthorized", "code": 0}\n',
    );
    expect(recorded).toHaveLength(1);
  });

  it('exits 1 naming a missing variable, before any request', async () => {
    recorded.length = 0;
    const result = await run(['discord', 'register'], {
      DISCORD_APPLICATION_ID: applicationId,
      DISCORD_API_URL: apiUrl,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^fairdice: DISCORD_BOT_TOKEN must be set/);
    expect(recorded).toHaveLength(0);
  });

  it('--dry-run prints the JSON it would put, and sends nothing', async () => {
    recorded.length = 0;
    const result = await run(['discord', 'register', '--dry-run'], { DISCORD_API_URL: apiUrl });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(COMMANDS);
    expect(recorded).toHaveLength(0);
    const usage = await run(['discord', 'register', '--now'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('fairdice discord register [--dry-run]');
  });
});
