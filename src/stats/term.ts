// One dice term of a roll plan as an exact distribution (docs/stats.md): the term's plan is
// checked to be one the engine knows, sized and costed before any work, then computed as integer
// counts over one denominator. src/stats/distribution.ts combines the terms of a request.

import { LIMITS } from '../limits.js';
import type { GroupPlan } from '../roll/prepare.js';
import { KeepRule } from '../roll/prepare.js';
import {
  type DieSpec,
  dieCounts,
  explodingSum,
  finalThrowWeights,
  isRerolled,
  rerolledFaces,
  topFaceProbability,
} from './die.js';
import { notYetSupported } from './errors.js';
import { gcd } from './exact.js';
import { keepDistribution } from './keep.js';
import { multiply, power, total } from './poly.js';

/** One dice term as the engine computes it. */
interface GroupModel {
  die: DieSpec;
  /** Dice thrown. */
  count: number;
  /** Dice kept (0..count). */
  kept: number;
  /** Whether the kept ones are the highest (else the lowest); irrelevant when all or none are kept. */
  highest: boolean;
  /** sign * multiplier. */
  factor: number;
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

const KNOWN_PLAN_FIELDS = new Set([
  'sides',
  'count',
  'sign',
  'multiplier',
  'keep',
  'keepAmount',
  'explode',
  'rerollLimit',
  'rerollLow',
  'rerollHigh',
  // What the response shows, never what the total is: naturals, recorded throws, labels.
  'highLow',
  'highHigh',
  'lowLow',
  'lowHigh',
  'recordThrows',
  'plain',
  'label',
]);

/**
 * Fields of a later edition's plan that the engine reads only in their first-edition meaning:
 * the test says when a plan's value means exactly that (anything else is not yet supported).
 */
const FIRST_EDITION_MEANING: Readonly<Record<string, (plan: Record<string, unknown>) => boolean>> = {
  // Exploding on the top face only.
  explodeLow: (plan) => plan.explode === 0 || plan.explodeLow === plan.sides,
  explodeHigh: (plan) => plan.explode === 0 || plan.explodeHigh === plan.sides,
  // No clamp, no success or failure counting (their bounds then mean nothing).
  clampLow: (plan) => plan.clamped === false,
  clampHigh: (plan) => plan.clamped === false,
  successLow: (plan) => plan.countSuccesses === false,
  successHigh: (plan) => plan.countSuccesses === false,
  failureLow: (plan) => plan.countFailures === false,
  failureHigh: (plan) => plan.countFailures === false,
};

// --- the per-term interface ----------------------------------------------------------------------

/**
 * The exact distribution of one dice term's contribution to the total (sign and multiplier
 * included), listing explosion chains of at most `depth` extras per die. Throws FormulaError
 * ("… is not yet supported by /v1/stats") for a plan the engine does not know. The caller sizes
 * and costs the work first (listedSupport, estimateCost).
 */
export function termDistribution(plan: GroupPlan, depth: number): TermDistribution {
  return groupDistribution(modelGroup(plan), depth);
}

/** Checks that the engine knows every field of the plan; throws what termDistribution would. */
export function checkTerm(plan: GroupPlan): void {
  modelGroup(plan);
}

/** Whether the term keeps some but not all of its dice (its summary has no closed form). */
export function termSelects(plan: GroupPlan): boolean {
  const g = modelGroup(plan);
  return g.kept !== 0 && g.kept !== g.count;
}

/** Whether a listing of the term can be truncated (a kept die explodes). */
export function termExplodes(plan: GroupPlan): boolean {
  const g = modelGroup(plan);
  return g.die.explode !== 0 && g.kept > 0;
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
  const m = dieMoments(g.die);
  const n = BigInt(g.count);
  const k = BigInt(g.factor);
  const dieMax = die1Max(g.die);
  // Every face can stand (a rerolled one after the last reroll), so a die's least value is 1.
  const low = g.count;
  const high = g.count * dieMax;
  const [meanN, meanD] = lowest(n * k * m.s1, m.s0);
  const [varN, varD] = lowest(n * k * k * (m.s0 * m.s2 - m.s1 * m.s1), m.s0 * m.s0);
  return {
    min: g.factor > 0 ? low * g.factor : high * g.factor,
    max: g.factor > 0 ? high * g.factor : low * g.factor,
    meanN,
    meanD,
    varN,
    varD,
  };
}

/** modelGroup for the tests of later-edition plans (a plan is plain data). */
export const modelGroupForTest = (plan: unknown): unknown => buildModel(plan as GroupPlan);

// --- what the engine knows ----------------------------------------------------------------------

/**
 * A field the engine was not written for is refused unless it holds a neutral value (absent,
 * null, false or an empty list): a later edition may add fields that first-edition formulas
 * leave neutral, and those still mean what the engine computes.
 */
export function checkFields(node: object, known: ReadonlySet<string>, what: string, item = 'formula'): void {
  for (const [key, value] of Object.entries(node)) {
    if (known.has(key)) continue;
    const neutral =
      value === undefined ||
      value === null ||
      value === false ||
      (Array.isArray(value) && value.length === 0);
    if (!neutral) {
      const column = (node as { column?: unknown }).column;
      throw notYetSupported(
        `${what} ${safeName(key)}`,
        item,
        typeof column === 'number' ? column : undefined,
      );
    }
  }
}

/** A node kind for a message: a plain word, or described when it is anything else. */
export const safeName = (kind: unknown): string =>
  typeof kind === 'string' && /^[A-Za-z]{1,30}$/.test(kind) ? kind : '(unnamed)';

function modelGroup(plan: GroupPlan): GroupModel {
  const known = models.get(plan);
  if (known !== undefined) return known;
  const model = buildModel(plan);
  models.set(plan, model);
  return model;
}

/** Plans are immutable: each is modelled (and checked) once. */
const models = new WeakMap<GroupPlan, GroupModel>();

function buildModel(plan: GroupPlan): GroupModel {
  const fields = plan as unknown as Record<string, unknown>;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const meaning = FIRST_EDITION_MEANING[key];
    if (meaning === undefined) rest[key] = value;
    else if (!meaning(fields)) throw notYetSupported(`A dice group's ${key}`);
  }
  checkFields(rest, KNOWN_PLAN_FIELDS, "A dice group's");
  let explode: 0 | 1 | 2;
  switch (plan.explode) {
    case 0:
    case 1:
    case 2:
      explode = plan.explode;
      break;
    default:
      throw notYetSupported('This explosion');
  }
  const { count } = plan;
  let kept: number;
  let highest = true;
  switch (plan.keep) {
    case KeepRule.All:
      kept = count;
      break;
    case KeepRule.KeepHighest:
      kept = Math.min(plan.keepAmount, count);
      break;
    case KeepRule.KeepLowest:
      kept = Math.min(plan.keepAmount, count);
      highest = false;
      break;
    case KeepRule.DropHighest:
      kept = Math.max(count - plan.keepAmount, 0);
      highest = false;
      break;
    case KeepRule.DropLowest:
      kept = Math.max(count - plan.keepAmount, 0);
      break;
    default:
      throw notYetSupported('This keep or drop');
  }
  return {
    die: {
      sides: plan.sides,
      explode,
      rerollLimit: plan.rerollLimit,
      rerollLow: plan.rerollLow,
      rerollHigh: plan.rerollHigh,
    },
    count,
    kept,
    highest,
    factor: plan.sign * plan.multiplier,
  };
}

