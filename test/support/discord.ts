// Discord as the tests play it: an application's Ed25519 key pair, requests signed exactly as
// Discord signs them (the signature over the timestamp followed by the raw body, in hex), the
// interactions Discord sends, shaped like its own examples, and the checks every answer must pass
// (the shapes of discord-api-types and Discord's limits on a message).
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type APIEmbed,
  type APIInteractionResponse,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ButtonStyle,
  ComponentType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
} from 'discord-api-types/v10';
import { expect } from 'vitest';
import { CUSTOM_ID_MAX_LENGTH } from '../../src/discord/commands.js';
import { MESSAGE_LIMITS } from '../../src/discord/render.js';

export const APPLICATION_ID = '1234567890123456789';
export const GUILD_ID = '1100000000000000001';

export interface DiscordApp {
  /** The public key as the Developer Portal shows it: 64 hex digits. */
  publicKeyHex: string;
  privateKey: KeyObject;
  /** The two headers Discord sends with `body`, signed at `timestamp` (Unix seconds; default now). */
  headers(body: string, timestamp?: number): Record<string, string>;
}

export function discordApp(): DiscordApp {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x as string;
  return {
    publicKeyHex: Buffer.from(x, 'base64url').toString('hex'),
    privateKey,
    headers(body, timestamp = Math.floor(Date.now() / 1000)) {
      const signed = Buffer.from(`${timestamp}${body}`, 'utf8');
      return {
        'content-type': 'application/json',
        'x-signature-ed25519': sign(null, signed, privateKey).toString('hex'),
        'x-signature-timestamp': String(timestamp),
      };
    },
  };
}

let interactionCount = 0;

/** Where an interaction comes from: a user, in a channel of a server (or a DM without `guild`). */
export interface From {
  user?: string;
  channel?: string;
  guild?: boolean;
}

/** The fields every interaction Discord sends has, as in its documentation's examples. */
function envelope(type: InteractionType, from: From): Record<string, unknown> {
  const user = {
    id: from.user ?? '2200000000000000001',
    username: 'player',
    global_name: 'Player',
    discriminator: '0',
    avatar: null,
  };
  const channel = from.channel ?? '3300000000000000001';
  const inGuild = from.guild !== false;
  return {
    id: String(4400000000000000000n + BigInt(++interactionCount)),
    application_id: APPLICATION_ID,
    type,
    token: `aW50ZXJhY3Rpb246${interactionCount}`,
    version: 1,
    locale: 'en-US',
    app_permissions: '562949953601536',
    entitlements: [],
    attachment_size_limit: 10485760,
    authorizing_integration_owners: inGuild ? { '0': GUILD_ID } : { '1': user.id },
    context: inGuild ? 0 : 2,
    channel_id: channel,
    channel: inGuild
      ? { id: channel, type: 0, name: 'dice', guild_id: GUILD_ID, flags: 0, nsfw: false, position: 0 }
      : { id: channel, type: 1, flags: 0, recipients: [] },
    ...(inGuild
      ? {
          guild_id: GUILD_ID,
          guild: { id: GUILD_ID, locale: 'en-US', features: [] },
          guild_locale: 'en-US',
          member: {
            user,
            roles: [],
            joined_at: '2025-01-01T00:00:00.000000+00:00',
            deaf: false,
            mute: false,
            flags: 0,
            pending: false,
            permissions: '2248473465835073',
          },
        }
      : { user }),
  };
}

type OptionValue = string | number | boolean;

const optionType = (value: OptionValue) =>
  typeof value === 'string'
    ? ApplicationCommandOptionType.String
    : typeof value === 'boolean'
      ? ApplicationCommandOptionType.Boolean
      : ApplicationCommandOptionType.Integer;

/** `/name option:value ...`; a subcommand is `{ sub: 'start' }`. */
export function slashCommand(
  name: string,
  options: Record<string, OptionValue> = {},
  from: From = {},
  sub?: string,
): Record<string, unknown> {
  const given = Object.entries(options).map(([option, value]) => ({
    name: option,
    type: optionType(value),
    value,
  }));
  return {
    ...envelope(InteractionType.ApplicationCommand, from),
    data: {
      id: '5500000000000000001',
      name,
      type: ApplicationCommandType.ChatInput,
      options:
        sub === undefined
          ? given
          : [{ name: sub, type: ApplicationCommandOptionType.Subcommand, options: given }],
    },
  };
}

/** The autocomplete Discord sends while `focused` is being typed. */
export function autocomplete(
  name: string,
  focused: string,
  typed: string,
  from: From = {},
): Record<string, unknown> {
  return {
    ...envelope(InteractionType.ApplicationCommandAutocomplete, from),
    data: {
      id: '5500000000000000001',
      name,
      type: ApplicationCommandType.ChatInput,
      options: [{ name: focused, type: ApplicationCommandOptionType.String, value: typed, focused: true }],
    },
  };
}

