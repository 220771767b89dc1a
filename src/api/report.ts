// How lucky the night was (docs/trust.md#how-lucky-the-night-was): the last entries of a table's
// log, each roll rated by its exact mid-P percentile under the exact distribution of its own
// request, the mean per roller and for the table, and the mid-P z-test of fair dice. The
// distributions come from the stats service (its workers and its cache), each distinct request
// once, charged to the caller's stats budget like a /v1/stats request.
import type {
  ReportEntry,
  RevealEntry,
  SealedEntry,
  StatsResponse,
  TableEntry,
  TableReport,
} from '@fairdice/client/types';
import { DiceError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { StatsRequest } from '../stats/distribution.js';
import { fairDiceTest, type LuckOutcome, midPExact, midPVariance } from '../stats/luck.js';
import { TableNotFoundError } from '../store/store.js';
import type { Receipt, SignedRequest } from '../trust/receipt.js';
import type { DiceContext } from './context.js';
import { StatsService } from './stats-service.js';
import { asTrustError, trustOf } from './tables.js';

/** A rated distribution: its outcomes as exact counts, or why it cannot rate a roll. */
type Rater = { outcomes: LuckOutcome[]; denominator: bigint; variance: number } | { reason: string };

/** The refusals of the stats engine that leave one roll unrated rather than fail the report. */
const UNRATED_CODES: ReadonlySet<string> = new Set(['too_complex', 'invalid_formula', 'invalid_request']);

/**
 * What shapes a roll's distribution: the signed request without who, why or sealing, with every
 * explosion chain listed to the cap a roll stops at, so that an exploding formula's distribution
 * is the whole of it (docs/stats.md) and its percentiles exact.
 */
function statsRequestOf(request: SignedRequest | SealedEntry['request']): StatsRequest {
  return {
    formula: request.formula,
    ...(request.advantage === undefined ? {} : { advantage: request.advantage }),
    ...(request.bonuses === undefined ? {} : { bonuses: request.bonuses }),
    ...(request.tags === undefined ? {} : { tags: request.tags }),
    depth: LIMITS.explodeCap,
  };
}

/** The exact counts of a distribution, or why a roll cannot be rated by it. */
function raterOf(stats: StatsResponse): Rater {
  if (stats.truncation !== null)
    return {
      reason: `Its exact distribution lists only ${stats.truncation.depth} explosions per die, so a percentile would not be exact.`,
    };
  if (stats.listing !== 'full' || stats.denominator === null)
    return {
      reason:
        'Its exact distribution is too large to list with its counts within the limits of /v1/stats, so a percentile would not be exact.',
    };
  const outcomes = stats.outcomes.map((o) => ({ total: o.total, count: BigInt(o.count ?? '0') }));
  const denominator = BigInt(stats.denominator);
  return { outcomes, denominator, variance: midPVariance(outcomes, denominator) };
}

/**
 * The distribution of each distinct request, one at a time (the stats meter runs one
 * computation of a caller at a time anyway): a refusal of the engine rates no roll of that
 * request; a spent budget or busy workers fail the report as they fail /v1/stats.
 */
async function ratersOf(requests: readonly StatsRequest[], ctx: DiceContext): Promise<Map<string, Rater>> {
  const raters = new Map<string, Rater>();
  for (const request of requests) {
    const key = StatsService.key(request);
    if (raters.has(key)) continue;
    try {
      raters.set(key, raterOf(await ctx.stats.distribution(request, ctx.statsMeter)));
    } catch (error) {
      if (!(error instanceof DiceError) || !UNRATED_CODES.has(error.code)) throw error;
      raters.set(key, { reason: error.message });
    }
  }
  return raters;
}

/** A roll of the report before rating: its entry, what it asked and, unless sealed, its total. */
interface ReadRoll {
  seq: number;
  time: string;
  request: SignedRequest | SealedEntry['request'];
  total?: number;
  revealedIn?: number;
}

/** The rolls among `entries`, in sequence order: a revealed sealed roll with its receipt's total. */
function rollsOf(entries: readonly TableEntry[]): ReadRoll[] {
  const reveals = new Map<number, RevealEntry>();
  for (const entry of entries) if ('reveal' in entry) reveals.set(entry.reveal.seq, entry);
  const rolls: ReadRoll[] = [];
  for (const entry of entries) {
    if ('reveal' in entry) continue;
    if ('commitment' in entry) {
      const reveal = reveals.get(entry.seq);
      rolls.push(
        reveal === undefined
          ? { seq: entry.seq, time: entry.time, request: entry.request }
          : {
              seq: entry.seq,
              time: entry.time,
              request: reveal.reveal.receipt.request,
              total: reveal.reveal.receipt.roll.total,
              revealedIn: reveal.seq,
            },
      );
      continue;
    }
    const receipt = entry as Receipt;
    rolls.push({
      seq: receipt.seq ?? 0,
      time: receipt.time,
      request: receipt.request,
      total: receipt.roll.total,
    });
  }
  return rolls;
}

/** `1st`, `2nd`, `3rd`, `11th`, `71st`. */
function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** A mid-P as players read a percentile: 0.71 is the `71st percentile` (the 50th is average luck). */
export const percentileText = (midP: number): string => `${ordinal(Math.round(midP * 100))} percentile`;

/** Rolls of a report whose percentile is in its outer tenth: below the 5th or above the 95th. */
export const UNUSUAL_ROLL = { below: 0.05, above: 0.95 } as const;

/** The rated rolls of a report in the outer tenth of their own distribution, in sequence order. */
export const unusualRolls = (report: Pick<TableReport, 'rolls'>): ReportEntry[] =>
  report.rolls.filter(
    (r) => r.midP !== undefined && (r.midP < UNUSUAL_ROLL.below || r.midP > UNUSUAL_ROLL.above),
  );

/** `p = 0.012`, `p = 0.67`, `p < 0.0001`. */
const pText = (p: number): string => (p < 0.0001 ? 'p < 0.0001' : `p = ${Number(p.toPrecision(2))}`);

/** The verdict of the z-test and its sentence (docs/trust.md#how-lucky-the-night-was). */
export function verdictOf(
  us: readonly number[],
  variances: readonly number[],
): Pick<TableReport['test'], 'z' | 'pValue' | 'verdict' | 'sentence'> {
  const result = fairDiceTest(us, variances);
  if (result === null)
    return {
      z: null,
      pValue: null,
      verdict: 'untested',
      sentence:
        us.length === 0
          ? 'Not tested: no roll was rated.'
          : 'Not tested: no rated roll could have come out otherwise.',
    };
  const { z, p } = result;
  const mean = us.reduce((a, b) => a + b, 0) / us.length;
  const rolls = `${us.length} rated roll${us.length === 1 ? '' : 's'} averaged the ${percentileText(mean)}`;
  const test = `(mid-P z-test, z = ${z.toFixed(2)}, ${pText(p)})`;
  if (p >= 0.05)
    return { z, pValue: p, verdict: 'consistent', sentence: `Consistent with fair dice: ${rolls} ${test}.` };
  const verdict = p < 0.001 ? 'very_unusual' : 'unusual';
  const odds = Math.round(1 / p).toLocaleString('en-US');
  return {
    z,
    pValue: p,
    verdict,
    sentence: `${verdict === 'very_unusual' ? 'Very unusual' : 'Unusual'} for fair dice: ${rolls}, ${z > 0 ? 'above' : 'below'} average; fair dice stray this far from average, above or below, about once in ${odds} nights of as many rolls ${test}. Unusual is no proof: among many nights, some are this far off.`,
  };
}

/**
 * The report of table `id` over its last LIMITS.tableReportEntries entries, as the head it reads
 * at the start says the log was. Unknown table 404; a spent stats budget 429; busy workers 503.
 */
export async function tableReport(input: { id: string }, ctx: DiceContext): Promise<TableReport> {
  const trust = trustOf(ctx);
  let from = 1;
  let record: Awaited<ReturnType<typeof trust.store.table>>;
  let entries: TableEntry[];
  try {
    const now = Date.now();
    record = await trust.store.table(input.id, now);
    if (record === undefined) throw new TableNotFoundError();
    from = Math.max(1, record.entries - LIMITS.tableReportEntries + 1);
    const read = await trust.store.rolls(input.id, from - 1, record.entries - from + 1, now);
    if (read === undefined) throw new TableNotFoundError();
    // Entries appended after the table was read are not the head's.
    const last = record.entries;
    entries = (read as readonly TableEntry[]).filter((entry) => entry.seq !== undefined && entry.seq <= last);
  } catch (error) {
    throw asTrustError(error, trust);
  }
  const head = trust.head(record);

  const read = rollsOf(entries);
  const requests = read.filter((r) => r.total !== undefined).map((r) => statsRequestOf(r.request));
  const raters = await ratersOf(requests, ctx);

  const rolls: ReportEntry[] = [];
  const us: number[] = [];
  const variances: number[] = [];
  const rollers = new Map<string | null, { rated: number; sum: number }>();
  let sealed = 0;
  let notRated = 0;
  for (const roll of read) {
    const by = roll.request.by;
    const shown = {
      seq: roll.seq,
      time: roll.time,
      formula: roll.request.formula,
      ...(by === undefined ? {} : { by }),
    };
    if (!rollers.has(by ?? null)) rollers.set(by ?? null, { rated: 0, sum: 0 });
    if (roll.total === undefined) {
      sealed++;
      rolls.push({ ...shown, status: 'sealed' });
      continue;
    }
    const revealed = roll.revealedIn === undefined ? {} : { revealedIn: roll.revealedIn };
    // ratersOf answered every request with a total: a rater, or why it cannot rate.
    const rater = raters.get(StatsService.key(statsRequestOf(roll.request)))!;
    if ('reason' in rater || !rater.outcomes.some((o) => o.total === roll.total)) {
      notRated++;
      const reason =
        'reason' in rater ? rater.reason : `Its total ${roll.total} is not a total its distribution lists.`;
      rolls.push({ ...shown, status: 'not_rated', total: roll.total, ...revealed, reason });
      continue;
    }
    const u = midPExact(rater.outcomes, rater.denominator, roll.total);
    us.push(u.value);
    variances.push(rater.variance);
    const roller = rollers.get(by ?? null)!;
    roller.rated++;
    roller.sum += u.value;
    rolls.push({
      ...shown,
      status: 'rated',
      total: roll.total,
      midP: u.value,
      midPExact: u.exact,
      ...revealed,
    });
  }

  return {
    table: input.id,
    head,
    covered: {
      from,
      to: record.entries,
      rolls: read.length,
      rated: us.length,
      sealed,
      notRated,
    },
    rolls,
    byRoller: [...rollers]
      .filter(([, r]) => r.rated > 0)
      .map(([by, r]) => ({ by, rated: r.rated, meanMidP: r.sum / r.rated })),
    overall: {
      rated: us.length,
      meanMidP: us.length === 0 ? null : us.reduce((a, b) => a + b, 0) / us.length,
    },
    test: { name: 'mid-P z-test', ...verdictOf(us, variances) },
  };
}
