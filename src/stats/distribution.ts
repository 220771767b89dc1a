// The exact distribution of a roll's `total` (docs/stats.md): the request is prepared exactly as
// /v1/roll prepares it (src/formula/compile.ts), its plan is read once (each term's rules by
// src/stats/term.ts, the arithmetic by src/stats/expression.ts), the cost is estimated before any
// work, and the answer is built from integer counts over one denominator. The questions asked of
// it (targets, an opposed roll, several requests at once) are answered from the same counts, and
// their cost is held to the same budget, as a whole, before the work. Pure: no HTTP, no tRPC, no
// worker; src/api/stats-worker.ts runs it off the event loop.

import {
  STATS_BATCH_MAX,
  STATS_TARGETS_MAX,
  type StatsBatchResponse,
  type StatsDistribution,
  type StatsOutcome,
  type StatsResponse,
  type StatsTarget,
  type StatsVersus,
} from '@fairdice/client/types';
import { RequestError, TooComplexError } from '../errors.js';
import { type GroupPlan, type PreparedRoll, prepareRoll, type RollRequest } from '../formula/index.js';
import { LIMITS } from '../limits.js';
import { bitLength, fraction, ratiosOver, ratioToNumber } from './exact.js';
import {
  differenceEstimate,
  differenceTotals,
  type ExpressionEstimate,
  planExpression,
  type TermEngine,
  type Totals,
  type TotalsEstimate,
  totalDistribution,
} from './expression.js';
import {
  addDistributions,
  addLowest,
  autoDepth,
  checkTerm,
  estimateCost,
  formatCost,
  listedSupport,
  poolDistribution,
  type TermDistribution,
  termBounds,
  termDistribution,
  termExplodes,
  termMomentsKnown,
  termSelects,
  termSummary,
  termSummaryCost,
  termWholeSummary,
} from './term.js';

export type { StatsBatchResponse, StatsDistribution, StatsOutcome, StatsResponse, StatsTarget, StatsVersus };
export type StatsListing = StatsDistribution['listing'];

/** A request for a distribution: a RollRequest, and optionally the explosion depth to list. */
export interface StatsRequest extends RollRequest {
  /** Explosion extras listed per die (0..100); default: until the tail is below 1e-30. */
  depth?: number | undefined;
  /** Totals (at most 20) whose P(total >= t) and P(total <= t) the answer gives exactly. */
  targets?: readonly number[] | undefined;
  /** An opposing roll B: the answer gives P(A > B), P(A = B), P(A < B) and A - B exactly. */
  versus?: RollRequest | undefined;
}

export interface StatsOptions {
  /** The per-roll dice limit (the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** The work budget in estimated bit operations (default LIMITS.statsCostBudget). */
  costBudget?: number | undefined;
  /** Outcomes listed at most; beyond, the summary only (default LIMITS.statsOutcomesMax). */
  outcomesMax?: number | undefined;
}

export const PERCENTILES = [5, 25, 50, 75, 95] as const;
export type Percentiles = NonNullable<StatsDistribution['percentiles']>;
export type Truncation = NonNullable<StatsDistribution['truncation']>;

/**
 * The exact distribution of the `total` that /v1/roll returns for `request`, and the answers to
 * its `targets` and `versus`. Throws the errors prepareRoll throws (invalid_formula,
 * invalid_request), FormulaError for a construct refused with its reason (src/stats/term.ts),
 * and TooComplexError when the answer would cost more than the budget.
 */
export function distribution(request: StatsRequest, options?: StatsOptions): StatsResponse {
  return answer(planRequest(request, options, new Budget(options)));
}

/**
 * The answers of several requests (at most 5), in order, under one budget: refused as a whole,
 * before any work, when together they would cost more than it.
 */
export function distributions(requests: readonly StatsRequest[], options?: StatsOptions): StatsBatchResponse {
  return { results: planBatch(requests, options).map(answer) };
}

/**
 * Every check distribution() makes before it computes anything (the roll rules, the constructs,
 * the size and the cost), without the work: it throws exactly what distribution() would throw
 * before computing. The service calls it on the event loop, so only valid work reaches a worker.
 */
export function checkDistribution(request: StatsRequest, options?: StatsOptions): DistributionEstimate {
  const budget = new Budget(options);
  planRequest(request, options, budget);
  return { cost: budget.spent, budget: budget.limit };
}