// --- planning: depth, size and cost before any work -------------------------------------------

/** The least depth whose unlisted mass (estimated in doubles) is below the threshold, at most the cap. */
export function autoDepth(plans: readonly GroupPlan[]): number {
  const groups = plans.map(modelGroup);
  const exploding = groups.filter((g) => g.die.explode !== 0 && g.kept > 0);
  for (let depth = 0; depth < LIMITS.explodeCap; depth++) {
    let tail = 0;
    for (const g of exploding) {
      tail += g.count * Math.exp(Math.log(topFaceProbability(g.die)) - depth * Math.log(g.die.sides));
    }
    if (tail < LIMITS.statsTailBelow) return depth;
  }
  return LIMITS.explodeCap;
}

/** Highest value a listed die can take, minus the lowest (1). */
function dieSpan(die: DieSpec, depth: number): number {
  if (die.explode === 0) return die.sides - 1;
  const extras = Math.min(depth, LIMITS.explodeCap);
  return extras === 0 ? die.sides - 2 : extras * die.sides + die.sides - 1;
}

/** How many totals the listing could have (an upper bound: the span of each group, added). */
export function listedSupport(plans: readonly GroupPlan[], depth: number): number {
  const groups = plans.map(modelGroup);
  let step = 0;
  let span = 0;
  for (const g of groups) {
    const groupSpan = g.kept * dieSpan(g.die, depth);
    if (groupSpan === 0) continue;
    step = Number(gcd(BigInt(step), BigInt(g.factor)));
    span += groupSpan * Math.abs(g.factor);
  }
  return step === 0 ? 1 : span / step + 1;
}

