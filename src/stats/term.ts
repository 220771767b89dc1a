// One dice term of a roll plan as an exact distribution (docs/stats.md): the term's rules are
// read once into a model of its die (an exhaustive switch over the plan's kinds: a rule without
// an exact per-die model is refused with its reason), sized and costed before any work, then
// computed as integer counts over one denominator. src/stats/distribution.ts combines the terms
// of a request.

import { FormulaError, TooComplexError } from '../errors.js';
import {
  type CountPlan,
  type ExplodePlan,
  type GroupPlan,
  type KeepPlan,
  KeepRule,
  type PoolPlan,
  type RerollPlan,
  unhandledKind,
  within,
} from '../formula/index.js';
import { LIMITS } from '../limits.js';
import {
  type ChainKeys,
  chainCounts,
  type DieCounts,
  type DieSpec,
  dieCounts,
  explodingSum,
  finalThrowWeights,
  type GeneralDie,
  isRerolled,
  rerolledFaces,
  topFaceProbability,
} from './die.js';
import { gcd } from './exact.js';
import { explodingKeepHighest, keepDistribution, keepMoments } from './keep.js';
import { multiply, power, total } from './poly.js';

/** Past this many sides a die is modelled only as a standard die (its faces are listed otherwise). */
const GENERAL_SIDES_MAX = 10_000;

/** One dice term as the engine computes it. */
interface GroupModel {
  /** The die as a standard die (faces 1..sides, no clamp, explode on the top face only). */
  die: DieSpec;
  /** Whether `die` describes the die exactly (else only `general` does). */
  classic: boolean;
  general: GeneralDie;
  /** Dice thrown. */
  count: number;
  /** Dice kept (0..count) by a single keep/drop. */
  kept: number;
  /** Whether the kept ones are the highest (else the lowest); irrelevant when all or none are kept. */
  highest: boolean;
  /** Every keep/drop of the term in order; more than one (`4d10dh1dl2`) goes to the selection walk. */
  steps: readonly KeepPlan[];
  /** sign * multiplier. */
  factor: number;
  /** Success counting: each counted result scores +1 in the success range, -1 in the failure range. */
  score: ((value: number) => number) | undefined;
  /** Set on every term of a pool group. */
  pool: PoolPlan | undefined;
}

/**
 * A distribution over `min + i * step` (counts over `denominator`), with the mass not listed
 * (chains deeper than the listing depth) as `tail`: counts + tail sum to the denominator.
 */
export interface TermDistribution {
  min: number;
  step: number;
  counts: bigint[];
  tail: bigint;
  denominator: bigint;
}

// --- the per-term interface ----------------------------------------------------------------------

/**
 * The exact distribution of one dice term's contribution to the total (sign and multiplier
 * included), listing explosion chains of at most `depth` extras per die. Throws what checkTerm
 * throws. The caller sizes and costs the work first (listedSupport, estimateCost).
 */
export function termDistribution(plan: GroupPlan, depth: number): TermDistribution {
  return groupDistribution(modelGroup(plan), depth);
}

/**
 * Refuses a term the engine has no exact model for, with the reason: FormulaError for unique
 * dice (`u`, `uo`) and matching sets as the total (`mt`), TooComplexError for a die too large
 * for the model its rules need.
 */
export function checkTerm(plan: GroupPlan): void {
  modelGroup(plan);
}

/** Whether the term keeps some but not all of its dice (its summary has no closed form). */
export function termSelects(plan: GroupPlan): boolean {
  const g = modelGroup(plan);
  return (g.kept !== 0 && g.kept !== g.count) || g.steps.length > 1 || g.pool !== undefined;
}

/** Whether a listing of the term can be truncated (a kept die explodes). */
export function termExplodes(plan: GroupPlan): boolean {
  const g = modelGroup(plan);
  return g.general.exploding && g.kept > 0;
}

/** A term's whole distribution (every chain up to the cap) summarised exactly. */
export interface TermSummary {
  min: number;
  max: number;
  /** mean = meanN / meanD, variance = varN / varD. */
  meanN: bigint;
  meanD: bigint;
  varN: bigint;
  varD: bigint;
}

/** min, max, exact mean and variance of a term that keeps all its dice or none, without listing. */
export function termSummary(plan: GroupPlan): TermSummary {
  const g = modelGroup(plan);
  if (g.kept === 0) return { min: 0, max: 0, meanN: 0n, meanD: 1n, varN: 0n, varD: 1n };
  if (g.kept !== g.count) throw new RangeError('termSummary: the term keeps some of its dice');
  if (!g.classic) return generalSummary(g);
  const m = dieMoments(g.die);
  const n = BigInt(g.count);
  // Every face can stand (a rerolled one after the last reroll), so a die's least value is 1.
  return scaledSummary(g.factor, g.count, g.count * die1Max(g.die), {
    s0: m.s0,
    s1: n * m.s1,
    variance: n * (m.s0 * m.s2 - m.s1 * m.s1),
  });
}

/**
 * A term's summary from its power sums before the factor (mean s1 / s0, variance `variance` /
 * s0^2) and its least and greatest values, times the factor (a negative one swaps the bounds).
 */
function scaledSummary(
  factor: number,
  low: number,
  high: number,
  m: { s0: bigint; s1: bigint; variance: bigint },
): TermSummary {
  const k = BigInt(factor);
  const [meanN, meanD] = lowest(k * m.s1, m.s0);
  const [varN, varD] = lowest(k * k * m.variance, m.s0 * m.s0);
  return {
    min: factor > 0 ? low * factor : high * factor,
    max: factor > 0 ? high * factor : low * factor,
    meanN,
    meanD,
    varN,
    varD,
  };
}