/** checkDistribution for a batch (distributions()). */
export function checkDistributions(
  requests: readonly StatsRequest[],
  options?: StatsOptions,
): DistributionEstimate {
  const plans = planBatch(requests, options);
  return {
    cost: plans.reduce((sum, p) => sum + p.cost, 0),
    budget: options?.costBudget ?? LIMITS.statsCostBudget,
  };
}

/** What checkDistribution estimated a distribution costs, and the budget it was held to. */
export interface DistributionEstimate {
  /** Estimated units of work (64-bit word operations). */
  cost: number;
  budget: number;
}

/** The work budget of one request or batch: each part's estimate is charged before any work. */
class Budget {
  readonly limit: number;
  spent = 0;
  constructor(options: StatsOptions | undefined) {
    this.limit = options?.costBudget ?? LIMITS.statsCostBudget;
  }
  /** Whether `cost` more still fits. */
  fits(cost: number): boolean {
    return this.spent + cost <= this.limit;
  }
  /** Charges `cost`, or refuses the whole request with `what` it was for. */
  charge(cost: number, what: string): void {
    if (!this.fits(cost)) {
      throw new TooComplexError(
        `${what} would take about ${formatCost(this.spent + cost)} units of work; the limit is ${formatCost(this.limit)}.`,
      );
    }
    this.spent += cost;
  }
}

function planBatch(requests: readonly StatsRequest[], options: StatsOptions | undefined): RequestPlan[] {
  if (requests.length < 1 || requests.length > STATS_BATCH_MAX) {
    throw new RequestError(`A batch asks for 1 to ${STATS_BATCH_MAX} distributions.`);
  }
  const budget = new Budget(options);
  return requests.map((request) => {
    const before = budget.spent;
    const plan = planRequest(
      request,
      options,
      budget,
      requests.length > 1 ? "These formulas' exact answers together" : undefined,
    );
    return { ...plan, cost: budget.spent - before };
  });
}

/** One request planned: its formula, the questions asked of it, and what they cost together. */
interface RequestPlan {
  main: Plan;
  targets: readonly number[] | undefined;
  versus: { plan: Plan; difference: TotalsEstimate } | undefined;
  cost: number;
}

function planRequest(
  request: StatsRequest,
  options: StatsOptions | undefined,
  budget: Budget,
  together?: string,
): RequestPlan {
  const targets = request.targets;
  if (targets !== undefined) {
    if (targets.length > STATS_TARGETS_MAX || targets.some((t) => !Number.isSafeInteger(t))) {
      throw new RequestError(`targets: at most ${STATS_TARGETS_MAX} whole numbers.`);
    }
  }
  const before = budget.spent;
  const main = planDistribution(request, options);
  budget.charge(main.cost, together ?? "This formula's exact distribution");
  let versus: RequestPlan['versus'];
  if (request.versus !== undefined) {
    const plan = planDistribution({ ...request.versus, depth: request.depth }, options);
    budget.charge(plan.cost, together ?? "These two formulas' exact distributions");
    const a = listedEstimate(main, 'an opposed roll');
    const b = listedEstimate(plan, 'an opposed roll');
    const difference = differenceEstimate(a, b);
    const outcomesMax = options?.outcomesMax ?? LIMITS.statsOutcomesMax;
    if (difference.size > outcomesMax) {
      throw new TooComplexError(
        `The difference of these two formulas could have about ${formatCost(difference.size)} totals, more than the ${outcomesMax} that can be listed.`,
      );
    }
    budget.charge(
      difference.cost + 3 * difference.size * words(difference.bits) ** 2,
      together ?? "This opposed roll's exact answer",
    );
    versus = { plan, difference };
  }
  if (targets !== undefined && targets.length > 0) listedEstimate(main, 'targets');
  // The whole roll's moments, when the listing may leave a tail: charged only if they fit.
  for (const p of [main, versus?.plan]) {
    if (p === undefined || p.moments !== undefined || !p.mayTruncate) continue;
    p.moments = wholeMoments(p, options, budget);
  }
  return { main, targets, versus, cost: budget.spent - before };
}

/** A listed plan's totals estimate; a summary (too many totals to list) cannot answer `question`. */
function listedEstimate(plan: Plan, question: string): TotalsEstimate {
  if (plan.summary !== undefined || plan.totals === undefined) {
    throw new TooComplexError(
      `${plan.prepared.formula} could have too many totals to list, and ${question} needs them listed.`,
    );
  }
  return plan.totals;
}

