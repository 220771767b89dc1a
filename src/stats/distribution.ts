// The exact distribution of a roll's `total` (docs/stats.md): the request is prepared exactly as
// /v1/roll prepares it (src/formula/compile.ts), its plan is read once (each term's rules by
// src/stats/term.ts, the arithmetic by src/stats/expression.ts), the cost is estimated before any
// work, and the answer is built from integer counts over one denominator. Pure: no HTTP, no tRPC,
// no worker; src/api/stats-worker.ts runs it off the event loop.

import { RequestError, TooComplexError } from '../errors.js';
import { type GroupPlan, type PreparedRoll, prepareRoll } from '../formula/index.js';
import { LIMITS } from '../limits.js';
import type { AdvantageState, RollRequest } from '../roll/types.js';
import { bitLength, fraction, ratiosOver, ratioToNumber } from './exact.js';
import { type ExpressionEstimate, planExpression, type TermEngine, totalDistribution } from './expression.js';
import {
  addDistributions,
  autoDepth,
  checkTerm,
  estimateCost,
  formatCost,
  listedSupport,
  lowest,
  poolDistribution,
  type TermDistribution,
  termBounds,
  termDistribution,
  termExplodes,
  termSelects,
  termSummary,
} from './term.js';

/** A request for a distribution: a RollRequest, and optionally the explosion depth to list. */
export interface StatsRequest extends RollRequest {
  /** Explosion extras listed per die (0..100); default: until the tail is below 1e-30. */
  depth?: number | undefined;
}

export interface StatsOptions {
  /** The per-roll dice limit (the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** The work budget in estimated bit operations (default LIMITS.statsCostBudget). */
  costBudget?: number | undefined;
  /** Outcomes listed at most; beyond, the summary only (default LIMITS.statsOutcomesMax). */
  outcomesMax?: number | undefined;
}

export interface StatsOutcome {
  total: number;
  /** Exact count over `denominator`, as a decimal string; absent when counts are omitted. */
  count?: string;
  probability: number;
  atLeast: number;
  atMost: number;
}

export type StatsListing = 'full' | 'probabilities' | 'summary';

export const PERCENTILES = [5, 25, 50, 75, 95] as const;
export type Percentiles = Record<`${(typeof PERCENTILES)[number]}`, number>;

export interface Truncation {
  /** Explosion extras listed per die. */
  depth: number;
  /** The mass of the rolls not listed (a counted die's chain went deeper), nearest double. */
  tailProbability: number;
  /** The same, exactly, in lowest terms. */
  tailExact: string;
}

export interface StatsResponse {
  formula: string;
  advantageState: AdvantageState;
  min: number;
  max: number;
  mean: number;
  meanExact: string;
  variance: number;
  varianceExact: string;
  sd: number;
  /** `full`: counts listed; `probabilities`: counts omitted (too large); `summary`: no outcomes. */
  listing: StatsListing;
  denominator: string | null;
  outcomes: StatsOutcome[];
  percentiles: Percentiles | null;
  truncation: Truncation | null;
}

/**
 * The exact distribution of the `total` that /v1/roll returns for `request`. Throws the errors
 * prepareRoll throws (invalid_formula, invalid_request), FormulaError for a construct refused
 * with its reason (src/stats/term.ts), and TooComplexError when the answer would cost more than
 * the budget.
 */
export function distribution(request: StatsRequest, options?: StatsOptions): StatsResponse {
  const plan = planDistribution(request, options);
  const { prepared, groups, depth } = plan;
  const base = { formula: prepared.formula, advantageState: prepared.advantageState };
  const exploding = groups.some(termExplodes);
  if (prepared.expression !== undefined) {
    const totals = totalDistribution(prepared.expression, termEngine(groups, depth));
    return {
      ...base,
      ...describeTotals(totals, exploding && totals.tail > 0n ? depth : undefined),
    };
  }
  if (plan.summary !== undefined) return { ...base, ...plan.summary };
  let result: TermDistribution = { min: prepared.modifier, step: 1, counts: [1n], tail: 0n, denominator: 1n };
  for (const group of groups) result = addDistributions(result, termDistribution(group, depth));
  return { ...base, ...describe(result, exploding && result.tail > 0n ? depth : undefined) };
}

/**
 * Every check distribution() makes before it computes anything (the roll rules, the constructs,
 * the size and the cost), without the work: it throws exactly what distribution() would throw
 * before computing. The service calls it on the event loop, so only valid work reaches a worker.
 */
export function checkDistribution(request: StatsRequest, options?: StatsOptions): DistributionEstimate {
  const plan = planDistribution(request, options);
  return { cost: plan.cost, budget: options?.costBudget ?? LIMITS.statsCostBudget };
}