/**
 * Whether a term's whole moments have an exact form without its distribution: a sum (termSummary)
 * or one keep or drop of a standard die (keepSummary's walk over the whole die's values).
 */
export function termMomentsKnown(plan: GroupPlan): boolean {
  const g = modelGroup(plan);
  return !termSelects(plan) || simpleKeep(g);
}

/** One keep or drop of a standard die, no success counting: keepSummary applies. */
const simpleKeep = (g: GroupModel): boolean =>
  g.classic && g.steps.length <= 1 && g.pool === undefined && g.score === undefined && g.kept > 0;

/**
 * Estimated word operations of termWholeSummary (0 for a sum, whose moments are in closed form):
 * per value of the whole die, per state and per number of dice on it, a few products of numbers
 * of the size of the rolls' weights. An upper bound: the walk takes each run of equal-weight
 * values in one step (src/stats/keep.ts keepMoments).
 */
export function termSummaryCost(plan: GroupPlan): number {
  const g = modelGroup(plan);
  if (!termSelects(plan)) return 0;
  const values = dieSpan(g, LIMITS.explodeCap) + 1;
  const big = words(g.count * dieBits(g, LIMITS.explodeCap) + 64) ** 2 + 150;
  return values * g.kept * (g.count + 1) * 12 * big;
}

/**
 * termSummary, and for one keep or drop of a standard die (termMomentsKnown) the whole roll's
 * exact moments of the kept sum, every chain to the cap: keepMoments over the die's whole values.
 */
export function termWholeSummary(plan: GroupPlan): TermSummary {
  const g = modelGroup(plan);
  if (!termSelects(plan)) return termSummary(plan);
  if (!simpleKeep(g)) throw new RangeError('termWholeSummary: the term has no exact summary');
  const die = dieCounts(g.die, LIMITS.explodeCap);
  const m = keepMoments(die, g.count, g.kept, g.highest);
  return scaledSummary(g.factor, g.kept * die.min, g.kept * (die.min + die.counts.length - 1), {
    s0: m.s0,
    s1: m.s1,
    variance: m.s0 * m.s2 - m.s1 * m.s1,
  });
}

// --- the model of a term ------------------------------------------------------------------------

function modelGroup(plan: GroupPlan): GroupModel {
  const known = models.get(plan);
  if (known !== undefined) return known;
  const model = buildModel(plan);
  models.set(plan, model);
  return model;
}

/** Plans are immutable: each is modelled (and checked) once. */
const models = new WeakMap<GroupPlan, GroupModel>();

const UNIQUE_REFUSED =
  'Unique dice (u, uo) are not computed by /v1/stats: a reroll that depends on the other dice of the term has no exact per-die model here.';
const MATCH_TOTAL_REFUSED =
  'Matching sets as the total (mt) are not computed by /v1/stats: that total counts the values shown by several dice, which this engine does not track (m alone leaves the total unchanged and is answered).';

function buildModel(plan: GroupPlan): GroupModel {
  let clamp: { low: number; high: number } | undefined;
  let reroll: RerollPlan | undefined;
  let explode: ExplodePlan | undefined;
  let counting: CountPlan | undefined;
  let unique = false;
  let matchTotal = false;
  const steps: KeepPlan[] = [];
  for (const modifier of plan.modifiers) {
    switch (modifier.kind) {
      case 'clamp':
        clamp = modifier;
        break;
      case 'reroll':
        reroll = modifier;
        break;
      case 'unique':
        // A reroll that depends on the other dice of the term: refused below.
        unique = true;
        break;
      case 'explode':
        explode = modifier;
        break;
      case 'keep':
        steps.push(modifier);
        break;
      case 'match':
        // `m` only lists the matching sets; the total is the term's as if it were not written
        // (docs/language.md). `mt` makes their number the total: refused below.
        if (modifier.total) matchTotal = true;
        break;
      case 'count':
        counting = modifier;
        break;
      default:
        unhandledKind(modifier);
    }
  }
  if (matchTotal) throw new FormulaError(MATCH_TOTAL_REFUSED, 'formula', undefined);
  if (unique) throw new FormulaError(UNIQUE_REFUSED, 'formula', undefined);
  const { count } = plan;
  let kept = count;
  let highest = true;
  if (steps.length === 1) {
    const { rule, amount } = steps[0]!;
    if (rule === KeepRule.KeepHighest) kept = Math.min(amount, count);
    else if (rule === KeepRule.KeepLowest) {
      kept = Math.min(amount, count);
      highest = false;
    } else if (rule === KeepRule.DropHighest) {
      kept = Math.max(count - amount, 0);
      highest = false;
    } else kept = Math.max(count - amount, 0);
  }
  const sides = plan.sides;
  const rerollLimit = reroll?.limit ?? 0;
  const rerollLow = reroll?.low ?? 1;
  const rerollHigh = reroll?.high ?? 0;
  // The standard model rerolls a plain range of faces (not a not-equal point's inverted one).
  const classic =
    plan.faces === undefined &&
    clamp === undefined &&
    (reroll === undefined || reroll.low <= reroll.high) &&
    (explode === undefined || (explode.low === sides && explode.high === sides)) &&
    counting === undefined;
  if (!classic && sides > GENERAL_SIDES_MAX) {
    throw new TooComplexError(
      `A die of more than ${GENERAL_SIDES_MAX} sides is computed only as a plain sum, keep or drop, with rerolls and explosions on its top face.`,
    );
  }
  if ((steps.length > 1 || plan.pool !== undefined) && sides > GENERAL_SIDES_MAX) {
    throw new TooComplexError(
      `Several keeps or drops, or a pool group, over dice of more than ${GENERAL_SIDES_MAX} sides are not computed.`,
    );
  }
  const values: number[] = [];
  for (let i = 0; i < (classic && sides > GENERAL_SIDES_MAX ? 0 : sides); i++) {
    const face = plan.faces === undefined ? i + 1 : plan.faces[i]!;
    values.push(clamp === undefined ? face : Math.min(Math.max(face, clamp.low), clamp.high));
  }
  const rerolled = values.map((v) => rerollLimit > 0 && within(v, rerollLow, rerollHigh));
  const exploding = explode !== undefined;
  const explodes = values.map((v) => explode !== undefined && within(v, explode.low, explode.high));
  const penalty = explode?.penetrate === true ? 1 : 0;
  const general: GeneralDie = {
    sides,
    values,
    rerollLimit,
    rerolled,
    explodes,
    exploding,
    penalty,
    compound: explode?.compound === true,
  };
  const score =
    counting === undefined
      ? undefined
      : (value: number) =>
          (within(value, counting.success.low, counting.success.high) ? 1 : 0) -
          (counting.failure !== undefined && within(value, counting.failure.low, counting.failure.high)
            ? 1
            : 0);
  return {
    die: { sides, explode: exploding ? (penalty === 1 ? 2 : 1) : 0, rerollLimit, rerollLow, rerollHigh },
    classic,
    general,
    count,
    kept,
    highest,
    steps,
    factor: plan.sign * plan.multiplier,
    score,
    pool: plan.pool,
  };
}