const words = (bits: number): number => bits / 64 + 1;

/** Exact whole-roll moments: mean = meanN / meanD, variance = varN / varD. */
interface Moments {
  meanN: bigint;
  meanD: bigint;
  varN: bigint;
  varD: bigint;
}

/**
 * The whole roll's moments (every chain to the cap of 100) of a plan whose listing may be cut:
 * in closed form for sums of dice, by a walk over the whole die's values for one keep or drop of
 * a standard die (src/stats/keep.ts keepMoments, computed with the work), else from the whole
 * distribution when it fits the budget;
 * null when neither does (the answer then says `moments: "listed"`).
 */
function wholeMoments(plan: Plan, options: StatsOptions | undefined, budget: Budget): WholeMoments {
  if (plan.expression === undefined && plan.groups.every(termMomentsKnown)) {
    const cost = plan.groups.reduce((sum, group) => sum + termSummaryCost(group), 0);
    if (budget.fits(cost)) {
      try {
        // The sums' closed forms now (cheap, and they may refuse); the keeps' walks with the work.
        for (const group of plan.groups) if (!termSelects(group)) termSummary(group);
        budget.charge(cost, '');
        return { moments: () => sumMoments(plan.groups, plan.prepared.modifier) };
      } catch (error) {
        if (!(error instanceof TooComplexError)) throw error;
      }
    }
  }
  try {
    const whole = planDistribution({ ...plan.request, depth: LIMITS.explodeCap }, options);
    if (whole.summary === undefined && budget.fits(whole.cost)) {
      budget.charge(whole.cost, '');
      return { whole };
    }
  } catch (error) {
    if (!(error instanceof TooComplexError)) throw error;
  }
  return null;
}

type WholeMoments = { moments: () => Moments } | { whole: Plan } | null;

function answer(request: RequestPlan): StatsResponse {
  const main = computePlan(request.main);
  const response: StatsResponse = { ...main.base, ...main.describe() };
  if (request.targets !== undefined) response.targets = request.targets.map((t) => target(main.totals!, t));
  if (request.versus !== undefined) response.versus = versusAnswer(main, computePlan(request.versus.plan));
  return response;
}

/** A computed plan: its answer's fields, and its listed totals for the questions asked of it. */
interface Computed {
  base: { formula: string; advantageState: StatsResponse['advantageState'] };
  /** The answer's distribution fields, built on demand (an opposing roll answers only its difference). */
  describe: () => StatsDistribution;
  /** undefined for a summary. */
  totals: Totals | undefined;
  moments: Moments | undefined;
  truncatedDepth: number | undefined;
}

function computePlan(plan: Plan): Computed {
  const { prepared, groups, depth } = plan;
  const base = { formula: prepared.formula, advantageState: prepared.advantageState };
  if (plan.summary !== undefined) {
    return {
      base,
      describe: () => plan.summary!,
      totals: undefined,
      moments: undefined,
      truncatedDepth: undefined,
    };
  }
  let totals: Totals;
  if (prepared.expression !== undefined) {
    totals = totalDistribution(prepared.expression, termEngine(groups, depth));
  } else {
    let result: TermDistribution = {
      min: prepared.modifier,
      step: 1,
      counts: [1n],
      tail: 0n,
      denominator: 1n,
    };
    for (const group of groups) result = addDistributions(result, termDistribution(group, depth));
    totals = listedTotals(result);
  }
  const truncatedDepth = plan.mayTruncate && totals.tail > 0n ? depth : undefined;
  let moments: Moments | undefined;
  if (truncatedDepth === undefined) moments = undefined;
  else if (plan.moments != null && 'moments' in plan.moments) moments = plan.moments.moments();
  else if (plan.moments != null) moments = momentsOf(computePlan(plan.moments.whole).totals!);
  return {
    base,
    describe: () => describeTotals(totals, truncatedDepth, moments),
    totals,
    moments,
    truncatedDepth,
  };
}

function listedTotals(d: TermDistribution): Totals {
  const totals: bigint[] = [];
  const counts: bigint[] = [];
  for (let i = 0; i < d.counts.length; i++) {
    if (d.counts[i] === 0n) continue;
    totals.push(BigInt(d.min + i * d.step));
    counts.push(d.counts[i]!);
  }
  return { totals, counts, tail: d.tail, denominator: d.denominator };
}

