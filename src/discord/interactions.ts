// What fairdice answers to each interaction Discord sends (docs/discord.md), once its signature is
// checked: PING, the commands, their autocomplete, and the buttons of a roll message. Nothing here
// knows HTTP. Rolls, odds and tables go through the service's own operations (src/api/operations.ts),
// with their validation and errors, under the budgets of the Discord user who asked: their throws
// and stats budgets (the HTTP API's, keyed by user instead of by address), their share of commands,
// and each channel's share of table operations.

import type { RevealEntry, TableRollResponse } from '@fairdice/client/types';
import { verifyChain } from '@fairdice/client/verify';
import {
  type APIActionRowComponent,
  type APIApplicationCommandAutocompleteResponse,
  type APIApplicationCommandOptionChoice,
  type APIButtonComponent,
  type APIEmbed,
  type APIInteractionResponse,
  type APIInteractionResponseCallbackData,
  type APIInteractionResponseChannelMessageWithSource,
  ButtonStyle,
  ComponentType,
  InteractionResponseType,
  InteractionType,
  MessageFlags,
} from 'discord-api-types/v10';
import { z } from 'zod';
import { parseInput } from '../api/input.js';
import { type DiceContext, OPERATIONS } from '../api/operations.js';
import { asTrustError } from '../api/tables.js';
import { DiceError, MESSAGES, StatsBusyError, StatsSpentError, ThrowsSpentError } from '../errors.js';
import { prepareRoll } from '../formula/index.js';
import { LIMITS } from '../limits.js';
import type { RollResponse } from '../roll/types.js';
import type { StatsResponse } from '../stats/distribution.js';
import type { TableRecord } from '../store/store.js';
import type { Receipt } from '../trust/receipt.js';
import type { Trust } from '../trust/service.js';
import { buttonOf, COMMAND, customIdOf, NOTE_MAX_LENGTH, OPTION, TABLE_SUBCOMMAND } from './commands.js';
import {
  cut,
  escapeMarkdown,
  fitContent,
  headText,
  type Links,
  type LogEntryShown,
  logContent,
  MESSAGE_LIMITS,
  oddsContent,
  reportContent,
  rollMessage,
  tablePageUrl,
} from './render.js';

/** A budget of commands per key (src/http/discord.ts: the request limit's windows). */
export interface CommandBudget {
  /** Counts one command of `key`: 0 when the budget allows it, else the seconds until it does. */
  take(key: string): Promise<number>;
}

/** Everything an answer needs besides the interaction: made per request by the plugin. */
export interface DiscordSetting {
  /** The dice context of a Discord user (`discord-user:<id>`): their budgets, the store, the random source. */
  contextFor(userKey: string): DiceContext;
  /** Commands per Discord user, and table operations per channel: one unit each. */
  commandsPerUser: CommandBudget;
  tableOpsPerChannel: CommandBudget;
  links: Links;
  /** Logs a failure nobody planned for (with the request id). */
  logError(error: unknown, message: string): void;
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Posts a message to the interaction's channel once the answer is sent (Discord's follow-up
   * webhook): a sealed roll's public notice, when its answer is the roller's alone.
   */
  followUp(message: APIInteractionResponseCallbackData): void;
}

interface CommandOption {
  name: string;
  type: number;
  value?: string | number | boolean | undefined;
  options?: CommandOption[] | undefined;
  focused?: boolean | undefined;
}

const OptionSchema: z.ZodType<CommandOption> = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    type: z.number(),
    value: z.union([z.string(), z.number(), z.boolean()]).optional(),
    options: z.array(OptionSchema).max(25).optional(),
    focused: z.boolean().optional(),
  }),
);

const IdSchema = z.string().regex(/^\d{1,25}$/);
const NameSchema = z.string().nullish();
const UserSchema = z.looseObject({ id: IdSchema, username: NameSchema, global_name: NameSchema });