// --- planning: depth, size and cost before any work -------------------------------------------

/** Probability (a double) that a die's final throw explodes, and the share of faces that explode. */
function explodeOdds(g: GroupModel): { start: number; again: number } {
  if (g.classic) return { start: topFaceProbability(g.die), again: 1 / g.die.sides };
  const d = g.general;
  let met = 0;
  let exploding = 0;
  for (let i = 0; i < d.sides; i++) {
    if (d.rerolled[i]) met++;
    if (d.explodes[i]) exploding++;
  }
  const s = d.sides;
  // P(final = a face slot): (1 - (m/s)^(L+1)) / (s - m) unrerolled, (m/s)^L / s rerolled.
  const q = met / s;
  const kept = met === 0 ? 1 / s : (1 - q ** (d.rerollLimit + 1)) / (s - met);
  const metP = met === 0 ? 0 : q ** d.rerollLimit / s;
  let start = 0;
  for (let i = 0; i < s; i++) if (d.explodes[i]) start += d.rerolled[i] ? metP : kept;
  return { start: start || 2 ** -1074, again: exploding / s };
}

/** The least depth whose unlisted mass (estimated in doubles) is below the threshold, at most the cap. */
export function autoDepth(plans: readonly GroupPlan[]): number {
  const groups = plans.map(modelGroup);
  const exploding = groups.filter((g) => g.general.exploding && (g.kept > 0 || g.steps.length > 1));
  const odds = exploding.map(explodeOdds);
  if (odds.some((o) => o.again >= 1)) return LIMITS.explodeCap;
  for (let depth = 0; depth < LIMITS.explodeCap; depth++) {
    let tail = 0;
    for (let i = 0; i < exploding.length; i++) {
      const o = odds[i]!;
      tail += exploding[i]!.count * Math.exp(Math.log(o.start) + depth * Math.log(o.again));
    }
    if (tail < LIMITS.statsTailBelow) return depth;
  }
  return LIMITS.explodeCap;
}

/** Highest contribution a listed die can make, minus the lowest (an upper bound). */
function dieSpan(g: GroupModel, depth: number): number {
  const extras = g.general.exploding ? Math.min(depth, LIMITS.explodeCap) : 0;
  if (g.score !== undefined) return 2 * (extras + 1);
  if (g.classic) {
    const die = g.die;
    if (die.explode === 0) return die.sides - 1;
    return extras === 0 ? die.sides - 2 : extras * die.sides + die.sides - 1;
  }
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const v of g.general.values) {
    low = Math.min(low, v);
    high = Math.max(high, v);
  }
  if (extras === 0) return high - low;
  // Each extra adds its value minus the penalty: between low - penalty and high - penalty.
  const penalty = g.general.penalty;
  return high - low + extras * (Math.max(0, high - penalty) - Math.min(0, low - penalty));
}

/** Dice of a term whose contributions reach the total (an upper bound). */
const keptDice = (g: GroupModel): number => (g.steps.length > 1 || g.pool !== undefined ? g.count : g.kept);

/** How many totals the listing could have (an upper bound: the span of each group, added). */
export function listedSupport(plans: readonly GroupPlan[], depth: number): number {
  const groups = plans.map(modelGroup);
  let step = 0;
  let span = 0;
  for (const g of groups) {
    const groupSpan = keptDice(g) * dieSpan(g, depth);
    if (groupSpan === 0) continue;
    step = Number(gcd(BigInt(step), BigInt(g.factor)));
    span += groupSpan * Math.abs(g.factor);
  }
  return step === 0 ? 1 : span / step + 1;
}

/**
 * Bounds of the listed distribution of one term, or of a pool group's terms together, before
 * computing it (for the expression engine's estimates, src/stats/expression.ts): least and
 * greatest value, values at most, bits of a count.
 */
