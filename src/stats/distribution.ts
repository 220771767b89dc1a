// The exact distribution of a roll's `total` (docs/stats.md): the request is prepared exactly as
// /v1/roll prepares it, every construct is checked to be one the engine knows, the cost is
// estimated before any work, and the answer is built from integer counts over one denominator.
// Pure: no HTTP, no tRPC, no worker; src/stats/pool.ts runs it off the event loop.

import { RequestError } from '../errors.js';
import type { DiceModifier, ExpressionNode, FormulaNode, GroupModifier } from '../formula/ast.js';
import { parseFormula, parseFragment } from '../formula/parse.js';
import { LIMITS } from '../limits.js';
import { type GroupPlan, KeepRule, type PreparedRoll, prepareRoll } from '../roll/prepare.js';
import type { AdvantageState, RollRequest } from '../roll/types.js';
import {
  type DieSpec,
  dieCounts,
  explodingSum,
  finalThrowWeights,
  isRerolled,
  rerolledFaces,
  topFaceProbability,
} from './die.js';
import { notYetSupported, TooComplexError } from './errors.js';
import { bitLength, fraction, gcd, ratioToNumber } from './exact.js';
import { type ExpressionPlan, planExpression, type TermEngine, totalDistribution } from './expression.js';
import { keepDistribution } from './keep.js';
import { multiply, power, total } from './poly.js';

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

