// The one line an AI client reads, and may quote, for each tool result (docs/mcp.md). A roll's
// line is the text form of the client's description of the roll (docs/client.md), which every
// face shares: `4d6kh3 [6 5 3 (1)] + 2 = 16`. Plain text from the response's own fields, no SDK.
// The description is the client package's (@fairdice/client/describe).
import { type DescribedRequest, describeRoll, percentText, rollText } from '@fairdice/client/describe';
import type { TableReport } from '@fairdice/client/types';
import { percentileText, unusualRolls } from '../api/report.js';
import type { RollResponse } from '../roll/types.js';

/** Dice listed per term before the rest is summed up ("… 970 more = 3512"): a line stays a line. */
export const DICE_SHOWN = 30;

/** What a line names of a receipt: its id, and at a table its place in the log. */
interface ReceiptMention {
  id: string;
  seq?: number | undefined;
}

/** ` [table entry #3, receipt 019a…]`, or ` [receipt 019a…]` outside a table; nothing unsigned. */
function receiptText(receipt: ReceiptMention | undefined): string {
  if (receipt === undefined) return '';
  const entry = receipt.seq === undefined ? '' : `table entry #${receipt.seq}, `;
  return ` [${entry}receipt ${receipt.id}]`;
}

/** What a roll's line reads of its request: its bonuses as written, and who rolled and why. */
export type LineRequest = DescribedRequest & { by?: string | undefined; note?: string | undefined };

/**
 * The roll's text form (`1d20 [(3) 12] + 7 = 19 with advantage`), after who rolled (`Mira: `) and
 * before what for (` (for: attack on the ogre)`), and for a signed roll its receipt
 * (`[table entry #3, receipt 019a…]`). `request` names its string bonuses as written. A replayed
 * answer (an idempotencyKey given again) says so.
 */
export function rollLine(
  roll: RollResponse & { receipt?: ReceiptMention | undefined; replayed?: true | undefined },
  request?: LineRequest,
): string {
  const by = request?.by === undefined ? '' : `${request.by}: `;
  const note = request?.note === undefined ? '' : ` (for: ${request.note})`;
  const replayed =
    roll.replayed === true ? ' (the first answer to this idempotencyKey again: nothing was rolled now)' : '';
  return `${by}${rollText(describeRoll(roll, request), { maxDice: DICE_SHOWN })}${note}${receiptText(roll.receipt)}${replayed}`;
}

/** What a table roll's line reads of a sealed roll's answer (docs/trust.md#sealed-rolls). */
interface SealedMention {
  entry: { seq: number; commitment: string };
  revealToken: string;
}

/**
 * A roll at a table: an open one as rollLine says it; a sealed one says plainly that only this
 * answer shows the result, what the log shows instead, and how to reveal it.
 */
export function tableRollLine(
  roll: RollResponse & {
    receipt?: ReceiptMention | undefined;
    replayed?: true | undefined;
    sealed?: SealedMention | undefined;
  },
  request: LineRequest & { table?: unknown },
): string {
  const line = rollLine(roll, request);
  if (roll.sealed === undefined) return line;
  const { entry, revealToken } = roll.sealed;
  return (
    `Sealed roll, table entry #${entry.seq}: ${line}. Only this answer shows the result: the table's log shows entry #${entry.seq} as sealed, ` +
    `with the commitment ${entry.commitment.slice(0, 12)}…, until it is revealed. To reveal it, call table_reveal with table ${String(request.table)}, seq ${entry.seq} ` +
    `and token ${revealToken}. Keep the token: nobody can reveal the roll without it.`
  );
}

/** The reveal of a sealed roll: which entry it opens, in which entry, and the roll it held. */
export function revealLine(entry: {
  seq: number;
  reveal: { seq: number; receipt: { roll: RollResponse; request: LineRequest } };
}): string {
  const { receipt } = entry.reveal;
  return `Revealed table entry #${entry.reveal.seq} (the reveal is entry #${entry.seq}): ${rollLine(receipt.roll, receipt.request)}. Anyone can check it against the commitment entry #${entry.reveal.seq} holds (table_log, then verify_receipt with the log).`;
}

/** One line per roll, in request order. */
export const batchLines = (
  batch: { rolls: readonly RollResponse[]; replayed?: true | undefined },
  input?: { rolls?: readonly LineRequest[] },
): string => {
  const lines = batch.rolls.map((roll, index) => rollLine(roll, input?.rolls?.[index]));
  if (batch.replayed === true)
    lines.push('(The first answer to this idempotencyKey again: nothing was rolled now.)');
  return lines.join('\n');
};