/** The moments of listed totals (given that the roll is listed). */
function momentsOf(d: Totals): Moments {
  const mass = d.denominator - d.tail;
  let sum = 0n;
  let sumSquares = 0n;
  for (let i = 0; i < d.totals.length; i++) {
    const product = d.totals[i]! * d.counts[i]!;
    sum += product;
    sumSquares += d.totals[i]! * product;
  }
  return { meanN: sum, meanD: mass, varN: mass * sumSquares - sum * sum, varD: mass * mass };
}

/** P(total >= t) and P(total <= t) exactly, over the whole denominator (the tail in neither). */
function target(d: Totals, t: number): StatsTarget {
  const wanted = BigInt(t);
  let atLeast = 0n;
  let atMost = 0n;
  for (let i = 0; i < d.totals.length; i++) {
    if (d.totals[i]! >= wanted) atLeast += d.counts[i]!;
    if (d.totals[i]! <= wanted) atMost += d.counts[i]!;
  }
  return {
    total: t,
    atLeast: ratioToNumber(atLeast, d.denominator),
    atLeastExact: fraction(atLeast, d.denominator),
    atMost: ratioToNumber(atMost, d.denominator),
    atMostExact: fraction(atMost, d.denominator),
  };
}

/** An opposed roll: the chances of A above, equal to and below B, and A - B's distribution. */
function versusAnswer(a: Computed, b: Computed): StatsVersus {
  const difference = differenceTotals(a.totals!, b.totals!);
  let greater = 0n;
  let equal = 0n;
  let less = 0n;
  for (let i = 0; i < difference.totals.length; i++) {
    const v = difference.totals[i]!;
    if (v > 0n) greater += difference.counts[i]!;
    else if (v === 0n) equal += difference.counts[i]!;
    else less += difference.counts[i]!;
  }
  const n = difference.denominator;
  const truncated = a.truncatedDepth !== undefined || b.truncatedDepth !== undefined;
  const depth = Math.max(a.truncatedDepth ?? 0, b.truncatedDepth ?? 0);
  // Independent: the whole roll's mean of A - B is the difference of the means, its variance the sum.
  const sideMoments = (c: Computed): Moments | undefined =>
    c.truncatedDepth === undefined ? momentsOf(c.totals!) : c.moments;
  const ma = sideMoments(a);
  const mb = sideMoments(b);
  const moments =
    truncated && ma !== undefined && mb !== undefined
      ? {
          meanN: ma.meanN * mb.meanD - mb.meanN * ma.meanD,
          meanD: ma.meanD * mb.meanD,
          varN: ma.varN * mb.varD + mb.varN * ma.varD,
          varD: ma.varD * mb.varD,
        }
      : undefined;
  return {
    ...b.base,
    greater: ratioToNumber(greater, n),
    greaterExact: fraction(greater, n),
    equal: ratioToNumber(equal, n),
    equalExact: fraction(equal, n),
    less: ratioToNumber(less, n),
    lessExact: fraction(less, n),
    difference: describeTotals(difference, truncated ? depth : undefined, moments),
  };
}

interface Plan {
  request: StatsRequest;
  prepared: PreparedRoll;
  groups: readonly GroupPlan[];
  depth: number;
  /** The estimated units of work of a formula without arithmetic (0 for a summary). */
  cost: number;
  /** A summary, computed while checking (it costs one die per term). */
  summary?: StatsDistribution;
  /** For a formula with arithmetic or groups: its estimate (src/stats/expression.ts). */
  expression?: ExpressionEstimate;
  /** What the listed totals will be (absent for a summary). */
  totals?: TotalsEstimate;
  /** Whether a counted die explodes, so that the listing may leave a tail. */
  mayTruncate: boolean;
  /** How the whole roll's moments are had when the listing is cut (planRequest decides). */
  moments?: WholeMoments;
}