export function termBounds(
  plans: readonly GroupPlan[],
  depth: number,
): { low: number; high: number; size: number; bits: number } {
  let low = 0;
  let high = 0;
  let bits = 8;
  for (const plan of plans) {
    const g = modelGroup(plan);
    const extras = g.general.exploding ? Math.min(depth, LIMITS.explodeCap) : 0;
    // One die's contribution, before the factor.
    let dieLow: number;
    let dieHigh: number;
    if (g.score !== undefined) {
      dieLow = -(extras + 1);
      dieHigh = extras + 1;
    } else if (g.classic) {
      dieLow = 1;
      dieHigh = 1 + dieSpan(g, depth);
    } else {
      dieLow = Math.min(...g.general.values);
      dieHigh = Math.max(...g.general.values);
      if (extras > 0) {
        const reach = (extras + 1) * (Math.max(Math.abs(dieLow), Math.abs(dieHigh)) + g.general.penalty);
        dieLow = Math.min(dieLow, -reach);
        dieHigh = reach;
      }
    }
    // A single keep counts `kept` dice; several keeps or a pool count any number of them.
    const fixed = g.steps.length <= 1 && g.pool === undefined;
    const termLow = fixed ? g.kept * dieLow : g.count * Math.min(dieLow, 0);
    const termHigh = fixed ? g.kept * dieHigh : g.count * Math.max(dieHigh, 0);
    const ends = [termLow * g.factor, termHigh * g.factor];
    low += Math.min(...ends);
    high += Math.max(...ends);
    bits += g.count * (dieBits(g, depth) + 1);
  }
  return { low, high, size: listedSupport(plans, depth), bits };
}

/** Bits of one die's denominator (before the reduction dieCounts may find). */
function dieBits(g: GroupModel, depth: number): number {
  const extras = g.general.exploding ? Math.min(depth, LIMITS.explodeCap) : 0;
  const levels = g.general.rerollLimit + 1 + extras;
  return levels * Math.log2(Math.max(g.general.sides, 2)) + 1;
}

/** 64-bit words of a number of `bits` bits. */
const words = (bits: number): number => bits / 64 + 1;

/** Word operations of a product of numbers of a and b words (V8: schoolbook, then Karatsuba). */
function productCost(a: number, b: number): number {
  const [long, short] = a >= b ? [a, b] : [b, a];
  return short < 40 ? long * short : (long / short) * short ** 1.585;
}

/** Word operations of the power of a packed polynomial whose result has `resultWords` words. */
const powerCost = (resultWords: number): number =>
  1.5 * productCost(resultWords / 2, resultWords / 2) + 20 * resultWords;

/** Word operations of building one general die: its chain, extra by extra, over sparse keys. */
function chainCost(g: GroupModel, depth: number): number {
  if (g.classic) return 0;
  const extras = g.general.exploding ? Math.min(depth, LIMITS.explodeCap) : 0;
  const keys = g.score !== undefined && g.general.exploding && !g.general.compound ? 2 * (extras + 2) : 1;
  // Per extra: the chain so far (up to its span, times the score keys) times the faces; sparse maps cost ~20.
  return 20 * (extras + 1) * (dieSpan(g, depth) + 1) * keys * g.general.sides + 20 * g.general.sides;
}

/**
 * Word operations of the selection walk (several keeps, a pool, success counting with a keep):
 * per outcome, per state (dice placed per term), per split of the outcome's dice, a product of
 * sparse polynomials as wide as the kept contributions.
 */
function selectionCost(groups: readonly GroupModel[], depth: number): number {
  let outcomes = 0;
  let states = 1;
  let width = 1;
  let bits = 0;
  for (const g of groups) {
    outcomes += Math.min(dieSpan(g.score === undefined ? g : { ...g, score: undefined }, depth) + 1, 1e9);
    states *= ((g.count + 1) * (g.count + 2)) / 2;
    // A single keep or drop sums only the dice it keeps (the first or last ones placed).
    const summed = g.steps.length === 1 && g.pool === undefined ? g.kept : g.count;
    width += summed * dieSpan(g, depth) * Math.abs(g.factor);
    bits += g.count * dieBits(g, depth);
  }
  return 20 * outcomes * states * width * words(bits);
}

/** Whether a term goes to the selection walk. */
function needsSelection(g: GroupModel): boolean {
  if (g.pool !== undefined || g.steps.length > 1) return true;
  return g.score !== undefined && g.kept !== g.count && g.kept !== 0;
}

/** Word operations of keepDistribution's walk: per outcome, k(k+1)/2 small products and k closing ones. */
function walkKeepCost(g: GroupModel, depth: number): number {
  const span = dieSpan(g, depth);
  const bits = dieBits(g, depth);
  const slots = g.kept * span + 1;
  const slotBits = g.count * bits + g.count + 8;
  const width = words((slots * slotBits) / 2);
  const small = ((g.kept * (g.kept + 1)) / 2) * width * words(g.kept * bits);
  return (span + 1) * (small + g.kept * width * words(g.count * bits));
}

/**
 * Whether a term keeps the highest of exploding dice that are never rerolled, and explosion
 * levels (src/stats/keep.ts, explodingKeepHighest) cost less than the walk over values (many
 * dice and few kept can make the walk cheaper).
 */
function levelKeep(g: GroupModel, depth: number): boolean {
  const { die } = g;
  return (
    g.classic &&
    g.steps.length <= 1 &&
    g.pool === undefined &&
    g.kept > 0 &&
    g.kept < g.count &&
    g.highest &&
    die.explode !== 0 &&
    rerolledFaces(die) === 0 &&
    die.sides >= 2 &&
    depth < LIMITS.explodeCap &&
    levelKeepCost(g, depth) <= walkKeepCost(g, depth)
  );
}

/**
 * Word operations of explodingKeepHighest: the level weights (levels x (n - k + 1)^2 products of
 * numbers up to the counts' size), per sector f < k and per number m of plain dice the sparse
 * level polynomial times the plain faces' keep, then k - 1 divisions and sliding sums over the
 * listing. Every BigInt operation also costs a fixed overhead, counted as 150 word operations.
 */