/** What the stats line reads of an exact distribution (the answer of the stats operation). */
export interface StatsSummary {
  formula: string;
  advantageState: RollResponse['advantageState'];
  min: number;
  max: number;
  mean: number;
  sd: number;
  /** Every total listed, lowest first, with P(total >= it); empty when only a summary exists. */
  outcomes: ReadonlyArray<{ total: number; atLeast: number }>;
  percentiles: Readonly<Record<string, number>> | null;
  /** The totals asked for, with their exact P(total >= t) and P(total <= t). */
  targets?: ReadonlyArray<{ total: number; atLeast: number; atMost: number }> | undefined;
  /** An opposed roll: P(A > B), P(A = B) against the opposing formula. */
  versus?:
    | {
        formula: string;
        advantageState: RollResponse['advantageState'];
        greater: number;
        equal: number;
        less: number;
      }
    | undefined;
}

/**
 * A probability as a percentage a model can quote: the client's percentText (as the page writes
 * one: never a rounded 0% or 100%, never e-notation) with two decimals.
 */
export const percentOf = (p: number): string => percentText(p, 2);

/** P(total >= target) from the listed outcomes, or undefined when they are not listed. */
function chanceOfAtLeast(stats: StatsSummary, target: number): number | undefined {
  if (target <= stats.min) return 1;
  if (target > stats.max) return 0;
  // The least listed total at or above the target carries P(total >= target).
  const next = stats.outcomes.find((outcome) => outcome.total >= target);
  return next?.atLeast;
}

const round2 = (n: number): string => String(Math.round(n * 100) / 100);

/** `1d20+7` or `1d20+7 with advantage`. */
const named = (formula: string, advantageState: RollResponse['advantageState']): string =>
  advantageState === 'normal' ? formula : `${formula} with ${advantageState}`;

/**
 * `4d6kh3 → mean 12.24, sd 2.85, 3 to 18; percentiles 5% 7, 25% 10, 50% 12, 75% 14, 95% 17`,
 * and with a target `; at least 15: 25.62%`. With `versus`, the opposed roll comes first, the
 * line a model quotes: `1d20+7 beats 1d20+5: 57.25%, ties 4.50% (loses 38.25%); 1d20+7 → …`;
 * with `targets`, each one's `; at least 15: 65.00%, at most 15: 40.00%`.
 */
export function statsLine(stats: StatsSummary, input: { target?: unknown }): string {
  const self = named(stats.formula, stats.advantageState);
  let line = `${self} → mean ${round2(stats.mean)}, sd ${round2(stats.sd)}, ${stats.min} to ${stats.max}`;
  if (stats.versus !== undefined) {
    const v = stats.versus;
    line = `${self} beats ${named(v.formula, v.advantageState)}: ${percentOf(v.greater)}, ties ${percentOf(v.equal)} (loses ${percentOf(v.less)}); ${line}`;
  }
  if (stats.percentiles !== null) {
    const listed = Object.entries(stats.percentiles).map(([q, total]) => `${q}% ${total}`);
    line += `; percentiles ${listed.join(', ')}`;
  }
  if (typeof input.target === 'number') {
    const chance = chanceOfAtLeast(stats, input.target);
    line +=
      chance === undefined
        ? `; at least ${input.target}: not listed (too many totals)`
        : `; at least ${input.target}: ${percentOf(chance)}`;
  }
  for (const t of stats.targets ?? [])
    line += `; at least ${t.total}: ${percentOf(t.atLeast)}, at most ${t.total}: ${percentOf(t.atMost)}`;
  return line;
}

/** What the table lines read of a new table (the answer of the createTable operation). */
export interface TableCreatedSummary {
  id: string;
  maxEntries: number;
  retentionDays: number;
}

/** The new table's id, what to do with it, and how long it lasts. */
export const tableCreatedLine = (table: TableCreatedSummary): string =>
  `Table ${table.id} created: roll there with table_roll (each roll is signed and logged for the players to check) and read its log with table_log; it holds up to ${table.maxEntries} rolls and is forgotten ${table.retentionDays} days after its last one.`;

/** What the log lines read of an open roll of a table's log. */
interface OpenEntrySummary {
  seq?: number | undefined;
  time: string;
  roll: RollResponse;
  /** What was asked: it names string bonuses as written, and who rolled and why. */
  request?: LineRequest | undefined;
}

/**
 * What the log lines read of one entry of a table's log: an open roll, a sealed one (its
 * commitment only) or the reveal of one (docs/trust.md#sealed-rolls).
 */
export type LogEntrySummary =
  | OpenEntrySummary
  | { seq: number; time: string; commitment: string; request: { formula: string; by?: string | undefined } }
  | { seq: number; time: string; reveal: { seq: number; receipt: OpenEntrySummary } };

/** One entry's line: `#1 <time> <roll>`, `#2 <time> sealed: ...`, `#3 <time> reveals #2: <roll>`. */
function entryLine(entry: LogEntrySummary): string {
  if ('roll' in entry) return `#${entry.seq} ${entry.time} ${rollLine(entry.roll, entry.request)}`;
  if ('commitment' in entry) {
    const by = entry.request.by === undefined ? '' : `${entry.request.by}: `;
    return `#${entry.seq} ${entry.time} ${by}${entry.request.formula}, sealed: hidden until its roller reveals it (commitment ${entry.commitment.slice(0, 12)}…)`;
  }
  const { receipt } = entry.reveal;
  return `#${entry.seq} ${entry.time} revealed #${entry.reveal.seq}: ${rollLine(receipt.roll, receipt.request)}`;
}