/**
 * Bounds of one term's listed distribution, before computing it (for the expression engine's
 * estimates, src/stats/expression.ts): least and greatest value, values at most, bits of a count.
 */
export function termBounds(
  plan: GroupPlan,
  depth: number,
): { low: number; high: number; size: number; bits: number } {
  const g = modelGroup(plan);
  if (g.kept === 0) return { low: 0, high: 0, size: 1, bits: 1 };
  const span = dieSpan(g.die, depth);
  const ends = [g.kept * g.factor, g.kept * (1 + span) * g.factor];
  return {
    low: Math.min(...ends),
    high: Math.max(...ends),
    size: g.kept * span + 1,
    bits: g.count * dieBits(g.die, depth) + g.count + 8,
  };
}

/** Bits of one die's denominator (before the reduction dieCounts may find). */
function dieBits(die: DieSpec, depth: number): number {
  const levels = die.rerollLimit + 1 + (die.explode === 0 ? 0 : Math.min(depth, LIMITS.explodeCap));
  return levels * Math.log2(die.sides) + 1;
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
  for (const g of groups) {
    if (g.kept === 0) continue;
    const span = dieSpan(g.die, depth);
    const bits = dieBits(g.die, depth);
    const slots = g.kept * span + 1;
    const slotBits = g.count * bits + g.count + 8;
    if (g.kept < g.count) {
      // Per outcome walked: k(k+1)/2 products by small scalars, k by the closing sums (n dice).
      const width = words((slots * slotBits) / 2);
      const small = ((g.kept * (g.kept + 1)) / 2) * width * words(g.kept * bits);
      cost += (span + 1) * (small + g.kept * width * words(g.count * bits));
    } else if (g.die.explode !== 0 && rerolledFaces(g.die) === 0 && depth < LIMITS.explodeCap) {
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

function groupDistribution(group: GroupModel, depth: number): TermDistribution {
  const { count, kept } = group;
  if (kept === 0) return { min: 0, step: 1, counts: [1n], tail: 0n, denominator: 1n };
  const { die: spec } = group;
  if (kept === count && spec.explode !== 0 && rerolledFaces(spec) === 0 && depth < LIMITS.explodeCap) {
    const sum = explodingSum(spec.sides, spec.explode === 2, depth, count);
    const tail = sum.denominator - total(sum.counts);
    return scaleDistribution(
      { min: sum.min, step: 1, counts: sum.counts, tail, denominator: sum.denominator },
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
    ({ min, counts } = keepDistribution(die, count, kept, group.highest));
  }
  return scaleDistribution(
    { min, step: 1, counts, tail: denominator - total(counts), denominator },
    group.factor,
  );
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

/** The greatest value of one die's whole chain. */
function die1Max(die: DieSpec): number {
  if (die.explode === 0) return die.sides;
  const penalty = die.explode === 2 ? 1 : 0;
  return die.sides + LIMITS.explodeCap * (die.sides - penalty);
}