/** A distribution over `min + i * step`, with the mass not listed as `tail`. */
interface Distribution {
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

const KNOWN_PREPARED_FIELDS = new Set([
  'formula',
  'groups',
  'modifiers',
  'modifier',
  'advantageState',
  'tag',
  'diceCount',
  'deprecations',
  // Formulas with arithmetic or groups: src/stats/expression.ts evaluates the tree.
  'arithmetic',
]);

/**
 * The exact distribution of the `total` that /v1/roll returns for `request`. Throws the errors
 * prepareRoll throws (invalid_formula, invalid_request), FormulaError for a construct not yet
 * supported, and TooComplexError when the answer would cost more than the budget.
 */
export function distribution(request: StatsRequest, options?: StatsOptions): StatsResponse {
  const plan = planDistribution(request, options);
  const { prepared, groups, depth } = plan;
  const base = { formula: prepared.formula, advantageState: prepared.advantageState };
  const exploding = groups.some((g) => g.die.explode !== 0 && g.kept > 0);
  if (prepared.arithmetic !== undefined) {
    const totals = totalDistribution(prepared.arithmetic, termEngine(groups, depth));
    return {
      ...base,
      ...describeTotals(totals, exploding && totals.tail > 0n ? depth : undefined),
    };
  }
  if (plan.summaryOnly) return { ...base, ...summary(groups, prepared.modifier) };
  let result: Distribution = { min: prepared.modifier, step: 1, counts: [1n], tail: 0n, denominator: 1n };
  for (const group of groups) result = add(result, groupDistribution(group, depth));
  return { ...base, ...describe(result, exploding && result.tail > 0n ? depth : undefined) };
}

/**
 * Every check distribution() makes before it computes anything (the roll rules, the constructs,
 * the size and the cost), without the work: it throws exactly what distribution() would throw
 * before computing. The service calls it on the event loop, so only valid work reaches a worker.
 */
export function checkDistribution(request: StatsRequest, options?: StatsOptions): void {
  planDistribution(request, options);
}

interface Plan {
  prepared: PreparedRoll;
  groups: GroupModel[];
  depth: number;
  summaryOnly: boolean;
  /** For a formula with arithmetic or groups: its estimate (src/stats/expression.ts). */
  expression?: ExpressionPlan;
}

function planDistribution(request: StatsRequest, options?: StatsOptions): Plan {
  const prepared = prepareRoll(request, { dicePerRoll: options?.dicePerRoll });
  checkSupported(request);
  const groups = modelGroups(prepared);
  const depth = request.depth ?? autoDepth(groups);
  if (!Number.isInteger(depth) || depth < 0 || depth > LIMITS.explodeCap) {
    throw new RequestError(`depth must be an integer from 0 to ${LIMITS.explodeCap}.`);
  }
  if (prepared.arithmetic !== undefined) {
    const expression = planExpression(
      prepared.arithmetic,
      termEngine(groups, depth),
      options?.costBudget ?? LIMITS.statsCostBudget,
      options?.outcomesMax ?? LIMITS.statsOutcomesMax,
    );
    return { prepared, groups, depth, summaryOnly: false, expression };
  }
  if (listedSupport(groups, depth) > (options?.outcomesMax ?? LIMITS.statsOutcomesMax)) {
    if (groups.some((g) => g.kept !== 0 && g.kept !== g.count)) {
      throw new TooComplexError(
        'This formula has too many possible totals to list, and its keep or drop has no exact summary.',
      );
    }
    return { prepared, groups, depth, summaryOnly: true };
  }
  const budget = options?.costBudget ?? LIMITS.statsCostBudget;
  const cost = estimateCost(groups, depth);
  if (cost > budget) {
    throw new TooComplexError(
      `This formula's exact distribution would take about ${formatCost(cost)} units of work; the limit is ${formatCost(budget)}.`,
    );
  }
  return { prepared, groups, depth, summaryOnly: false };
}

// --- what the engine knows -------------------------------------------------------------------

/**
 * Refuses anything the engine was not written for: every node and modifier of the request is
 * matched against the ones it knows, so a construct added to the language later gets a clear
 * 400 here instead of a wrong distribution.
 */
function checkSupported(request: StatsRequest): void {
  checkFormulaNode(parseFormula(request.formula, { tags: request.tags }), 'formula');
  const bonuses = request.bonuses ?? [];
  for (let i = 0; i < bonuses.length; i++) {
    const bonus = bonuses[i];
    if (typeof bonus === 'string')
      checkFormulaNode(parseFragment(bonus, { item: `bonuses[${i}]` }), `bonuses[${i}]`);
  }
}

/** Throws "… is not yet supported by /v1/stats" for any node or modifier the engine does not know. */
export function checkFormulaNode(node: FormulaNode, item: string): void {
  const terms = (node as { terms?: unknown }).terms;
  if (node.kind !== 'formula' || !Array.isArray(terms)) throw notYetSupported('This kind of formula', item);
  checkFields(node, FORMULA_FIELDS, "A formula's", item);
  for (const term of node.terms) {
    switch (term.kind) {
      case 'flat':
        checkFields(term, FLAT_FIELDS, 'A number term with', item);
        break;
      case 'dice':
        checkFields(term, DICE_FIELDS, 'A dice term with', item);
        for (const modifier of term.modifiers) {
          switch (modifier.kind) {
            case 'keep':
            case 'drop':
            case 'advantage':
            case 'explode':
            case 'reroll':
            case 'multiply':
              checkFields(
                modifier,
                MODIFIER_FIELDS[modifier.kind] ?? new Set<string>(),
                `The modifier ${modifier.kind} with`,
                item,
              );
              break;
            default:
              throw notYetSupported(
                `The modifier ${safeName((modifier as { kind: unknown }).kind)}`,
                item,
                (modifier as { column?: number }).column,
              );
          }
        }
        break;
      case 'sum':
      case 'product':
      case 'power':
      case 'negate':
      case 'call':
      case 'group':
        checkExpressionNode(term, item);
        break;
      default:
        throw notYetSupported(
          `A term of kind ${safeName((term as { kind: unknown }).kind)}`,
          item,
          (term as { column?: number }).column,
        );
    }
  }
}

/**
 * The nodes of arithmetic and groups (src/stats/expression.ts computes them): each node's
 * fields are checked as the terms' are, and every dice or number term inside is checked as a
 * term of a formula.
 */
function checkExpressionNode(node: ExpressionNode, item: string): void {
  if (node.kind === 'dice' || node.kind === 'flat') {
    checkFormulaNode({ kind: 'formula', terms: [node], tag: null }, item);
    return;
  }
  const fields = EXPRESSION_FIELDS[node.kind];
  if (fields === undefined) {
    throw notYetSupported(
      `A term of kind ${safeName((node as { kind: unknown }).kind)}`,
      item,
      (node as { column?: number }).column,
    );
  }
  checkFields(node, fields, `A ${node.kind} with`, item);
  switch (node.kind) {
    case 'sum':
      for (const term of node.terms) checkExpressionNode(term, item);
      return;
    case 'product':
      if (!['*', '/', '%'].includes(node.operator))
        throw notYetSupported(`The operator ${safeName(node.operator)}`, item, node.column);
      checkExpressionNode(node.left, item);
      checkExpressionNode(node.right, item);
      return;
    case 'power':
      checkExpressionNode(node.base, item);
      checkExpressionNode(node.exponent, item);
      return;
    case 'negate':
      checkExpressionNode(node.operand, item);
      return;
    case 'call':
      if (!FUNCTIONS.has(node.name))
        throw notYetSupported(`The function ${safeName(node.name)}`, item, node.column);
      for (const argument of node.arguments) checkExpressionNode(argument, item);
      return;
    case 'group':
      for (const modifier of node.modifiers) {
        const known = GROUP_MODIFIER_FIELDS[modifier.kind];
        if (known === undefined) {
          throw notYetSupported(
            `The group modifier ${safeName((modifier as { kind: unknown }).kind)}`,
            item,
            (modifier as { column?: number }).column,
          );
        }
        checkFields(modifier, known, `The group modifier ${modifier.kind} with`, item);
      }
      for (const groupItem of node.items) checkExpressionNode(groupItem, item);
      return;
  }
}

const FUNCTIONS = new Set(['floor', 'ceil', 'round', 'abs', 'min', 'max']);
const EXPRESSION_FIELDS: Partial<Record<ExpressionNode['kind'], ReadonlySet<string>>> = {
  sum: new Set(['kind', 'terms', 'column']),
  product: new Set(['kind', 'operator', 'left', 'right', 'column']),
  power: new Set(['kind', 'base', 'exponent', 'column']),
  negate: new Set(['kind', 'operand', 'column']),
  call: new Set(['kind', 'name', 'arguments', 'column']),
  // A label names a group in the response; it does not change the total.
  group: new Set(['kind', 'items', 'modifiers', 'label', 'column']),
};
const GROUP_MODIFIER_FIELDS: Partial<Record<GroupModifier['kind'], ReadonlySet<string>>> = {
  keep: new Set(['kind', 'mode', 'amount', 'column']),
  drop: new Set(['kind', 'mode', 'amount', 'column']),
  success: new Set(['kind', 'compare', 'column']),
  failure: new Set(['kind', 'compare', 'column']),
};

const FORMULA_FIELDS = new Set(['kind', 'terms', 'tag']);
const FLAT_FIELDS = new Set(['kind', 'sign', 'value', 'column']);
const DICE_FIELDS = new Set([
  'kind',
  'sign',
  'count',
  'countWritten',
  'sides',
  'percentile',
  'modifiers',
  'column',
  'sidesColumn',
  // Computed counts and sides (`(4-2)d10`, `3d(2*6)`): constants the parser evaluated into
  // count and sides, which the engine reads.
  'countExpression',
  'sidesExpression',
  // A label names a term in the response; it does not change the total.
  'label',
]);
const MODIFIER_FIELDS: Partial<Record<DiceModifier['kind'], ReadonlySet<string>>> = {
  keep: new Set(['kind', 'mode', 'amount', 'column']),
  drop: new Set(['kind', 'mode', 'amount', 'column']),
  advantage: new Set(['kind', 'mode', 'column']),
  explode: new Set(['kind', 'penetrate', 'column']),
  reroll: new Set(['kind', 'once', 'compare', 'column']),
  multiply: new Set(['kind', 'factor', 'column']),
};

/**
 * A field the engine was not written for is refused unless it holds a neutral value (absent,
 * null, false or an empty list): a later edition may add fields that first-edition formulas
 * leave neutral, and those still mean what the engine computes.
 */
function checkFields(node: object, known: ReadonlySet<string>, what: string, item = 'formula'): void {
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
const safeName = (kind: unknown): string =>
  typeof kind === 'string' && /^[A-Za-z]{1,30}$/.test(kind) ? kind : '(unnamed)';

function modelGroups(prepared: PreparedRoll): GroupModel[] {
  checkFields(prepared, KNOWN_PREPARED_FIELDS, "A roll's");
  return prepared.groups.map(modelGroup);
}

/** The per-term engine for src/stats/expression.ts: each dice term as this module computes it. */
function termEngine(groups: readonly GroupModel[], depth: number): TermEngine {
  return {
    estimate(index) {
      const g = groups[index]!;
      if (g.kept === 0) return { low: 0, high: 0, size: 1, bits: 1, cost: 0 };
      const span = dieSpan(g.die, depth);
      const ends = [g.kept * g.factor, g.kept * (1 + span) * g.factor];
      return {
        low: Math.min(...ends),
        high: Math.max(...ends),
        size: g.kept * span + 1,
        bits: g.count * dieBits(g.die, depth) + g.count + 8,
        cost: estimateCost([g], depth),
      };
    },
    distribution: (index) => groupDistribution(groups[index]!, depth),
  };
}

function modelGroup(plan: GroupPlan): GroupModel {
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
function autoDepth(groups: readonly GroupModel[]): number {
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
function listedSupport(groups: readonly GroupModel[], depth: number): number {
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
function estimateCost(groups: readonly GroupModel[], depth: number): number {
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

function formatCost(cost: number): string {
  return cost.toExponential(1).replace('e+', 'e');
}

// --- computing ---------------------------------------------------------------------------------

function groupDistribution(group: GroupModel, depth: number): Distribution {
  const { count, kept } = group;
  if (kept === 0) return { min: 0, step: 1, counts: [1n], tail: 0n, denominator: 1n };
  const { die: spec } = group;
  if (kept === count && spec.explode !== 0 && rerolledFaces(spec) === 0 && depth < LIMITS.explodeCap) {
    const sum = explodingSum(spec.sides, spec.explode === 2, depth, count);
    const tail = sum.denominator - total(sum.counts);
    return scale(
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
  return scale({ min, step: 1, counts, tail: denominator - total(counts), denominator }, group.factor);
}

/** The distribution of factor * X (factor a non-zero integer). */
function scale(d: Distribution, factor: number): Distribution {
  const trimmed = trimDistribution(d);
  const step = trimmed.counts.length > 1 ? trimmed.step * Math.abs(factor) : 1;
  if (factor > 0) return { ...trimmed, min: trimmed.min * factor, step };
  const last = trimmed.min + (trimmed.counts.length - 1) * trimmed.step;
  return { ...trimmed, min: last * factor, step, counts: trimmed.counts.slice().reverse() };
}

function trimDistribution(d: Distribution): Distribution {
  let first = 0;
  while (first < d.counts.length - 1 && d.counts[first] === 0n) first++;
  let last = d.counts.length - 1;
  while (last > first && d.counts[last] === 0n) last--;
  if (first === 0 && last === d.counts.length - 1) return d;
  return { ...d, min: d.min + first * d.step, counts: d.counts.slice(first, last + 1) };
}

/** Spreads counts onto a finer step (a divisor of the current one), zeros between. */
function refine(d: Distribution, step: number): bigint[] {
  if (d.step === step || d.counts.length === 1) return d.counts;
  const ratio = d.step / step;
  const counts: bigint[] = new Array((d.counts.length - 1) * ratio + 1).fill(0n);
  for (let i = 0; i < d.counts.length; i++) counts[i * ratio] = d.counts[i]!;
  return counts;
}

/** The distribution of the sum of two independent parts. */
function add(a: Distribution, b: Distribution): Distribution {
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

// --- the answer --------------------------------------------------------------------------------

function describe(
  d: Distribution,
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
  let sum = 0n;
  let sumSquares = 0n;
  const counts: bigint[] = [];
  const outcomes: StatsOutcome[] = [];
  let below = 0n;
  const percentiles: Record<string, number> = {};
  let nextPercentile = 0;
  // Decimal digits of the counts, from each count's probability (log10 count = log10
  // denominator + log10 p), plus the JSON around each count: only the threshold needs it.
  const denominatorDigits = bitLength(d.denominator) * Math.log10(2);
  let countBytes = 0;
  for (let i = 0; i < d.counts.length; i++) {
    const count = d.counts[i]!;
    const t = d.totals[i]!;
    // The roller's total is the nearest double too (exact up to 2^53).
    const value = Number(t);
    sum += t * count;
    sumSquares += t * t * count;
    const atLeast = ratioToNumber(listedMass - below, d.denominator);
    below += count;
    const probability = ratioToNumber(count, d.denominator);
    countBytes += 12 + Math.max(1, denominatorDigits + Math.log10(probability || 5e-324));
    counts.push(count);
    outcomes.push({ total: value, probability, atLeast, atMost: ratioToNumber(below, d.denominator) });
    // The q-th percentile: the least total t with P(total <= t) >= q%, among the listed rolls.
    while (
      nextPercentile < PERCENTILES.length &&
      100n * below >= BigInt(PERCENTILES[nextPercentile]!) * listedMass
    ) {
      percentiles[PERCENTILES[nextPercentile]!] = value;
      nextPercentile++;
    }
  }
  const listing: StatsListing = countBytes > LIMITS.statsCountsBytes ? 'probabilities' : 'full';
  if (listing === 'full') {
    for (let i = 0; i < outcomes.length; i++) {
      const { total: value, ...rest } = outcomes[i]!;
      outcomes[i] = { total: value, count: counts[i]!.toString(), ...rest };
    }
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

/** min, max, exact mean and variance without listing: for sums of dice (no keep or drop). */
function summary(
  groups: readonly GroupModel[],
  modifier: number,
): Omit<StatsResponse, 'formula' | 'advantageState'> {
  // mean = meanN / meanD, variance = varN / varD, accumulated as exact fractions.
  let meanN = BigInt(modifier);
  let meanD = 1n;
  let varN = 0n;
  let varD = 1n;
  let min = modifier;
  let max = modifier;
  for (const g of groups) {
    // planDistribution sends only sums here: every group keeps all its dice or none.
    if (g.kept === 0) continue;
    const m = dieMoments(g.die);
    const n = BigInt(g.count);
    const k = BigInt(g.factor);
    // Group mean n*k*s1/s0; variance n*k^2*(s0*s2 - s1^2)/s0^2.
    meanN = meanN * m.s0 + n * k * m.s1 * meanD;
    meanD *= m.s0;
    varN = varN * m.s0 * m.s0 + n * k * k * (m.s0 * m.s2 - m.s1 * m.s1) * varD;
    varD *= m.s0 * m.s0;
    [meanN, meanD] = lowest(meanN, meanD);
    [varN, varD] = lowest(varN, varD);
    const dieMax = die1Max(g.die);
    // Every face can stand (a rerolled one after the last reroll), so a die's least value is 1.
    const low = g.count;
    const high = g.count * dieMax;
    min += g.factor > 0 ? low * g.factor : high * g.factor;
    max += g.factor > 0 ? high * g.factor : low * g.factor;
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

function lowest(n: bigint, d: bigint): [bigint, bigint] {
  const g = gcd(n, d);
  return g > 1n ? [n / g, d / g] : [n, d];
}

/** The greatest value of one die's whole chain. */
function die1Max(die: DieSpec): number {
  if (die.explode === 0) return die.sides;
  const penalty = die.explode === 2 ? 1 : 0;
  return die.sides + LIMITS.explodeCap * (die.sides - penalty);
}

/** modelGroup for the tests of later-edition plans (a plan is plain data). */
export const modelGroupForTest = (plan: unknown): unknown => modelGroup(plan as GroupPlan);
