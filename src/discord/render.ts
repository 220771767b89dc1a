// What fairdice's Discord messages say (docs/discord.md): a roll, the odds of a formula with a
// text chart, a table's log, within Discord's limits on a message (MESSAGE_LIMITS). Plain text
// and Discord's markdown only; whatever a user typed (a note) is escaped, and no message
// mentions anyone in a way that notifies them (`allowed_mentions` is empty wherever one is sent).
//
// The roll itself is written by `renderRoll`, the one place that turns a roll response into
// text: it is where the shared description of a roll (packages/client) takes over once it
// exists, so every face writes a roll alike.

import { percentOf, rollLine, type StatsSummary, statsLine } from '../mcp/lines.js';
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

/**
 * The roll: every die, which counted, the total. The one function that writes a roll for
 * Discord: the shared description of a roll replaces its body when it lands.
 */
export function renderRoll(roll: RollResponse): string {
  const { receipt: _receipt, ...plain } = roll as RollResponse & { receipt?: unknown };
  const tag = roll.tag === undefined ? '' : ` ${roll.tag}`;
  return `${code(cut(rollLine(plain), ROLL_LINE_MAX))}\nTotal **${roll.total}**${tag}`;
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

/** The content of a roll message. */
export function rollContent(message: RollMessage): string {
  const { roll, note, againBy, links } = message;
  const lines: string[] = [];
  if (againBy !== undefined) lines.push(`Another roll, by <@${againBy}>:`);
  lines.push(renderRoll(roll));
  if (note !== undefined) lines.push(`Note: ${escapeMarkdown(note)}`);
  const receipt = roll.receipt;
  if (receipt !== undefined) {
    const where = receipt.seq === undefined ? 'Signed' : `Table entry #${receipt.seq}, signed`;
    lines.push(`${where}: ${link('receipt', receiptUrl(links, receipt.id))}`);
  }
  if (message.private) lines.push('Only you see this answer.');
  return fitContent(lines.join('\n'));
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

/**
 * The odds of a formula: the one line (mean, spread, range, percentiles, and the chance of
 * reaching `target`), then a chart of the chance of each total.
 */
export function oddsContent(stats: OddsShown, target: number | undefined): string {
  const lines = [code(cut(statsLine(stats, { target }), ROLL_LINE_MAX))];
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
export interface LogEntryShown {
  seq?: number | undefined;
  time: string;
  roll: RollResponse;
}

/** Characters of one line of the log at most: ten of them fit one message. */
const LOG_LINE_MAX = 150;

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
    (entry) =>
      `#${entry.seq} ${discordTime(Date.parse(entry.time), 't')} ${code(cut(rollLine(entry.roll), LOG_LINE_MAX))}`,
  );
  const all = `The whole log, checked in your browser: ${link(`table ${table.id}`, tablePageUrl(links, table.id))}`;
  return fitContent([head, ...lines, all].join('\n'));
}