/** A press of the button `customId` on a message of the app. */
export function buttonPress(customId: string, from: From = {}): Record<string, unknown> {
  return {
    ...envelope(InteractionType.MessageComponent, from),
    data: { custom_id: customId, component_type: ComponentType.Button },
    message: {
      id: '6600000000000000001',
      channel_id: from.channel ?? '3300000000000000001',
      type: 20,
      content: 'a roll',
      author: { id: APPLICATION_ID, username: 'fairdice', discriminator: '0', avatar: null, bot: true },
      components: [],
      embeds: [],
      attachments: [],
      mentions: [],
      mention_roles: [],
      pinned: false,
      mention_everyone: false,
      tts: false,
      timestamp: '2025-01-01T00:00:00.000000+00:00',
      edited_timestamp: null,
      flags: 0,
    },
  };
}

export const ping = (): Record<string, unknown> => ({
  id: String(4400000000000000000n + BigInt(++interactionCount)),
  application_id: APPLICATION_ID,
  type: InteractionType.Ping,
  token: 'cGluZw',
  version: 1,
});

/** The characters of an embed that count against Discord's 6,000 per message. */
function embedCharacters(embed: Record<string, unknown>): number {
  const text = (value: unknown) => (typeof value === 'string' ? value.length : 0);
  const fields = (embed.fields as Array<{ name: string; value: string }> | undefined) ?? [];
  expect(fields.length).toBeLessThanOrEqual(MESSAGE_LIMITS.fieldsPerEmbed);
  return (
    text(embed.title) +
    text(embed.description) +
    text((embed.footer as { text?: unknown } | undefined)?.text) +
    text((embed.author as { name?: unknown } | undefined)?.name) +
    fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0)
  );
}

/**
 * Asserts that `body` is an interaction response as discord-api-types describes it, within
 * Discord's limits on a message, and returns it typed.
 */
export function expectResponse(body: unknown): APIInteractionResponse {
  const response = body as APIInteractionResponse;
  expect(Object.values(InteractionResponseType)).toContain(response.type);
  if (response.type === InteractionResponseType.Pong) {
    expect(Object.keys(response)).toEqual(['type']);
    return response;
  }
  if (response.type === InteractionResponseType.ApplicationCommandAutocompleteResult) {
    const choices = response.data.choices ?? [];
    expect(choices.length).toBeLessThanOrEqual(MESSAGE_LIMITS.autocompleteChoices);
    for (const choice of choices) {
      expect(choice.name.length).toBeGreaterThanOrEqual(1);
      expect(choice.name.length).toBeLessThanOrEqual(MESSAGE_LIMITS.choiceName);
      expect(typeof choice.value).toBe('string');
      expect(String(choice.value).length).toBeLessThanOrEqual(MESSAGE_LIMITS.choiceValue);
    }
    return response;
  }
  expect(response.type).toBe(InteractionResponseType.ChannelMessageWithSource);
  if (response.type !== InteractionResponseType.ChannelMessageWithSource) return response;
  const data = response.data ?? {};
  expect(typeof data.content).toBe('string');
  expect(data.content!.length).toBeGreaterThan(0);
  expect(data.content!.length).toBeLessThanOrEqual(MESSAGE_LIMITS.content);
  // Nothing an answer says notifies anyone.
  expect(data.allowed_mentions).toEqual({ parse: [] });
  if (data.flags !== undefined) expect(data.flags).toBe(MessageFlags.Ephemeral);
  const embeds = (data.embeds ?? []) as Array<Record<string, unknown>>;
  expect(embeds.length).toBeLessThanOrEqual(MESSAGE_LIMITS.embeds);
  expect(embeds.reduce((sum, embed) => sum + embedCharacters(embed), 0)).toBeLessThanOrEqual(
    MESSAGE_LIMITS.embedCharacters,
  );
  const rows = data.components ?? [];
  expect(rows.length).toBeLessThanOrEqual(MESSAGE_LIMITS.actionRows);
  for (const row of rows) {
    expect(row.type).toBe(ComponentType.ActionRow);
    const buttons = (row as unknown as { components: Array<Record<string, unknown>> }).components;
    expect(buttons.length).toBeGreaterThan(0);
    expect(buttons.length).toBeLessThanOrEqual(MESSAGE_LIMITS.buttonsPerRow);
    for (const button of buttons) {
      expect(button.type).toBe(ComponentType.Button);
      expect([ButtonStyle.Primary, ButtonStyle.Secondary]).toContain(button.style);
      expect(String(button.label).length).toBeLessThanOrEqual(MESSAGE_LIMITS.buttonLabel);
      expect(String(button.custom_id).length).toBeLessThanOrEqual(CUSTOM_ID_MAX_LENGTH);
    }
  }
  return response;
}

/** The content, embeds and flags of a message answer. */
export function messageOf(body: unknown): {
  content: string;
  embeds: APIEmbed[];
  ephemeral: boolean;
  customIds: string[];
} {
  const response = expectResponse(body);
  if (response.type !== InteractionResponseType.ChannelMessageWithSource) throw new Error('not a message');
  const data = response.data ?? {};
  const customIds = (data.components ?? []).flatMap((row) =>
    (row as { components: Array<{ custom_id?: string }> }).components.map((button) => button.custom_id ?? ''),
  );
  return {
    content: data.content ?? '',
    embeds: data.embeds ?? [],
    ephemeral: data.flags === MessageFlags.Ephemeral,
    customIds,
  };
}