/** The parts of an interaction fairdice reads; whatever else Discord sends passes unread. */
export const InteractionSchema = z.looseObject({
  type: z.number().int(),
  id: z.string(),
  application_id: z.string(),
  data: z
    .looseObject({
      name: z.string().optional(),
      options: z.array(OptionSchema).max(25).optional(),
      custom_id: z.string().optional(),
    })
    .optional(),
  member: z.looseObject({ user: UserSchema, nick: NameSchema }).optional(),
  user: UserSchema.optional(),
  channel_id: IdSchema.optional(),
  /** The interaction's token: what its follow-up messages are posted with. */
  token: z.string().max(1000).optional(),
  channel: z.looseObject({ id: IdSchema }).optional(),
});

export type Interaction = z.output<typeof InteractionSchema>;

/** Who asked, and where. */
interface Asker {
  /** The Discord user's id, and the key their budgets count under. */
  user: string;
  key: string;
  /** Their name as the server shows it (its nickname, else their display name): the `by` of their rolls. */
  name: string;
  /** The interaction's id: the Idempotency-Key of the roll it asks for. */
  interaction: string;
  /** The channel's id (a server channel, a DM, a group DM), when Discord says it. */
  channel: string | undefined;
}

const userKey = (id: string) => `discord-user:${id}`;
/** A channel's key in the store's channel-to-table mapping, and in the budget of table operations. */
const channelKey = (id: string) => `discord:${id}`;

/** The Discord user who sent `interaction`: a server member's user, or in a DM the user. */
const userIdOf = (interaction: Interaction): string | undefined =>
  interaction.member?.user.id ?? interaction.user?.id;

/** The key of the Discord user who sent `interaction` (their budgets and turns), if Discord says. */
export function userKeyOf(interaction: Interaction): string | undefined {
  const user = userIdOf(interaction);
  return user === undefined ? undefined : userKey(user);
}

/**
 * Who rolls, as the receipt signs it (`by`): the name the server shows (nickname, display name,
 * username), without control characters, cut to LIMITS.byMaxLength; the user's id when none is.
 */
function nameOf(interaction: Interaction, user: string): string {
  const shown = [
    interaction.member?.nick,
    interaction.member?.user.global_name ?? interaction.user?.global_name,
    interaction.member?.user.username ?? interaction.user?.username,
  ]
    .map((name) => (name ?? '').replace(/\p{Cc}/gu, '').trim())
    .find((name) => name !== '');
  return [...(shown ?? `discord:${user}`)].slice(0, LIMITS.byMaxLength).join('');
}

function askerOf(interaction: Interaction): Asker | undefined {
  const user = userIdOf(interaction);
  if (user === undefined) return undefined;
  return {
    user,
    key: userKey(user),
    name: nameOf(interaction, user),
    interaction: interaction.id,
    channel: interaction.channel?.id ?? interaction.channel_id,
  };
}

/** Refused by a budget of commands: whose, and when to come back. */
class TooFast extends Error {
  constructor(
    readonly whose: 'user' | 'channel',
    readonly retryAfterSeconds: number,
  ) {
    super('too many commands');
    this.name = 'TooFast';
  }
}

/** Counts one command against `key`'s budget, or throws TooFast when it is spent. */
async function spend(budget: CommandBudget, key: string, whose: 'user' | 'channel'): Promise<void> {
  const wait = await budget.take(key);
  if (wait > 0) throw new TooFast(whose, wait);
}

type Message = APIInteractionResponseChannelMessageWithSource;

/** A message answering the interaction; no mention in it notifies anyone. */
function message(
  content: string,
  options: {
    ephemeral?: boolean;
    embeds?: APIEmbed[];
    components?: APIActionRowComponent<APIButtonComponent>[];
  } = {},
): Message {
  return {
    type: InteractionResponseType.ChannelMessageWithSource,
    data: {
      content: fitContent(content),
      allowed_mentions: { parse: [] },
      ...(options.ephemeral === true ? { flags: MessageFlags.Ephemeral } : {}),
      ...(options.embeds === undefined ? {} : { embeds: options.embeds }),
      ...(options.components === undefined || options.components.length === 0
        ? {}
        : { components: options.components }),
    },
  };
}

/** A formula as a message quotes it: in a code span, cut to a line. */
const quoted = (formula: string): string => `\`${cut(formula.replaceAll('`', 'ˋ'), 100)}\``;

const seconds = (n: number): string => `${n} second${n === 1 ? '' : 's'}`;