/**
 * A page of a table's log: `Table q3Vb…: 2 rolls in all; #1 to #2:`, then one line per entry,
 * `#1 2026-11-23T20:00:00.123Z 1d20+5 → 17 (12; +5)`.
 */
export function tableLogLines(
  log: { table: string; entries: number; rolls: readonly LogEntrySummary[]; head?: HeadMention | undefined },
  input: { after?: unknown },
): string {
  const signed =
    log.head === undefined
      ? ''
      : `\nSigned head: ${log.head.entries} entr${log.head.entries === 1 ? 'y' : 'ies'}, last hash ${log.head.lastHash.slice(0, 12)}…, at ${log.head.time} (keep it: a later log shorter than it was cut).`;
  return `${tableLogBody(log, input)}${signed}`;
}

/** What a line names of a table's signed head. */
interface HeadMention {
  entries: number;
  lastHash: string;
  time: string;
}

function tableLogBody(
  log: { table: string; entries: number; rolls: readonly LogEntrySummary[] },
  input: { after?: unknown },
): string {
  const inAll = `Table ${log.table}: ${log.entries} roll${log.entries === 1 ? '' : 's'} in all`;
  const first = log.rolls[0];
  const last = log.rolls.at(-1);
  if (first === undefined || last === undefined) {
    const after = typeof input.after === 'number' && input.after > 0 ? ` after #${input.after}` : '';
    return `${inAll}; none${after}.`;
  }
  const more = (last.seq ?? 0) < log.entries ? ` (call table_log with after ${last.seq} for the rest)` : '';
  const header = `${inAll}; #${first.seq} to #${last.seq}${more}:`;
  return [header, ...log.rolls.map(entryLine)].join('\n');
}

/** The verdict on a receipt: valid with the roll it holds and the key, or not valid and why. */
export function verifyLine(
  result: {
    valid: boolean;
    kid?: string | undefined;
    reason?: string | undefined;
    entries?: number | undefined;
  },
  input: { receipt?: unknown; head?: unknown; rolls?: unknown },
): string {
  if (!result.valid)
    return `NOT valid: ${result.reason ?? 'the receipt does not verify'}. Do not trust this ${input.receipt === undefined ? 'log' : 'roll'}.`;
  if (input.rolls !== undefined)
    return `Valid and unaltered: a chain of ${result.entries} signed entries, none missing or altered${input.head === undefined ? '' : ', as long as the head promises'}.`;
  if (input.receipt === undefined)
    return `Valid head: signed by key ${result.kid}; it promises ${result.entries} entries.`;
  // Valid, so the receipt has the shape it was signed with.
  const receipt = input.receipt as {
    id: string;
    time: string;
    roll: RollResponse;
    request?: DescribedRequest;
    seq?: number;
  };
  return `Valid and unaltered: ${rollLine({ ...receipt.roll, receipt }, receipt.request)}, signed ${receipt.time} by key ${result.kid}.`;
}

/** Unusual rolls a report's lines name at most. */
export const REPORT_UNUSUAL_SHOWN = 10;

/**
 * A table's luck report: what it read, the verdict's sentence (the line to quote), the mean
 * percentile of the table and of each roller, and the rolls in the outer tenth of their own
 * distribution.
 */
export function reportLines(report: TableReport): string {
  const { covered } = report;
  const counts = [
    `${covered.rated} rated`,
    ...(covered.sealed === 0 ? [] : [`${covered.sealed} sealed (rated once revealed)`]),
    ...(covered.notRated === 0 ? [] : [`${covered.notRated} not rated`]),
  ];
  const lines = [
    `Table ${report.table}, entries #${covered.from} to #${covered.to}: ${covered.rolls} roll${covered.rolls === 1 ? '' : 's'}, ${counts.join(', ')}.`,
    report.test.sentence,
  ];
  if (report.overall.meanMidP !== null) {
    const rollers = report.byRoller.map(
      (r) =>
        `${r.by ?? 'rolls naming nobody'} ${percentileText(r.meanMidP)} over ${r.rated} roll${r.rated === 1 ? '' : 's'}`,
    );
    lines.push(
      `Mean: the table ${percentileText(report.overall.meanMidP)} (50th is average luck); ${rollers.join('; ')}.`,
    );
  }
  const unusual = unusualRolls(report);
  if (unusual.length > 0) {
    const shown = unusual
      .slice(0, REPORT_UNUSUAL_SHOWN)
      .map(
        (r) =>
          `#${r.seq} ${r.formula} = ${r.total}${r.by === undefined ? '' : ` (${r.by})`}, ${percentileText(r.midP ?? 0.5)}`,
      );
    const more = unusual.length > shown.length ? `; and ${unusual.length - shown.length} more` : '';
    lines.push(`Rolls in the outer tenth of their odds: ${shown.join('; ')}${more}.`);
  }
  return lines.join('\n');
}