function levelKeepCost(g: GroupModel, depth: number): number {
  const n = g.count;
  const k = g.kept;
  const sides = g.die.sides;
  const countWords = words(n * dieBits(g, depth));
  const big = countWords + 150;
  const levels = depth + 1;
  const plainCounts = n - k + 1;
  let ops = depth * plainCounts * plainCounts * (countWords * countWords + 150);
  for (let f = 0; f < k; f++) {
    const faces = (k - f) * (sides - 2) + 1;
    ops += plainCounts * levels * (f + 1) * (3 + 2 * faces) * big;
    // The walk for the plain faces' keep (small numbers).
    ops += plainCounts * (sides - 1) * (k - f) * (k - f) * 200;
  }
  const length = k * (sides * (depth + 1)) + 1;
  return ops + (k - 1) * length * 6 * big;
}

/**
 * Estimated word operations of the whole computation, the budget's unit: the same steps the
 * computation takes (powers, the keep walk, the products of groups, the answer's divisions),
 * costed with the size of their numbers.
 */
export function estimateCost(plans: readonly GroupPlan[], depth: number): number {
  const groups = plans.map(modelGroup);
  let cost = 0;
  let resultSlots = 1;
  let resultBits = 1;
  for (let index = 0; index < groups.length; index++) {
    const g = groups[index]!;
    cost += chainCost(g, depth);
    const span = dieSpan(g, depth);
    const bits = dieBits(g, depth);
    if (needsSelection(g)) {
      const members = g.pool === undefined ? [g] : groups.slice(index, index + g.pool.size);
      cost += selectionCost(members, depth);
      for (const m of members.slice(1)) cost += chainCost(m, depth);
      const slots = members.reduce((sum, m) => sum + m.count * dieSpan(m, depth) * Math.abs(m.factor), 1);
      const slotBits = members.reduce((sum, m) => sum + m.count * dieBits(m, depth), 8);
      resultSlots += slots;
      resultBits += slotBits;
      cost += productCost(words(resultSlots * resultBits), words(slots * slotBits));
      index += members.length - 1;
      continue;
    }
    if (g.kept === 0) continue;
    const slots = g.kept * span + 1;
    const slotBits = g.count * bits + g.count + 8;
    if (g.kept < g.count) {
      cost += levelKeep(g, depth) ? levelKeepCost(g, depth) : walkKeepCost(g, depth);
    } else if (g.classic && g.die.explode !== 0 && rerolledFaces(g.die) === 0 && depth < LIMITS.explodeCap) {
      const chainSlots = g.count * depth + 1;
      const faceSlots = g.count * (g.die.sides - 2) + 1;
      cost += powerCost(words(chainSlots * slotBits)) + powerCost(words(faceSlots * g.count * 32));
      cost +=
        chainSlots * faceSlots <= 200_000
          ? chainSlots * faceSlots * words(slotBits)
          : productCost(words(slots * slotBits), words(faceSlots * slotBits));
    } else {
      cost += powerCost(words(slots * slotBits));
    }
    resultSlots += slots;
    resultBits += slotBits;
    cost += productCost(words(resultSlots * resultBits), words(slots * slotBits));
  }
  // Three exact divisions per listed total.
  return cost + 3 * resultSlots * words(resultBits) ** 2;
}

export function formatCost(cost: number): string {
  return cost.toExponential(1).replace('e+', 'e');
}

// --- computing ---------------------------------------------------------------------------------

const ZERO: TermDistribution = { min: 0, step: 1, counts: [1n], tail: 0n, denominator: 1n };

function groupDistribution(group: GroupModel, depth: number): TermDistribution {
  if (group.pool !== undefined) {
    throw new RangeError('A term of a pool group is computed with its group: poolDistribution.');
  }
  if (needsSelection(group)) return selectDistribution([group], group.steps, depth, group.factor);
  const { count, kept } = group;
  if (kept === 0) return ZERO;
  if (!group.classic) return generalDistribution(group, depth);
  const { die: spec } = group;
  if (kept === count && spec.explode !== 0 && rerolledFaces(spec) === 0 && depth < LIMITS.explodeCap) {
    const sum = explodingSum(spec.sides, spec.explode === 2, depth, count);
    const tail = sum.denominator - total(sum.counts);
    return scaleDistribution(
      { min: sum.min, step: 1, counts: sum.counts, tail, denominator: sum.denominator },
      group.factor,
    );
  }
  if (levelKeep(group, depth)) {
    const keep = explodingKeepHighest(spec.sides, spec.explode === 2, depth, count, kept);
    const tail = keep.denominator - total(keep.counts);
    return scaleDistribution(
      { min: keep.min, step: 1, counts: keep.counts, tail, denominator: keep.denominator },
      group.factor,
    );
  }
  const die = dieCounts(spec, depth);
  const denominator = die.denominator ** BigInt(count);
  let min: number;
  let counts: bigint[];
  if (kept === count) {
    min = count * die.min;
    counts = power(die.counts, count);
  } else {
    ({ min, counts } = keepDistribution(die, count, kept, group.highest, true));
  }
  return scaleDistribution(
    { min, step: 1, counts, tail: denominator - total(counts), denominator },
    group.factor,
  );
}

/** The keys of a die's value: its final throw, plus each extra minus the penalty. */
const valueKeys = (g: GroupModel): ChainKeys => ({
  init: (v) => v,
  extra: (v) => v - g.general.penalty,
});

/** One die's value distribution (the chain's sum, compounded or not). */
function valueCounts(g: GroupModel, depth: number): DieCounts {
  return chainCounts(g.general, depth, valueKeys(g));
}