/** A refusal as the one who asked reads it: what happened and, when it passes, when to come back. */
function refusalText(error: unknown, setting: DiscordSetting): string {
  if (error instanceof TooFast) {
    return error.whose === 'user'
      ? `You are sending commands faster than this fairdice allows: try again in ${seconds(error.retryAfterSeconds)}.`
      : `This channel's table is taking commands faster than this fairdice allows: try again in ${seconds(error.retryAfterSeconds)}.`;
  }
  if (error instanceof ThrowsSpentError) {
    return `You have rolled too many dice lately: try again in ${seconds(error.retryAfterSeconds)}.`;
  }
  if (error instanceof StatsSpentError) {
    return error.message === MESSAGES.statsInFlight
      ? 'You already have odds being computed: ask again once they are answered.'
      : `You have used your share of time for computing odds: try again in ${seconds(error.retryAfterSeconds)}. Odds already computed are still answered.`;
  }
  if (error instanceof StatsBusyError)
    return 'Every worker computing odds is busy: try again in a few seconds.';
  const known = asTrustError(error);
  if (known instanceof DiceError && known.status !== 500) {
    switch (known.code) {
      case 'unavailable':
        return "fairdice's store of receipts and tables is unavailable right now: try again shortly.";
      case 'too_many_tables':
        return 'You have started as many tables this hour as allowed: keep rolling at the one you have, or try again later.';
      default:
        return known.message;
    }
  }
  setting.logError(error, 'Discord interaction failed');
  return "Something failed on fairdice's side (it has been logged): try again.";
}

/**
 * Runs the service's operation `name` as REST, tRPC and MCP run it: `value` checked by its input
 * schema (the same invalid_request wording), then the operation; its answer typed as `T`.
 */
async function runOperation<T>(name: keyof typeof OPERATIONS, value: object, ctx: DiceContext): Promise<T> {
  const { input, run } = OPERATIONS[name] as unknown as {
    input: z.ZodType;
    run: (input: unknown, ctx: DiceContext) => unknown;
  };
  return (await run(await parseInput(input, { value }), ctx)) as T;
}

/** What a table command answers in a channel without a table. */
const NO_TABLE = 'This channel has no fairdice table: start one with /table start.';

function trustOf(ctx: DiceContext): Trust {
  if (ctx.trust === undefined) throw new DiceError('unavailable', MESSAGES.unavailable);
  return ctx.trust;
}

/**
 * The table of the asker's channel, if it has one; using it counts against the channel's table
 * operations.
 */
async function tableInUse(
  ctx: DiceContext,
  asker: Asker,
  setting: DiscordSetting,
): Promise<string | undefined> {
  if (asker.channel === undefined) return undefined;
  const table = await trustOf(ctx).store.channelTable(channelKey(asker.channel), setting.now());
  if (table !== undefined) await spend(setting.tableOpsPerChannel, channelKey(asker.channel), 'channel');
  return table;
}

/** The buttons of a roll message, each present when its custom id can hold the formula. */
function rollButtons(formula: string, ephemeral: boolean): APIActionRowComponent<APIButtonComponent>[] {
  const buttons: APIButtonComponent[] = [];
  const again = customIdOf({ action: 'roll', formula, private: ephemeral });
  if (again !== undefined)
    buttons.push({
      type: ComponentType.Button,
      style: ButtonStyle.Primary,
      label: 'Roll again',
      custom_id: again,
    });
  const odds = customIdOf({ action: 'odds', formula });
  if (odds !== undefined)
    buttons.push({
      type: ComponentType.Button,
      style: ButtonStyle.Secondary,
      label: 'Odds',
      custom_id: odds,
    });
  return buttons.length === 0 ? [] : [{ type: ComponentType.ActionRow, components: buttons }];
}

interface RollAsked {
  formula: string;
  private: boolean;
  /** A secret roll at the channel's table (docs/trust.md#sealed-rolls). */
  sealed?: boolean | undefined;
  note?: string | undefined;
  /** From a message's "Roll again" button: a new roll, said to be another. */
  again: boolean;
}

/**
 * A roll, always signed: at the channel's table when it has one (then it counts against the
 * channel's table operations too), else with a receipt of its own.
 */