/** What checkDistribution estimated a distribution costs, and the budget it was held to. */
export interface DistributionEstimate {
  /** Estimated units of work (64-bit word operations). */
  cost: number;
  budget: number;
}

interface Plan {
  prepared: PreparedRoll;
  groups: readonly GroupPlan[];
  depth: number;
  /** The estimated units of work of a formula without arithmetic (0 for a summary). */
  cost: number;
  /** A summary, computed while checking (it costs one die per term). */
  summary?: Omit<StatsResponse, 'formula' | 'advantageState'>;
  /** For a formula with arithmetic or groups: its estimate (src/stats/expression.ts). */
  expression?: ExpressionEstimate;
}

function planDistribution(request: StatsRequest, options?: StatsOptions): Plan {
  const prepared = prepareRoll(request, { dicePerRoll: options?.dicePerRoll });
  const groups = checkGroups(prepared);
  const depth = request.depth ?? autoDepth(groups);
  if (!Number.isInteger(depth) || depth < 0 || depth > LIMITS.explodeCap) {
    throw new RequestError(`depth must be an integer from 0 to ${LIMITS.explodeCap}.`);
  }
  if (prepared.expression !== undefined) {
    const expression = planExpression(
      prepared.expression,
      termEngine(groups, depth),
      options?.costBudget ?? LIMITS.statsCostBudget,
      options?.outcomesMax ?? LIMITS.statsOutcomesMax,
    );
    return { prepared, groups, depth, cost: expression.cost, expression };
  }
  const outcomesMax = options?.outcomesMax ?? LIMITS.statsOutcomesMax;
  const support = listedSupport(groups, depth);
  if (support > outcomesMax) {
    // Every refusal says how many totals were estimated (docs/stats.md).
    const tooMany = `This formula could have about ${formatCost(support)} totals, more than the ${outcomesMax} that can be listed`;
    if (groups.some(termSelects))
      throw new TooComplexError(`${tooMany}, and its keep or drop has no exact summary.`);
    try {
      return {
        prepared,
        groups,
        depth,
        cost: 0,
        summary: summary(groups, prepared.modifier),
      };
    } catch (error) {
      if (!(error instanceof TooComplexError)) throw error;
      throw new TooComplexError(
        `${tooMany}, and its exploding dice (on a compare point, clamped, custom or counting successes) have no exact summary.`,
      );
    }
  }
  const budget = options?.costBudget ?? LIMITS.statsCostBudget;
  const cost = estimateCost(groups, depth);
  if (cost > budget) {
    throw new TooComplexError(
      `This formula's exact distribution would take about ${formatCost(cost)} units of work; the limit is ${formatCost(budget)}.`,
    );
  }
  return { prepared, groups, depth, cost };
}

/** The per-term engine for src/stats/expression.ts: each dice term as src/stats/term.ts computes it. */
function termEngine(groups: readonly GroupPlan[], depth: number): TermEngine {
  return {
    estimate: (index) => ({
      ...termBounds([groups[index]!], depth),
      cost: estimateCost([groups[index]!], depth),
    }),
    distribution: (index) => termDistribution(groups[index]!, depth),
    pool: {
      estimate: (first, size) => {
        const members = groups.slice(first, first + size);
        return { ...termBounds(members, depth), cost: estimateCost(members, depth) };
      },
      distribution: (first, size) => {
        const members = groups.slice(first, first + size);
        return poolDistribution(members, members[0]!.pool!, depth);
      },
    },
  };
}

/** Every term of the plan modelled (src/stats/term.ts), or the first refusal, with its reason. */
function checkGroups(prepared: PreparedRoll): readonly GroupPlan[] {
  for (const plan of prepared.groups) {
    try {
      checkTerm(plan);
    } catch (error) {
      if (!(error instanceof TooComplexError)) throw error;
      // A refusal by the shape of a die (its sides) names the figure it was refused for.
      throw new TooComplexError(`${error.message} This formula has dice of ${plan.sides} sides.`);
    }
  }
  return prepared.groups;
}

// --- the answer --------------------------------------------------------------------------------

function describe(
  d: TermDistribution,
  truncatedDepth: number | undefined,
): Omit<StatsResponse, 'formula' | 'advantageState'> {
  const totals: bigint[] = [];
  const counts: bigint[] = [];
  for (let i = 0; i < d.counts.length; i++) {
    if (d.counts[i] === 0n) continue;
    totals.push(BigInt(d.min + i * d.step));
    counts.push(d.counts[i]!);
  }
  return describeTotals({ totals, counts, tail: d.tail, denominator: d.denominator }, truncatedDepth);
}

/** Listed totals, ascending and distinct, with their positive counts over `denominator`. */
interface Totals {
  totals: readonly bigint[];
  counts: readonly bigint[];
  tail: bigint;
  denominator: bigint;
}