/** One die's contribution: its value, or with success counting its successes minus failures. */
function contributionCounts(g: GroupModel, depth: number): DieCounts {
  const score = g.score;
  if (score === undefined) return valueCounts(g, depth);
  if (!g.general.compound) {
    // Every result of the chain is counted: the final throw and each extra as recorded.
    return chainCounts(g.general, depth, { init: score, extra: (v) => score(v - g.general.penalty) });
  }
  // A compounded die is one result: its merged value is counted.
  const values = valueCounts(g, depth);
  const byScore = new Map<number, bigint>();
  for (let i = 0; i < values.counts.length; i++) {
    const key = score(values.min + i);
    byScore.set(key, (byScore.get(key) ?? 0n) + values.counts[i]!);
  }
  const keys = [...byScore.keys()];
  const min = Math.min(...keys);
  const counts: bigint[] = new Array(Math.max(...keys) - min + 1).fill(0n);
  for (const [k, w] of byScore) counts[k - min] = w;
  return { min, counts, tail: values.tail, denominator: values.denominator };
}

/** A term of any die (custom faces, clamps, compare points): a sum of its dice, or one keep/drop of them. */
function generalDistribution(g: GroupModel, depth: number): TermDistribution {
  const { count, kept } = g;
  if (kept === count) {
    const die = contributionCounts(g, depth);
    const denominator = die.denominator ** BigInt(count);
    const counts = power(die.counts, count);
    return scaleDistribution(
      { min: count * die.min, step: 1, counts, tail: denominator - total(counts), denominator },
      g.factor,
    );
  }
  const die = valueCounts(g, depth);
  const denominator = die.denominator ** BigInt(count);
  // Deep chains of these dice need not rank above the listed values (`!>=3`, clamps, negative
  // faces): a roll with any die deeper than the depth is left to the tail, kept or dropped.
  const { min, counts } = keepDistribution(die, count, kept, g.highest, false);
  return scaleDistribution(
    { min, step: 1, counts, tail: denominator - total(counts), denominator },
    g.factor,
  );
}

/**
 * Each outcome a die can rank by (its value), with the distribution of what it contributes
 * there (the value itself, or its successes minus failures), keys scaled by `factor`.
 */
function rankedOutcomes(
  g: GroupModel,
  depth: number,
  factor: number,
): { outcomes: Map<number, Sparse>; denominator: bigint } {
  const outcomes = new Map<number, Sparse>();
  const score = g.score;
  if (score !== undefined && g.general.exploding && !g.general.compound) {
    // Value and score together: key = value * width + score, |score| < width / 2.
    const extras = Math.min(depth, LIMITS.explodeCap);
    const width = 2 * (extras + 2) + 1;
    const p = g.general.penalty;
    const joint = chainCounts(g.general, depth, {
      init: (v) => v * width + score(v),
      extra: (v) => (v - p) * width + score(v - p),
    });
    for (let i = 0; i < joint.counts.length; i++) {
      const w = joint.counts[i]!;
      if (w === 0n) continue;
      const key = joint.min + i;
      const value = Math.round(key / width);
      const points = key - value * width;
      let at = outcomes.get(value);
      if (at === undefined) {
        at = new Map();
        outcomes.set(value, at);
      }
      at.set(points * factor, (at.get(points * factor) ?? 0n) + w);
    }
    return { outcomes, denominator: joint.denominator };
  }
  const die = g.classic ? dieCounts(g.die, depth) : valueCounts(g, depth);
  for (let i = 0; i < die.counts.length; i++) {
    const w = die.counts[i]!;
    if (w === 0n) continue;
    const value = die.min + i;
    outcomes.set(value, new Map([[(score === undefined ? value : score(value)) * factor, w]]));
  }
  return { outcomes, denominator: die.denominator };
}

/**
 * The distribution of one or more terms' dice selected together by keep/drop steps (several on
 * one term, or a pool group's over all its terms' dice): a walk over the outcomes from the
 * highest down, the state being how many dice of each term rank above. At an outcome the tied
 * dice are ordered by position (earlier terms first), as the roller breaks ties, and the dice a
 * step keeps are a prefix of the ranking from the top (kh, dh) or from the bottom (kl, dl); so
 * the dice of a tie that count form one range of that order. A roll in which any die's chain goes
 * deeper than the listing depth is not listed (its mass is the tail).
 */