async function roll(asker: Asker, asked: RollAsked, setting: DiscordSetting): Promise<Message> {
  const ctx = setting.contextFor(asker.key);
  // A private roll at a table is logged like any other (the log shows it).
  const table = await tableInUse(ctx, asker, setting);
  if (asked.sealed === true && table === undefined)
    return message(
      'A sealed roll is made at a table, whose log keeps it sealed until you reveal it: this channel has none. Start one with /table start.',
      { ephemeral: true },
    );
  if (asked.sealed === true && table !== undefined) return sealedRoll(asker, asked, table, setting);
  // Who rolled and why are signed into the receipt; the interaction's id is the roll's
  // Idempotency-Key, so Discord sending the same interaction again answers the same roll.
  const rolled = await runOperation<RollResponse & { receipt?: Receipt }>(
    'rollWith',
    {
      formula: asked.formula,
      ...(table === undefined ? { receipt: true } : { table }),
      by: asker.name,
      ...(asked.note === undefined ? {} : { note: asked.note }),
      idempotencyKey: asker.interaction,
    },
    ctx,
  );
  const { content, embed } = rollMessage({
    roll: rolled,
    note: asked.note,
    againBy: asked.again ? asker.user : undefined,
    private: asked.private,
    links: setting.links,
  });
  return message(content, {
    embeds: [embed],
    ephemeral: asked.private,
    components: rollButtons(rolled.formula, asked.private),
  });
}

/** `#4`'s commitment as a message shows it: the first 12 hex digits. */
const shortCommitment = (commitment: string): string => `\`${commitment.slice(0, 12)}…\``;

/**
 * A sealed roll at the channel's table: the answer, ephemeral, shows the roller the result and a
 * Reveal button carrying the token; the channel gets a follow-up notice of the sealed entry.
 */
async function sealedRoll(
  asker: Asker,
  asked: RollAsked,
  table: string,
  setting: DiscordSetting,
): Promise<Message> {
  const ctx = setting.contextFor(asker.key);
  const rolled = await runOperation<TableRollResponse>(
    'tableRoll',
    {
      id: table,
      formula: asked.formula,
      by: asker.name,
      ...(asked.note === undefined ? {} : { note: asked.note }),
      sealed: true,
      idempotencyKey: asker.interaction,
    },
    ctx,
  );
  const sealed = rolled.sealed!;
  const { seq, commitment } = sealed.entry;
  const { content, embed } = rollMessage({
    roll: rolled,
    note: asked.note,
    private: true,
    links: setting.links,
  });
  if (rolled.replayed !== true)
    setting.followUp({
      content: fitContent(
        `🔒 ${escapeMarkdown(asker.name)} made a sealed roll of ${quoted(asked.formula)}: table entry #${seq}, commitment ${shortCommitment(commitment)}. Its result stays hidden until they reveal it; the table's log shows it sealed meanwhile, and /table verify checks it.`,
      ),
      allowed_mentions: { parse: [] },
    });
  const reveal = customIdOf({ action: 'reveal', seq, token: sealed.revealToken });
  return message(
    `Sealed roll, table entry #${seq}: only you see this result. The channel sees only that #${seq} is sealed (commitment ${shortCommitment(commitment)}).\n${content}\nTo show it to the channel: press Reveal, or \`/table reveal seq:${seq} token:${sealed.revealToken}\`. Keep the token: nobody can reveal the roll without it.`,
    {
      ephemeral: true,
      embeds: [embed],
      components:
        reveal === undefined
          ? []
          : [
              {
                type: ComponentType.ActionRow,
                components: [
                  {
                    type: ComponentType.Button,
                    style: ButtonStyle.Primary,
                    label: 'Reveal',
                    custom_id: reveal,
                  },
                ],
              },
            ],
    },
  );
}

