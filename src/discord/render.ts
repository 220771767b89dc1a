// What fairdice's Discord messages say (docs/discord.md): a roll, the odds of a formula with a
// text chart, a table's log, within Discord's limits on a message (MESSAGE_LIMITS). Plain text
// and Discord's markdown only; whatever a user typed (a note) is escaped, and no message
// mentions anyone in a way that notifies them (`allowed_mentions` is empty wherever one is sent).
//
// A roll is written from its description (@fairdice/client/describe, docs/client.md), as every
// face writes one: its one-line text form and total in the content (`renderRoll`), and every die
// in an embed, one field per dice term (`rollEmbed`).

import {
  countsText,
  type DescribedDie,
  type DescribedRequest,
  type DiceTerm,
  describeRoll,
  dieText,
  type RollDescription,
  type RollNode,
  rollText,
} from '@fairdice/client/describe';
import type { TableReport } from '@fairdice/client/types';
import type { APIEmbed, APIEmbedField } from 'discord-api-types/v10';
import { percentileText, unusualRolls } from '../api/report.js';
import { percentOf, type StatsSummary, statsLine } from '../mcp/lines.js';
import type { RollResponse } from '../roll/types.js';
import type { Receipt } from '../trust/receipt.js';

/** Discord's limits on one message (its API refuses a message over any of them). */
export const MESSAGE_LIMITS = {
  content: 2_000,
  embeds: 10,
  /** Characters of every embed's title, description, field names and values, footer and author together. */
  embedCharacters: 6_000,
  fieldsPerEmbed: 25,
  actionRows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  autocompleteChoices: 25,
  choiceName: 100,
  choiceValue: 100,
} as const;

/** Where the links of a message point: the service as players reach it, without a trailing `/`. */
export interface Links {
  base: string;
}

export const receiptUrl = (links: Links, receiptId: string): string =>
  `${links.base}/v1/rolls/${encodeURIComponent(receiptId)}`;

/** The page at / showing a table's log, checked in the browser (docs/trust.md). */
export const tablePageUrl = (links: Links, tableId: string): string =>
  `${links.base}/?table=${encodeURIComponent(tableId)}`;

/** A masked link whose target Discord shows no preview of. */
const link = (text: string, url: string): string => `[${text}](<${url}>)`;

const ELLIPSIS = '…';

/** `text` cut to `max` characters at most, ending with `…` when it was cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - ELLIPSIS.length))}${ELLIPSIS}`;
}

/** A message's content within Discord's limit, cut at a line end where one is near. */
export function fitContent(text: string): string {
  if (text.length <= MESSAGE_LIMITS.content) return text;
  const room = MESSAGE_LIMITS.content - ELLIPSIS.length - 1;
  const lineEnd = text.lastIndexOf('\n', room);
  const at = lineEnd > room - 200 ? lineEnd : room;
  return `${text.slice(0, at)}\n${ELLIPSIS}`;
}