function selectDistribution(
  groups: readonly GroupModel[],
  steps: readonly KeepPlan[],
  depth: number,
  factor: number,
): TermDistribution {
  const terms = groups.map((g) => ({
    g,
    ...rankedOutcomes(g, depth, factor * (groups.length > 1 ? g.factor : 1)),
  }));
  const total_n = groups.reduce((sum, g) => sum + g.count, 0);
  let denominator = 1n;
  for (const t of terms) denominator *= t.denominator ** BigInt(t.g.count);
  const ranks = [...new Set(terms.flatMap((t) => [...t.outcomes.keys()]))].sort((a, b) => b - a);
  // States: dice placed per term, in mixed radix.
  const radix: number[] = [];
  let r = 1;
  for (const t of terms) {
    radix.push(r);
    r *= t.g.count + 1;
  }
  const binomials = (n: number): bigint[] => {
    const row: bigint[] = [1n];
    for (let c = 1; c <= n; c++) row.push((row[c - 1]! * BigInt(n - c + 1)) / BigInt(c));
    return row;
  };
  const binomialRows: bigint[][] = [];
  for (let n = 0; n <= Math.max(...groups.map((g) => g.count)); n++) binomialRows.push(binomials(n));
  let states = new Map<number, Sparse>([[0, new Map([[0, 1n]])]]);
  for (const rank of ranks) {
    const here = terms.map((t) => t.outcomes.get(rank));
    const totals = here.map((o) => (o === undefined ? 0n : [...o.values()].reduce((a, b) => a + b, 0n)));
    const powers = here.map(() => new Map<number, Sparse>());
    const powerOf = (m: number, q: number): Sparse => {
      let got = powers[m]!.get(q);
      if (got === undefined) {
        got = q === 0 ? new Map([[0, 1n]]) : sparseProduct(powerOf(m, q - 1), here[m]!);
        powers[m]!.set(q, got);
      }
      return got;
    };
    const next = new Map<number, Sparse>();
    for (const [state, poly] of states) {
      const placed = terms.map((t, m) => Math.floor(state / radix[m]!) % (t.g.count + 1));
      const above = placed.reduce((a, b) => a + b, 0);
      const split = new Array<number>(terms.length).fill(0);
      const visit = (m: number): void => {
        if (m === terms.length) {
          const tied = split.reduce((a, b) => a + b, 0);
          if (tied === 0) {
            merge(next, state, poly);
            return;
          }
          const below = total_n - above - tied;
          let lo = 0;
          let hi = tied;
          for (const step of steps) {
            switch (step.rule) {
              case KeepRule.KeepHighest:
                hi = Math.min(hi, step.amount - above);
                break;
              case KeepRule.DropHighest:
                lo = Math.max(lo, step.amount - above);
                break;
              case KeepRule.KeepLowest:
                hi = Math.min(hi, step.amount - below);
                break;
              case KeepRule.DropLowest:
                lo = Math.max(lo, step.amount - below);
                break;
            }
          }
          let weight: Sparse = new Map([[0, 1n]]);
          let offset = 0;
          let target = state;
          for (let t = 0; t < terms.length; t++) {
            const c = split[t]!;
            if (c === 0) continue;
            const keptHere = Math.max(0, Math.min(hi, offset + c) - Math.max(lo, offset));
            offset += c;
            target += c * radix[t]!;
            const scalar =
              binomialRows[terms[t]!.g.count - placed[t]!]![c]! * totals[t]! ** BigInt(c - keptHere);
            weight = scaleSparse(
              keptHere === 0 ? weight : sparseProduct(weight, powerOf(t, keptHere)),
              scalar,
            );
          }
          merge(next, target, sparseProduct(poly, weight));
          return;
        }
        const room = here[m] === undefined ? 0 : terms[m]!.g.count - placed[m]!;
        for (let c = 0; c <= room; c++) {
          split[m] = c;
          visit(m + 1);
        }
        split[m] = 0;
      };
      visit(0);
    }
    states = next;
  }
  const full = terms.reduce((state, t, m) => state + t.g.count * radix[m]!, 0);
  const result = states.get(full) ?? new Map<number, bigint>();
  if (result.size === 0) return { min: 0, step: 1, counts: [], tail: denominator, denominator };
  const keys = [...result.keys()].sort((a, b) => a - b);
  const min = keys[0]!;
  let step = 0;
  for (const k of keys) step = Number(gcd(BigInt(step), BigInt(k - min)));
  if (step === 0) step = 1;
  const counts: bigint[] = new Array((keys[keys.length - 1]! - min) / step + 1).fill(0n);
  for (const [k, w] of result) counts[(k - min) / step] = w;
  return trimDistribution({ min, step, counts, tail: denominator - total(counts), denominator });
}

function merge(into: Map<number, Sparse>, state: number, poly: Sparse): void {
  const at = into.get(state);
  if (at === undefined) {
    into.set(state, poly);
    return;
  }
  for (const [k, w] of poly) at.set(k, (at.get(k) ?? 0n) + w);
}

function sparseProduct(a: Sparse, b: Sparse): Sparse {
  const out: Sparse = new Map();
  for (const [ka, wa] of a) {
    for (const [kb, wb] of b) {
      const k = ka + kb;
      out.set(k, (out.get(k) ?? 0n) + wa * wb);
    }
  }
  return out;
}

function scaleSparse(a: Sparse, by: bigint): Sparse {
  if (by === 1n) return a;
  const out: Sparse = new Map();
  for (const [k, w] of a) out.set(k, w * by);
  return out;
}

type Sparse = Map<number, bigint>;

/**
 * The distribution of a pool group (`{4d6+3d8}kh3`): the keep/drop of `pool` over the dice of
 * all its terms, `plans` being the group's terms in written order (each plan's `pool`); each
 * term's sign and multiplier apply to its own dice.
 */
export function poolDistribution(
  plans: readonly GroupPlan[],
  pool: PoolPlan,
  depth: number,
): TermDistribution {
  const steps: KeepPlan[] = pool.keep === undefined ? [] : [pool.keep];
  return selectDistribution(plans.map(modelGroup), steps, depth, 1);
}

/** Exact summary of a non-classic die summed (no explosion): from its final throw's distribution. */
function generalSummary(g: GroupModel): TermSummary {
  if (g.general.exploding) {
    throw new TooComplexError(
      'This formula has too many possible totals to list, and its dice have no exact summary here (explosions on a compare point, clamps, custom faces or success counting).',
    );
  }
  const die = contributionCounts(g, 0);
  let s0 = 0n;
  let s1 = 0n;
  let s2 = 0n;
  for (let i = 0; i < die.counts.length; i++) {
    const v = BigInt(die.min + i);
    const w = die.counts[i]!;
    s0 += w;
    s1 += w * v;
    s2 += w * v * v;
  }
  const n = BigInt(g.count);
  const k = BigInt(g.factor);
  const [meanN, meanD] = lowest(n * k * s1, s0);
  const [varN, varD] = lowest(n * k * k * (s0 * s2 - s1 * s1), s0 * s0);
  const low = g.count * die.min * g.factor;
  const high = g.count * (die.min + die.counts.length - 1) * g.factor;
  return { min: Math.min(low, high), max: Math.max(low, high), meanN, meanD, varN, varD };
}