/** Reveals sealed entry `seq` of the channel's table with its token: a message to the channel. */
async function revealSealed(
  asker: Asker,
  seq: number,
  token: string,
  setting: DiscordSetting,
): Promise<Message> {
  const ctx = setting.contextFor(asker.key);
  const table = await tableInUse(ctx, asker, setting);
  if (table === undefined) return message(NO_TABLE, { ephemeral: true });
  const entry = await runOperation<RevealEntry>('revealRoll', { id: table, seq, token }, ctx);
  const { receipt } = entry.reveal;
  const { content, embed } = rollMessage({
    roll: { ...receipt.roll, receipt },
    note: receipt.request.note,
    private: false,
    links: setting.links,
  });
  const by = receipt.request.by === undefined ? '' : `${escapeMarkdown(receipt.request.by)}'s `;
  return message(
    `🔓 Revealed: ${by}sealed roll, table entry #${entry.reveal.seq} (the reveal is entry #${entry.seq}). It matches the commitment #${entry.reveal.seq} has held since the roll; /table verify checks it.\n${content}`,
    { embeds: [embed] },
  );
}

/**
 * The exact odds of a formula: the exact chance of reaching `target` and, with `versus`, of
 * beating, tying and losing to a second formula, all from the stats operation.
 */
async function odds(
  asker: Asker,
  asked: { formula: string; target?: number | undefined; versus?: string | undefined },
  setting: DiscordSetting,
  ephemeral: boolean,
): Promise<Message> {
  const ctx = setting.contextFor(asker.key);
  const value = {
    formula: asked.formula,
    ...(asked.target === undefined ? {} : { targets: [asked.target] }),
    ...(asked.versus === undefined ? {} : { versus: { formula: asked.versus } }),
  };
  let stats: StatsResponse;
  try {
    // An input its schema refuses is an invalid_request: rethrown below like any error but too_complex.
    stats = await runOperation<StatsResponse>('statsWith', value, ctx);
  } catch (error) {
    if (error instanceof DiceError && error.code === 'too_complex') {
      const against = asked.versus === undefined ? '' : ` against ${quoted(asked.versus)}`;
      return message(
        `The exact odds of ${quoted(asked.formula)}${against} cost too much to compute: ${error.message}`,
        { ephemeral: true },
      );
    }
    throw error;
  }
  // The stats line says the opposed roll first and the target's chances, as every face does.
  return message(oddsContent(stats), { ephemeral });
}

/** `/table start|log|verify|report` in the asker's channel. */
async function table(sub: string, asker: Asker, setting: DiscordSetting): Promise<Message> {
  const channel = asker.channel;
  if (channel === undefined)
    return message('A table belongs to a channel, and Discord did not say which.', { ephemeral: true });
  await spend(setting.tableOpsPerChannel, channelKey(channel), 'channel');
  const ctx = setting.contextFor(asker.key);
  const trust = trustOf(ctx);
  const now = setting.now();
  const current = await trust.store.channelTable(channelKey(channel), now);
  if (sub === TABLE_SUBCOMMAND.start) {
    const created = await OPERATIONS.createTable.run(undefined, ctx);
    await trust.store.setChannelTable(channelKey(channel), created.id, now);
    const before =
      current === undefined
        ? ''
        : `\nThe table before, \`${current}\`, can still be read: <${tablePageUrl(setting.links, current)}>`;
    return message(
      `This channel has a fairdice table now: every /roll here is signed and added to its log, which anyone can check (/table verify, or <${tablePageUrl(setting.links, created.id)}>). It keeps up to ${created.maxEntries} rolls, for ${created.retentionDays} days after the last one.${before}`,
    );
  }
  if (current === undefined) {
    return message(NO_TABLE, { ephemeral: true });
  }
  const record = await trust.store.table(current, now);
  if (record === undefined) {
    return message(NO_TABLE, { ephemeral: true });
  }
  if (sub === TABLE_SUBCOMMAND.log) {
    const shown = LIMITS.discordLogEntries;
    const page = await OPERATIONS.tableRolls.run(
      { id: current, after: Math.max(0, record.entries - shown), limit: shown },
      ctx,
    );
    const rolls = page.rolls as readonly LogEntryShown[];
    return message(logContent({ id: current, entries: page.entries }, rolls, setting.links), {
      ephemeral: true,
    });
  }
  if (sub === TABLE_SUBCOMMAND.verify) return verifyTable(record, trust, setting, now);
  // How lucky the rolls were: each distribution charged to the asker's stats budget.
  const report = await OPERATIONS.tableReport.run({ id: current }, ctx);
  return message(reportContent(report, current, setting.links));
}