function planDistribution(request: StatsRequest, options?: StatsOptions): Plan {
  const prepared = prepareRoll(request, { dicePerRoll: options?.dicePerRoll });
  const groups = checkGroups(prepared);
  const depth = request.depth ?? autoDepth(groups);
  if (!Number.isInteger(depth) || depth < 0 || depth > LIMITS.explodeCap) {
    throw new RequestError(`depth must be an integer from 0 to ${LIMITS.explodeCap}.`);
  }
  const common = { request, prepared, groups, depth, mayTruncate: groups.some(termExplodes) };
  if (prepared.expression !== undefined) {
    const expression = planExpression(
      prepared.expression,
      termEngine(groups, depth),
      options?.costBudget ?? LIMITS.statsCostBudget,
      options?.outcomesMax ?? LIMITS.statsOutcomesMax,
    );
    return { ...common, cost: expression.cost, expression, totals: expression };
  }
  const outcomesMax = options?.outcomesMax ?? LIMITS.statsOutcomesMax;
  const support = listedSupport(groups, depth);
  if (support > outcomesMax) {
    // Every refusal says how many totals were estimated (docs/stats.md).
    const tooMany = `This formula could have about ${formatCost(support)} totals, more than the ${outcomesMax} that can be listed`;
    if (groups.some(termSelects))
      throw new TooComplexError(`${tooMany}, and its keep or drop has no exact summary.`);
    try {
      return { ...common, cost: 0, summary: summary(groups, prepared.modifier) };
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
  const bounds = termBounds(groups, depth);
  const totals = {
    low: bounds.low + prepared.modifier,
    high: bounds.high + prepared.modifier,
    size: support,
    bits: bounds.bits,
  };
  return { ...common, cost, totals };
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

/**
 * The distribution fields of listed totals. `moments`: the whole roll's, when the listing is cut
 * and they were had (else the listed outcomes' own moments stand, as `moments: "listed"`).
 */
function describeTotals(d: Totals, truncatedDepth: number | undefined, moments?: Moments): StatsDistribution {
  const listedMass = d.denominator - d.tail;
  const ratios = ratiosOver(d.denominator);
  const scaledMass = ratios.scaled(listedMass);
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
    // The roller's total is the nearest double too (exact up to 2^53).
    const value = Number(d.totals[i]!);
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
  const whole = truncatedDepth === undefined || moments !== undefined;
  const m = moments ?? momentsOf(d);
  const variance = ratioToNumber(m.varN, m.varD);
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
    mean: ratioToNumber(m.meanN, m.meanD),
    meanExact: fraction(m.meanN, m.meanD),
    variance,
    varianceExact: fraction(m.varN, m.varD),
    sd: Math.sqrt(variance),
    moments: whole ? 'roll' : 'listed',
    listing,
    denominator: listing === 'full' ? d.denominator.toString() : null,
    outcomes,
    percentiles: percentiles as Percentiles,
    truncation,
  };
}

// --- the summary, when the outcomes are too many to list ----------------------------------------

/** min, max, exact mean and variance without listing: for sums of dice (no keep or drop). */
function summary(groups: readonly GroupPlan[], modifier: number): StatsDistribution {
  const { meanN, meanD, varN, varD, min, max } = sumMoments(groups, modifier);
  const variance = ratioToNumber(varN, varD);
  return {
    min,
    max,
    mean: ratioToNumber(meanN, meanD),
    meanExact: fraction(meanN, meanD),
    variance,
    varianceExact: fraction(varN, varD),
    sd: Math.sqrt(variance),
    moments: 'roll',
    listing: 'summary',
    denominator: null,
    outcomes: [],
    percentiles: null,
    truncation: null,
  };
}

/**
 * The whole roll's exact moments and bounds of a sum of dice (no keep or drop), every chain to
 * its cap, in closed form. Throws TooComplexError for dice without one (src/stats/term.ts).
 */
function sumMoments(groups: readonly GroupPlan[], modifier: number): Moments & { min: number; max: number } {
  // mean = meanN / meanD, variance = varN / varD, accumulated as exact fractions.
  let meanN = BigInt(modifier);
  let meanD = 1n;
  let varN = 0n;
  let varD = 1n;
  let min = modifier;
  let max = modifier;
  for (const plan of groups) {
    // Sums (a summary), or terms whose whole moments are known (wholeMoments checks).
    const t = termWholeSummary(plan);
    [meanN, meanD] = addLowest(meanN, meanD, t.meanN, t.meanD);
    [varN, varD] = addLowest(varN, varD, t.varN, t.varD);
    min += t.min;
    max += t.max;
  }
  return { meanN, meanD, varN, varD, min, max };
}