/** The distribution of factor * X (factor a non-zero integer). */
export function scaleDistribution(d: TermDistribution, factor: number): TermDistribution {
  const trimmed = trimDistribution(d);
  const step = trimmed.counts.length > 1 ? trimmed.step * Math.abs(factor) : 1;
  if (factor > 0) return { ...trimmed, min: trimmed.min * factor, step };
  const last = trimmed.min + (trimmed.counts.length - 1) * trimmed.step;
  return { ...trimmed, min: last * factor, step, counts: trimmed.counts.slice().reverse() };
}

export function trimDistribution(d: TermDistribution): TermDistribution {
  let first = 0;
  while (first < d.counts.length - 1 && d.counts[first] === 0n) first++;
  let last = d.counts.length - 1;
  while (last > first && d.counts[last] === 0n) last--;
  if (first === 0 && last === d.counts.length - 1) return d;
  return { ...d, min: d.min + first * d.step, counts: d.counts.slice(first, last + 1) };
}

/** Spreads counts onto a finer step (a divisor of the current one), zeros between. */
function refine(d: TermDistribution, step: number): bigint[] {
  if (d.step === step || d.counts.length === 1) return d.counts;
  const ratio = d.step / step;
  const counts: bigint[] = new Array((d.counts.length - 1) * ratio + 1).fill(0n);
  for (let i = 0; i < d.counts.length; i++) counts[i * ratio] = d.counts[i]!;
  return counts;
}

/** The distribution of the sum of two independent parts. */
export function addDistributions(a: TermDistribution, b: TermDistribution): TermDistribution {
  const steps = [a, b].filter((d) => d.counts.length > 1).map((d) => d.step);
  const step = steps.length === 0 ? 1 : steps.reduce((x, y) => Number(gcd(BigInt(x), BigInt(y))));
  const counts = multiply(refine(a, step), refine(b, step));
  const denominator = a.denominator * b.denominator;
  return trimDistribution({
    min: a.min + b.min,
    step,
    counts,
    tail: denominator - total(counts),
    denominator,
  });
}

// --- the summary, when the outcomes are too many to list ----------------------------------------

interface Moments {
  /** Mass, sum of value * mass, sum of value^2 * mass. */
  s0: bigint;
  s1: bigint;
  s2: bigint;
}

/** Sums of v and v^2 for v = low..high. */
function rangeSums(low: bigint, high: bigint): { s1: bigint; s2: bigint } {
  const square = (n: bigint) => (n * (n + 1n) * (2n * n + 1n)) / 6n;
  return { s1: ((low + high) * (high - low + 1n)) / 2n, s2: square(high) - square(low - 1n) };
}

/** Exact moments of one die's whole value distribution (every chain up to the cap of 100). */
function dieMoments(die: DieSpec): Moments {
  const w = finalThrowWeights(die);
  const s = BigInt(die.sides);
  const m: Moments = { s0: 0n, s1: 0n, s2: 0n };
  const addRange = (low: bigint, high: bigint, weight: bigint) => {
    if (high < low || weight === 0n) return;
    const r = rangeSums(low, high);
    m.s0 += weight * (high - low + 1n);
    m.s1 += weight * r.s1;
    m.s2 += weight * r.s2;
  };
  const cap = BigInt(LIMITS.explodeCap);
  const extraLevels = die.explode === 0 ? 0n : cap;
  const levelScale = s ** extraLevels;
  // Final throws that do not explode: the faces outside and inside the reroll range.
  const top = die.explode === 0 ? s : s - 1n;
  const low = BigInt(Math.max(die.rerollLow, 1));
  const high = BigInt(Math.min(die.rerollHigh, die.sides));
  if (die.rerollLimit > 0 && high >= low) {
    addRange(1n, low - 1n < top ? low - 1n : top, w.kept * levelScale);
    addRange(low, high < top ? high : top, w.met * levelScale);
    addRange(high + 1n, top, w.kept * levelScale);
  } else {
    addRange(1n, top, w.kept * levelScale);
  }
  if (die.explode !== 0) {
    const topWeight = isRerolled(die, die.sides) ? w.met : w.kept;
    const penalty = die.explode === 2 ? 1n : 0n;
    let scaleLeft = levelScale;
    for (let j = 1n; j <= cap; j++) {
      scaleLeft /= s;
      const base = s + (j - 1n) * (s - penalty) - penalty;
      const lastFace = j === cap ? s : s - 1n;
      addRange(base + 1n, base + lastFace, topWeight * scaleLeft);
    }
  }
  return m;
}

export function lowest(n: bigint, d: bigint): [bigint, bigint] {
  const g = gcd(n, d);
  return g > 1n ? [n / g, d / g] : [n, d];
}

/**
 * aN/aD + bN/bD in lowest terms, for two fractions in lowest terms with positive denominators
 * (Knuth, TAOCP 2, 4.5.1): only the gcd of the denominators and of the sum with that gcd, small
 * when one denominator is 1 or they share little, instead of the gcd of the whole result.
 */
export function addLowest(aN: bigint, aD: bigint, bN: bigint, bD: bigint): [bigint, bigint] {
  const g = gcd(aD, bD);
  const t = aN * (bD / g) + bN * (aD / g);
  if (t === 0n) return [0n, 1n];
  if (g === 1n) return [t, aD * bD];
  const g2 = gcd(t, g);
  return [t / g2, (aD / g) * (bD / g2)];
}

/** The greatest value of one die's whole chain. */
function die1Max(die: DieSpec): number {
  if (die.explode === 0) return die.sides;
  const penalty = die.explode === 2 ? 1 : 0;
  return die.sides + LIMITS.explodeCap * (die.sides - penalty);
}