/**
 * Checks the whole log of a table against the head signed as it was read, when the log is short
 * enough to check within Discord's time, and shows the head.
 */
async function verifyTable(
  record: TableRecord,
  trust: Trust,
  setting: DiscordSetting,
  now: number,
): Promise<Message> {
  const { id: tableId, entries } = record;
  const page = `<${tablePageUrl(setting.links, tableId)}>`;
  const head = trust.head(record);
  const signed = headText(head);
  if (entries > LIMITS.discordVerifyEntries) {
    return message(
      `This channel's table holds ${entries} rolls, more than can be checked within Discord's time (${LIMITS.discordVerifyEntries}): check it in your browser, ${page}, or with \`npm run verify\` (docs/trust.md).\n${signed}`,
    );
  }
  // The log as the store holds it: a log shorter than the head, or forked from it, fails
  // (docs/trust.md#signed-heads).
  const log = (await trust.store.rolls(tableId, 0, entries, now)) ?? [];
  const result = await verifyChain(log, trust.keys.jwks, head);
  if (!result.valid) {
    return message(
      `This channel's table does NOT check out: entry #${result.seq ?? '?'}: ${result.reason}. Do not trust its rolls from there on.`,
    );
  }
  return message(
    entries === 0
      ? `This channel's table has no rolls yet. Check it any time: ${page}\n${signed}`
      : `This channel's table checks out: all ${entries} rolls are signed by this fairdice's key, numbered 1 to ${entries} with none missing, each holds the hash of the one before, and the last is the one the signed head names, so none was altered, removed, slipped in or cut from the end. Check it yourself: ${page}\n${signed}`,
  );
}

/** A note as the receipt signs it: on one line, at most NOTE_MAX_LENGTH characters; none when blank. */
function noteOf(text: string | undefined): string | undefined {
  const note = [...(text ?? '').replace(/\p{Cc}+/gu, ' ').trim()].slice(0, NOTE_MAX_LENGTH).join('');
  return note === '' ? undefined : note;
}

const optionsOf = (options: readonly CommandOption[] | undefined): Map<string, CommandOption> =>
  new Map((options ?? []).map((option) => [option.name, option]));

const stringOf = (option: CommandOption | undefined): string | undefined =>
  typeof option?.value === 'string' ? option.value : undefined;

async function command(interaction: Interaction, asker: Asker, setting: DiscordSetting): Promise<Message> {
  const data = interaction.data;
  const options = optionsOf(data?.options);
  switch (data?.name) {
    case COMMAND.roll: {
      const formula = stringOf(options.get(OPTION.formula)) ?? '';
      return roll(
        asker,
        {
          formula,
          private: options.get(OPTION.private)?.value === true,
          note: noteOf(stringOf(options.get(OPTION.note))),
          sealed: options.get(OPTION.sealed)?.value === true,
          again: false,
        },
        setting,
      );
    }
    case COMMAND.odds: {
      const target = options.get(OPTION.target)?.value;
      return odds(
        asker,
        {
          formula: stringOf(options.get(OPTION.formula)) ?? '',
          target: typeof target === 'number' && Number.isSafeInteger(target) ? target : undefined,
          versus: stringOf(options.get(OPTION.versus)),
        },
        setting,
        false,
      );
    }
    case COMMAND.table: {
      const sub = data.options?.[0]?.name ?? '';
      if (sub === TABLE_SUBCOMMAND.reveal) {
        const given = optionsOf(data.options?.[0]?.options);
        const seq = given.get(OPTION.seq)?.value;
        return revealSealed(
          asker,
          typeof seq === 'number' ? seq : 0,
          stringOf(given.get(OPTION.token)) ?? '',
          setting,
        );
      }
      return table(sub, asker, setting);
    }
    default:
      return message(
        'fairdice does not know this command: its commands may need registering again (`fairdice discord register`).',
        { ephemeral: true },
      );
  }
}