/** A user's text shown as text: Discord's markdown and mention characters escaped, on one line. */
export function escapeMarkdown(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\*_~`|>#[\]()<@:-]/g, (char) => `\\${char}`);
}

/** Inline code; the roll lines hold no backtick, but none may end the span early. */
const code = (text: string): string => `\`${text.replaceAll('`', 'ˋ')}\``;

/** The longest roll line shown: a formula of many terms lists many dice. */
const ROLL_LINE_MAX = 1_500;

/** A Discord timestamp: shown in each reader's own time zone (`t`: time, `R`: relative). */
export const discordTime = (ms: number, style: 't' | 'f' | 'R'): string =>
  `<t:${Math.floor(ms / 1000)}:${style}>`;

/** Dice listed per term in a roll's line before the rest is summed up (the embed lists more). */
const LINE_DICE = 30;

/** The one-line text form of a roll (the description's, every face's): `4d6kh3 [6 5 3 (1)] = 14`. */
const lineOf = (description: RollDescription, max: number): string =>
  code(cut(rollText(description, { maxDice: LINE_DICE }), max));

/**
 * The roll in a message's content: its line, then the total. Written from the description of the
 * roll (@fairdice/client/describe), as every face writes a roll; `rollEmbed` lists its dice.
 */
export function renderRoll(description: RollDescription): string {
  return `${lineOf(description, ROLL_LINE_MAX)}\nTotal ${totalText(description)}`;
}

/** What a roll message shows besides the roll. */
export interface RollMessage {
  roll: RollResponse & { receipt?: Receipt | undefined };
  note?: string | undefined;
  /** A new roll from a message's "Roll again" button: the Discord id of who pressed it. */
  againBy?: string | undefined;
  private: boolean;
  links: Links;
}

/** A roll message: the line, the total, the note and the receipt, and an embed of every die. */
export function rollMessage(message: RollMessage): { content: string; embed: APIEmbed } {
  const { roll, note, againBy, links } = message;
  const { receipt: _receipt, ...plain } = roll;
  const description = describeRoll(plain, roll.receipt?.request);
  const lines: string[] = [];
  if (againBy !== undefined) lines.push(`Another roll, by <@${againBy}>:`);
  lines.push(renderRoll(description));
  if (note !== undefined) lines.push(`Note: ${escapeMarkdown(note)}`);
  const receipt = roll.receipt;
  if (receipt !== undefined) {
    const where = receipt.seq === undefined ? 'Signed' : `Table entry #${receipt.seq}, signed`;
    lines.push(`${where}: ${link('receipt', receiptUrl(links, receipt.id))}`);
  }
  if (message.private) lines.push('Only you see this answer.');
  return {
    content: fitContent(lines.join('\n')),
    embed: rollEmbed(description, receipt === undefined ? undefined : receiptUrl(links, receipt.id)),
  };
}

/** Rows of the odds chart at most, and the width of its longest bar in characters. */
const CHART_ROWS = 20;
const BAR_WIDTH = 20;
/** A chart of many totals covers where all but this much of the chance lies, and says the rest. */
const CHART_TAIL = 0.0005;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `fraction` of the full width, in eighths of a character. */
function bar(fraction: number): string {
  const eighths = Math.round(fraction * BAR_WIDTH * 8);
  const full = Math.floor(eighths / 8);
  const rest = EIGHTHS[eighths % 8] ?? '';
  return ('█'.repeat(full) + rest || (fraction > 0 ? '▏' : '')).padEnd(BAR_WIDTH, ' ');
}

interface ChartOutcome {
  total: number;
  probability: number;
}

interface ChartRow {
  label: string;
  probability: number;
}

/** The rows of the chart: one per total when they are few, else ranges of totals and the tails. */
export function chartRows(outcomes: readonly ChartOutcome[]): ChartRow[] {
  if (outcomes.length <= CHART_ROWS) {
    return outcomes.map((outcome) => ({ label: String(outcome.total), probability: outcome.probability }));
  }
  // The range holding all but CHART_TAIL of the chance on each side.
  let below = 0;
  let lo = 0;
  while (lo < outcomes.length - 1 && below + outcomes[lo]!.probability <= CHART_TAIL) {
    below += outcomes[lo]!.probability;
    lo++;
  }
  let above = 0;
  let hi = outcomes.length - 1;
  while (hi > lo && above + outcomes[hi]!.probability <= CHART_TAIL) {
    above += outcomes[hi]!.probability;
    hi--;
  }
  const first = outcomes[lo]!.total;
  const last = outcomes[hi]!.total;
  const rows: ChartRow[] = [];
  const tails = (below > 0 ? 1 : 0) + (above > 0 ? 1 : 0);
  const width = Math.max(1, Math.ceil((last - first + 1) / (CHART_ROWS - tails)));
  if (below > 0) rows.push({ label: `< ${first}`, probability: below });
  let index = lo;
  for (let from = first; from <= last; from += width) {
    const to = Math.min(last, from + width - 1);
    let probability = 0;
    while (index <= hi && outcomes[index]!.total <= to) probability += outcomes[index++]!.probability;
    rows.push({ label: from === to ? String(from) : `${from}–${to}`, probability });
  }
  if (above > 0) rows.push({ label: `> ${last}`, probability: above });
  return rows;
}

/** The chart as lines of text, one row each: `12 ██████▍ 11.57%`. */
function chart(outcomes: readonly ChartOutcome[]): string {
  const rows = chartRows(outcomes);
  const most = Math.max(...rows.map((row) => row.probability));
  const labelWidth = Math.max(...rows.map((row) => row.label.length));
  return rows
    .map(
      (row) =>
        `${row.label.padStart(labelWidth)} ${bar(most > 0 ? row.probability / most : 0)} ${percentOf(row.probability)}`,
    )
    .join('\n');
}

/** What the odds message reads of an exact distribution (the answer of the stats operation). */
export interface OddsShown extends StatsSummary {
  listing: 'full' | 'probabilities' | 'summary';
  outcomes: ReadonlyArray<{ total: number; atLeast: number; probability: number }>;
  truncation: { depth: number; tailProbability: number } | null;
}

/** The odds of a formula: the one line (mean, spread, range, percentiles), then a chart of the chance of each total. */
export function oddsContent(stats: OddsShown): string {
  const lines = [code(cut(statsLine(stats, {}), ROLL_LINE_MAX))];
  if (stats.truncation !== null) {
    lines.push(
      `Explosions listed to ${stats.truncation.depth} extra dice; rolls going deeper: ${percentOf(stats.truncation.tailProbability)}.`,
    );
  }
  if (stats.outcomes.length === 0) lines.push('Too many possible totals to chart.');
  else lines.push(`\`\`\`\n${chart(stats.outcomes)}\n\`\`\``);
  return fitContent(lines.join('\n'));
}

/** One entry of a table's log as the log shows it. */
interface OpenEntryShown {
  seq?: number | undefined;
  time: string;
  roll: RollResponse;
  /** The request rolled: it names string bonuses as written, and who rolled and why. */
  request?: (DescribedRequest & { by?: string | undefined; note?: string | undefined }) | undefined;
}

/** An entry of a table's log as `/table log` shows it: an open roll, a sealed one, or a reveal. */
export type LogEntryShown =
  | OpenEntryShown
  | { seq: number; time: string; commitment: string; request: { formula: string; by?: string | undefined } }
  | { seq: number; time: string; reveal: { seq: number; receipt: OpenEntryShown } };

/** What a line of the log says of an entry after its number and time. */
function entryText(entry: LogEntryShown): string {
  if ('commitment' in entry)
    return `${byText(entry.request.by)}\`${cut(entry.request.formula.replaceAll('`', 'ˋ'), 100)}\` 🔒 sealed (commitment \`${entry.commitment.slice(0, 12)}…\`)`;
  const open = 'reveal' in entry ? entry.reveal.receipt : entry;
  const revealed = 'reveal' in entry ? `🔓 reveals #${entry.reveal.seq}: ` : '';
  return `${revealed}${byText(open.request?.by)}${lineOf(describeRoll(open.roll, open.request), LOG_LINE_MAX)}${noteText(open.request?.note, LOG_NOTE_MAX)}`;
}

/** `Mira: ` before a roll, ` (attack on the ogre)` after it: who rolled and why, as text. */
const byText = (by: string | undefined): string => (by === undefined ? '' : `${escapeMarkdown(by)}: `);
const noteText = (note: string | undefined, max: number): string =>
  note === undefined ? '' : ` (${escapeMarkdown(cut(note, max))})`;

/** Characters of one line of the log's roll, and of its note: ten lines fit one message. */
const LOG_LINE_MAX = 120;
const LOG_NOTE_MAX = 40;

/** The last entries of a table's log, one line each, and where to read and check all of it. */
export function logContent(
  table: { id: string; entries: number },
  entries: readonly LogEntryShown[],
  links: Links,
): string {
  const head =
    entries.length === 0
      ? `This channel's table has no rolls yet.`
      : `This channel's table: ${table.entries} roll${table.entries === 1 ? '' : 's'}; the last ${entries.length}:`;
  const lines = entries.map(
    (entry) => `#${entry.seq} ${discordTime(Date.parse(entry.time), 't')} ${entryText(entry)}`,
  );
  const all = `The whole log, checked in your browser: ${link(`table ${table.id}`, tablePageUrl(links, table.id))}`;
  return fitContent([head, ...lines, all].join('\n'));
}

// --- the dice of a roll, in an embed -----------------------------------------------------------

/** Discord's limits on the parts of an embed. */
const EMBED_LIMITS = { title: 256, description: 4_096, fieldName: 256, fieldValue: 1_024 } as const;
/** fairdice's colour on an embed. */
const EMBED_COLOUR = 0x5865f2;
/** Fate faces as Fate players draw them: plus, minus, blank. */
const FATE_FACE: Readonly<Record<string, string>> = { '1': '⊞', '-1': '⊟', '0': '☐' };

/** Where a term stands: inside which `{…}` groups, and whether a group left its item out. */
interface TermPlace {
  term: DiceTerm;
  /** The groups around it, innermost last, as written (`{…}kh1`). */
  groups: string[];
  /** A group's keep/drop left out the item holding it: none of its dice count. */
  dropped: boolean;
}

/** The dice terms of a roll in formula order, each with where it stands. */
function termPlaces(description: RollDescription): TermPlace[] {
  const places: TermPlace[] = [];
  const visit = (node: RollNode, groups: string[], dropped: boolean): void => {
    switch (node.kind) {
      case 'dice':
        places.push({ term: node.term, groups, dropped });
        return;
      case 'number':
        return;
      case 'operation':
        for (const operand of node.operands) visit(operand, groups, dropped);
        return;
      case 'function':
        for (const argument of node.arguments) visit(argument, groups, dropped);
        return;
      case 'group': {
        const named = `{…}${node.modifiers}${node.label === undefined ? '' : `[${node.label}]`}`;
        for (const item of node.items) visit(item.node, [...groups, named], dropped || !item.kept);
        return;
      }
    }
  };
  visit(description.root, [], false);
  // Every term of the response, even one the formula's tree did not name.
  for (const term of description.terms)
    if (!places.some((place) => place.term === term)) places.push({ term, groups: [], dropped: false });
  return places;
}

/**
 * A die in Discord's markdown, marked as the text form marks it (docs/client.md): bold when it
 * counts, struck through when it does not, and so is each throw rerolled away (before `→`).
 */
function dieMarkdown(die: DescribedDie, fate: boolean, dropped: boolean): string {
  let text = dieText({ ...die, kept: true }, false);
  // Fate dice (-1, 0, +1 as numbers) drawn as their faces; no other number is on one.
  if (fate) text = text.replace(/-?\d+/g, (value) => FATE_FACE[value] ?? value);
  const throws = text.split('→');
  const stood = throws.pop() ?? '';
  const rerolled = throws.map((thrown) => `~~${thrown}~~→`).join('');
  return `${rerolled}${die.kept && !dropped ? `**${stood}**` : `~~${stood}~~`}`;
}

/** What a term amounts to: its counts, its sets, or its signed total. */
function termAmount(place: TermPlace): string {
  const { term } = place;
  if (place.dropped) return '→ dropped';
  if (term.successes !== undefined) return `→ ${countsText(term.successes, term.failures)}`;
  if (term.matches?.total === true)
    return `→ ${term.matches.values.length} set${term.matches.values.length === 1 ? '' : 's'}`;
  if (term.pooled) return '→ ranked with the group';
  return `= ${term.total}`;
}

/** Characters kept for the field saying how many terms did not fit. */
const MORE_TERMS_ROOM = 60;

/**
 * A term's field, `room` characters at most (name and value): what was written and where, then
 * every die that fits, then what it amounts to.
 */
function termField(place: TermPlace, room: number): { name: string; value: string; inline: boolean } {
  const { term } = place;
  const sign = term.sign < 0 ? '−' : '';
  const times = term.multiplier === 1 ? '' : ` ×${term.multiplier}`;
  const where = place.groups.length === 0 ? '' : ` in ${place.groups.join(' in ')}`;
  const advantage = term.advantage === undefined ? '' : ` with ${term.advantage}`;
  const label = term.label === undefined ? '' : `[${term.label}]`;
  const name = cut(`${sign}${term.notation}${label}${times}${advantage}${where}`, EMBED_LIMITS.fieldName);
  const amount = termAmount(place);
  const sets =
    term.matches === undefined || term.matches.total
      ? ''
      : term.matches.values.length === 0
        ? ' (no sets)'
        : ` (sets of ${term.matches.values.join(', ')})`;
  const tail = ` ${amount}${sets}`;
  const max = Math.min(EMBED_LIMITS.fieldValue, room - name.length) - tail.length;
  const dice: string[] = [];
  let length = 0;
  for (const [index, die] of term.dice.entries()) {
    const shown = dieMarkdown(die, term.fate, place.dropped);
    const rest = term.dice.length - index - 1;
    // Room for this die and, when some would still follow, for saying how many.
    const after = rest === 0 ? 0 : ` … ${rest} more`.length;
    if (length + shown.length + 1 + after > max) {
      dice.push(`… ${term.dice.length - index} more`);
      break;
    }
    dice.push(shown);
    length += shown.length + 1;
  }
  const value = `${dice.join(' ')}${tail}`;
  return { name, value: value.trim() === '' ? '—' : value, inline: term.dice.length <= 6 };
}

/** The total as a player reads it: `**14**`, `**3 successes** − 1 failure = **2**`, `with advantage`. */
export function totalText(description: RollDescription): string {
  const { counting } = description;
  let text = `**${description.total}**`;
  if (counting !== undefined) {
    const successes = `**${countsText(counting.successes, undefined)}**`;
    const failures = counting.failures;
    text =
      failures === undefined
        ? successes
        : `${successes} − ${failures} failure${failures === 1 ? '' : 's'} = **${description.total}**`;
  } else if (description.exact !== undefined) {
    text += ` (${description.exact}, rounded down)`;
  }
  if (description.advantage !== 'normal') text += ` with ${description.advantage}`;
  if (description.tag !== undefined) text += ` ${escapeMarkdown(description.tag)}`;
  return text;
}

/**
 * The dice of a roll as an embed, from the roll's description: the total, then one field per dice
 * term in formula order (what was written and in which group, every die that fits, bold when it
 * counts and struck through when it does not, Fate faces as ⊞ ⊟ ☐, what the term amounts to).
 * The title links to the receipt of a signed roll. Within Discord's limits on an embed.
 */
export function rollEmbed(description: RollDescription, receipt: string | undefined): APIEmbed {
  const title = cut(description.formula, EMBED_LIMITS.title);
  const text = `Total ${totalText(description)}`;
  const places = termPlaces(description);
  const fields: APIEmbedField[] = [];
  let room = MESSAGE_LIMITS.embedCharacters - title.length - text.length - MORE_TERMS_ROOM;
  for (const [index, place] of places.entries()) {
    const left = places.length - index;
    const last = fields.length === MESSAGE_LIMITS.fieldsPerEmbed - 1 && left > 1;
    const field = last || room < MORE_TERMS_ROOM ? undefined : termField(place, room);
    if (field === undefined) {
      fields.push({ name: `… ${left} more terms`, value: 'every die is in the receipt' });
      break;
    }
    fields.push(field);
    room -= field.name.length + field.value.length;
  }
  return {
    title,
    ...(receipt === undefined ? {} : { url: receipt }),
    description: text,
    color: EMBED_COLOUR,
    fields,
  };
}

// --- signed heads and luck reports -------------------------------------------------------------

/** What a message reads of a table's signed head. */
export interface HeadShown {
  entries: number;
  lastHash: string;
  time: string;
  kid: string;
}

/** The signed head: how many entries, the hash of the last, when, by which key. */
export const headText = (head: HeadShown): string =>
  `Signed head: ${head.entries} entr${head.entries === 1 ? 'y' : 'ies'}, the last hashing to \`${head.lastHash.slice(0, 16)}…\`, signed ${discordTime(Date.parse(head.time), 'f')} with key \`${head.kid.slice(0, 12)}…\`.`;

/** What the report message reads of a table's luck report (docs/trust.md#how-lucky-the-night-was). */
export type ReportShown = Pick<TableReport, 'covered' | 'rolls' | 'byRoller' | 'overall' | 'test'>;

/** Rollers, and rolls in the outer tenth of their odds, listed in a report at most. */
const REPORT_ROLLERS = 15;
const REPORT_UNUSUAL = 10;

/**
 * How lucky the night was: what was read, the table's mean percentile, each roller's, the
 * verdict of the test of fair dice in plain words, and the rolls in the outer tenth of their odds.
 */
export function reportContent(report: ReportShown, tableId: string, links: Links): string {
  const { covered, overall } = report;
  const lines = [
    `How lucky this channel's table was: entries #${covered.from} to #${covered.to}, ${covered.rolls} roll${covered.rolls === 1 ? '' : 's'}, ${covered.rated} rated${covered.sealed === 0 ? '' : `, ${covered.sealed} sealed (not rated until revealed)`}${covered.notRated === 0 ? '' : `, ${covered.notRated} not rated`}.`,
  ];
  if (overall.meanMidP !== null)
    lines.push(
      `The table rolled at the **${percentileText(overall.meanMidP)}** on average (50th is average luck).`,
    );
  const rollers = report.byRoller.slice(0, REPORT_ROLLERS);
  for (const roller of rollers) {
    const who = roller.by === null ? 'rolls naming nobody' : escapeMarkdown(cut(roller.by, 80));
    lines.push(
      `- ${who}: ${percentileText(roller.meanMidP)} over ${roller.rated} roll${roller.rated === 1 ? '' : 's'}`,
    );
  }
  if (report.byRoller.length > rollers.length)
    lines.push(`- and ${report.byRoller.length - rollers.length} more rollers`);
  lines.push(report.test.sentence);
  const unusual = unusualRolls(report);
  if (unusual.length > 0) {
    lines.push('Rolls in the outer tenth of their odds:');
    for (const roll of unusual.slice(0, REPORT_UNUSUAL)) {
      const who = roll.by === undefined ? '' : ` by ${escapeMarkdown(cut(roll.by, 80))}`;
      lines.push(
        `- #${roll.seq} ${code(cut(roll.formula, 100))} = ${roll.total}${who}: ${percentileText(roll.midP ?? 0.5)}`,
      );
    }
    if (unusual.length > REPORT_UNUSUAL) lines.push(`- and ${unusual.length - REPORT_UNUSUAL} more`);
  }
  lines.push(`Every roll, in your browser: ${link(`table ${tableId}`, tablePageUrl(links, tableId))}`);
  return fitContent(lines.join('\n'));
}