function describeTotals(
  d: Totals,
  truncatedDepth: number | undefined,
): Omit<StatsResponse, 'formula' | 'advantageState'> {
  const listedMass = d.denominator - d.tail;
  const ratios = ratiosOver(d.denominator);
  const scaledMass = ratios.scaled(listedMass);
  let sum = 0n;
  let sumSquares = 0n;
  const size = d.counts.length;
  const probabilities: number[] = new Array(size);
  const atLeasts: number[] = new Array(size);
  const atMosts: number[] = new Array(size);
  let below = 0n;
  let scaledBelow = 0n;
  const percentiles: Record<string, number> = {};
  // The q-th percentile: the least total t with P(total <= t) >= q%, among the listed rolls,
  // that is 100 * below >= q * listedMass, or below >= ceil(q * listedMass / 100).
  const thresholds = PERCENTILES.map((q) => (BigInt(q) * listedMass + 99n) / 100n);
  let nextPercentile = 0;
  // Decimal digits of the counts, from each count's probability (log10 count = log10
  // denominator + log10 p), plus the JSON around each count: only the threshold needs it.
  const denominatorDigits = bitLength(d.denominator) * Math.log10(2);
  let countBytes = 0;
  for (let i = 0; i < size; i++) {
    const count = d.counts[i]!;
    const t = d.totals[i]!;
    // The roller's total is the nearest double too (exact up to 2^53).
    const value = Number(t);
    const product = t * count;
    sum += product;
    sumSquares += t * product;
    const scaled = ratios.scaled(count);
    atLeasts[i] = ratios.of(listedMass - below, scaledMass - scaledBelow);
    below += count;
    scaledBelow += scaled;
    const probability = ratios.of(count, scaled);
    probabilities[i] = probability;
    atMosts[i] = ratios.of(below, scaledBelow);
    countBytes += 12 + Math.max(1, denominatorDigits + Math.log10(probability || 5e-324));
    while (nextPercentile < PERCENTILES.length && below >= thresholds[nextPercentile]!) {
      percentiles[PERCENTILES[nextPercentile]!] = value;
      nextPercentile++;
    }
  }
  const listing: StatsListing = countBytes > LIMITS.statsCountsBytes ? 'probabilities' : 'full';
  const outcomes: StatsOutcome[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const total = Number(d.totals[i]!);
    const common = { probability: probabilities[i]!, atLeast: atLeasts[i]!, atMost: atMosts[i]! };
    outcomes[i] =
      listing === 'full' ? { total, count: d.counts[i]!.toString(), ...common } : { total, ...common };
  }
  const varianceNumerator = listedMass * sumSquares - sum * sum;
  const varianceDenominator = listedMass * listedMass;
  const variance = ratioToNumber(varianceNumerator, varianceDenominator);
  const truncation =
    truncatedDepth === undefined
      ? null
      : {
          depth: truncatedDepth,
          tailProbability: ratioToNumber(d.tail, d.denominator),
          tailExact: fraction(d.tail, d.denominator),
        };
  return {
    min: outcomes[0]!.total,
    max: outcomes[outcomes.length - 1]!.total,
    mean: ratioToNumber(sum, listedMass),
    meanExact: fraction(sum, listedMass),
    variance,
    varianceExact: fraction(varianceNumerator, varianceDenominator),
    sd: Math.sqrt(variance),
    listing,
    denominator: listing === 'full' ? d.denominator.toString() : null,
    outcomes,
    percentiles: percentiles as Percentiles,
    truncation,
  };
}

// --- the summary, when the outcomes are too many to list ----------------------------------------

/** min, max, exact mean and variance without listing: for sums of dice (no keep or drop). */
function summary(
  groups: readonly GroupPlan[],
  modifier: number,
): Omit<StatsResponse, 'formula' | 'advantageState'> {
  // mean = meanN / meanD, variance = varN / varD, accumulated as exact fractions.
  let meanN = BigInt(modifier);
  let meanD = 1n;
  let varN = 0n;
  let varD = 1n;
  let min = modifier;
  let max = modifier;
  for (const plan of groups) {
    // planDistribution sends only sums here: every group keeps all its dice or none.
    const t = termSummary(plan);
    [meanN, meanD] = lowest(meanN * t.meanD + t.meanN * meanD, meanD * t.meanD);
    [varN, varD] = lowest(varN * t.varD + t.varN * varD, varD * t.varD);
    min += t.min;
    max += t.max;
  }
  const variance = ratioToNumber(varN, varD);
  return {
    min,
    max,
    mean: ratioToNumber(meanN, meanD),
    meanExact: fraction(meanN, meanD),
    variance,
    varianceExact: fraction(varN, varD),
    sd: Math.sqrt(variance),
    listing: 'summary',
    denominator: null,
    outcomes: [],
    percentiles: null,
    truncation: null,
  };
}