async function button(interaction: Interaction, asker: Asker, setting: DiscordSetting): Promise<Message> {
  const pressed = buttonOf(interaction.data?.custom_id ?? '');
  if (pressed === undefined) return message('This button does nothing any more.', { ephemeral: true });
  if (pressed.action === 'roll') {
    return roll(asker, { formula: pressed.formula, private: pressed.private, again: true }, setting);
  }
  if (pressed.action === 'reveal') return revealSealed(asker, pressed.seq, pressed.token, setting);
  return odds(asker, { formula: pressed.formula }, setting, true);
}

/** Formulas offered while one is typed, each with what it rolls. */
const EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['1d20', 'a d20'],
  ['1d20+5', 'a d20 plus 5'],
  ['2d20kh1', 'a d20 with advantage'],
  ['2d20kl1', 'a d20 with disadvantage'],
  ['4d6kh3', 'an ability score: 4d6, the best 3'],
  ['3d6', 'three d6'],
  ['2d6', 'two d6'],
  ['1d100', 'a percentile die'],
  ['1d8+4', 'a d8 plus 4'],
  ['8d10>=8', 'a pool: successes on 8 or more'],
  ['4dF', 'four Fate dice'],
  ['3d6!', 'three exploding d6'],
];

/** Suggestions for the formula being typed: it, with what is wrong with it, then examples. */
export function formulaChoices(
  typed: string,
  dicePerRoll: number,
): APIApplicationCommandOptionChoice<string>[] {
  const text = typed.trim();
  const choices: APIApplicationCommandOptionChoice<string>[] = [];
  if (text !== '' && text.length <= MESSAGE_LIMITS.choiceValue) {
    let problem = '';
    try {
      prepareRoll({ formula: text }, { dicePerRoll });
    } catch (error) {
      problem = error instanceof DiceError ? ` ⚠ ${error.message}` : ' ⚠';
    }
    choices.push({ name: cut(`${text}${problem}`, MESSAGE_LIMITS.choiceName), value: text });
  }
  for (const [formula, what] of EXAMPLES) {
    if (choices.length >= MESSAGE_LIMITS.autocompleteChoices) break;
    if (formula === text || !formula.startsWith(text)) continue;
    choices.push({ name: `${formula}: ${what}`, value: formula });
  }
  return choices;
}

function autocomplete(
  interaction: Interaction,
  setting: DiscordSetting,
  asker: Asker,
): APIApplicationCommandAutocompleteResponse {
  const focused = (interaction.data?.options ?? []).find((option) => option.focused === true);
  const typed = typeof focused?.value === 'string' ? focused.value : '';
  const { dicePerRoll } = setting.contextFor(asker.key);
  return {
    type: InteractionResponseType.ApplicationCommandAutocompleteResult,
    data: { choices: formulaChoices(typed, dicePerRoll) },
  };
}

/**
 * The answer to a verified interaction, or undefined for a type fairdice does not know (the
 * endpoint answers that 400). Refusals are ephemeral messages saying why and, when it passes,
 * how long to wait; a command over its user's budget costs one look-up.
 */
export async function answerInteraction(
  interaction: Interaction,
  setting: DiscordSetting,
): Promise<APIInteractionResponse | undefined> {
  if (interaction.type === InteractionType.Ping) return { type: InteractionResponseType.Pong };
  const known =
    interaction.type === InteractionType.ApplicationCommand ||
    interaction.type === InteractionType.MessageComponent ||
    interaction.type === InteractionType.ApplicationCommandAutocomplete ||
    interaction.type === InteractionType.ModalSubmit;
  if (!known) return undefined;
  const asker = askerOf(interaction);
  if (asker === undefined) return message('Discord did not say who asked.', { ephemeral: true });
  // Suggestions cost no dice and are asked at every key stroke: they take no unit of the budget.
  if (interaction.type === InteractionType.ApplicationCommandAutocomplete)
    return autocomplete(interaction, setting, asker);
  // fairdice opens no form: nothing can be submitted to it.
  if (interaction.type === InteractionType.ModalSubmit)
    return message('fairdice has no form to submit.', { ephemeral: true });
  try {
    await spend(setting.commandsPerUser, asker.key, 'user');
    return interaction.type === InteractionType.ApplicationCommand
      ? await command(interaction, asker, setting)
      : await button(interaction, asker, setting);
  } catch (error) {
    return message(refusalText(error, setting), { ephemeral: true });
  }
}
