// The exact distribution of a roll's `total` (docs/stats.md): the request is prepared exactly as
// /v1/roll prepares it, every construct is checked to be one the engine knows, the cost is
// estimated before any work, and the answer is built from integer counts over one denominator.
// Pure: no HTTP, no tRPC, no worker; src/api/stats-worker.ts runs it off the event loop.

import { FormulaError, RequestError } from '../errors.js';
import type { DiceModifier, ExpressionNode, FormulaNode, GroupModifier } from '../formula/ast.js';
import { parseFormula, parseFragment } from '../formula/parse.js';
import { LIMITS } from '../limits.js';
import { type GroupPlan, type PreparedRoll, prepareRoll } from '../roll/prepare.js';
import type { AdvantageState, RollRequest } from '../roll/types.js';
import { notYetSupported, TooComplexError } from './errors.js';
import { bitLength, fraction, ratiosOver, ratioToNumber } from './exact.js';
import { type ExpressionPlan, planExpression, type TermEngine, totalDistribution } from './expression.js';
import {
  addDistributions,
  autoDepth,
  checkFields,
  checkTerm,
  estimateCost,
  formatCost,
  listedSupport,
  lowest,
  poolDistribution,
  safeName,
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
  const exploding = groups.some(termExplodes);
  if (prepared.arithmetic !== undefined) {
    const totals = totalDistribution(prepared.arithmetic, termEngine(groups, depth));
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
  expression?: ExpressionPlan;
}

function planDistribution(request: StatsRequest, options?: StatsOptions): Plan {
  const prepared = prepareRoll(request, { dicePerRoll: options?.dicePerRoll });
  checkSupported(request);
  const groups = checkGroups(prepared);
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
            case 'clamp':
            case 'success':
            case 'failure':
            case 'critical':
            case 'unique':
            case 'match':
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
  const lists =
    { sum: ['terms'], call: ['arguments'], group: ['items', 'modifiers'] }[node.kind as string] ?? [];
  for (const list of lists) {
    if (!Array.isArray((node as unknown as Record<string, unknown>)[list])) {
      throw notYetSupported(`A ${node.kind} without ${list}`, item, node.column);
    }
  }
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
  // Fate and custom dice: their faces are modelled die by die.
  'faces',
  'fate',
  // A label names a term in the response; it does not change the total.
  'label',
]);
const MODIFIER_FIELDS: Partial<Record<DiceModifier['kind'], ReadonlySet<string>>> = {
  keep: new Set(['kind', 'mode', 'amount', 'column']),
  drop: new Set(['kind', 'mode', 'amount', 'column']),
  advantage: new Set(['kind', 'mode', 'column']),
  explode: new Set(['kind', 'penetrate', 'compound', 'compare', 'column']),
  reroll: new Set(['kind', 'once', 'compare', 'column']),
  multiply: new Set(['kind', 'factor', 'column']),
  clamp: new Set(['kind', 'bound', 'value', 'column']),
  success: new Set(['kind', 'compare', 'column']),
  failure: new Set(['kind', 'compare', 'column']),
  // Crit ranges only set the naturals the response shows, never the total.
  critical: new Set(['kind', 'range', 'compare', 'column']),
  // Refused with their reason when the term is modelled (src/stats/term.ts).
  unique: new Set(['kind', 'once', 'compare', 'column']),
  match: new Set(['kind', 'total', 'amount', 'column']),
};

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

function checkGroups(prepared: PreparedRoll): readonly GroupPlan[] {
  checkFields(prepared, KNOWN_PREPARED_FIELDS, "A roll's");
  const groups = prepared.groups.map(withoutPlainMatch);
  for (const plan of groups) {
    try {
      checkTerm(plan);
    } catch (error) {
      if (plan.match?.total === true && error instanceof FormulaError) {
        throw new FormulaError(
          'Matching sets as the total (mt) are not computed by /v1/stats: that total counts the values shown by several dice, which this engine does not track (m alone leaves the total unchanged and is answered).',
          'formula',
          undefined,
        );
      }
      if (!(error instanceof TooComplexError)) throw error;
      // A refusal by the shape of a die (its sides) names the figure it was refused for.
      throw new TooComplexError(`${error.message} This formula has dice of ${plan.sides} sides.`);
    }
  }
  return groups;
}

/**
 * `m` only lists the matching sets; the total is the term's as if `m` were not written
 * (docs/language.md), so its distribution is the plain term's. `mt` makes the number of sets the
 * total, and stays refused.
 */
function withoutPlainMatch(plan: GroupPlan): GroupPlan {
  if (plan.match === undefined || plan.match.total) return plan;
  const { match: _listedOnly, ...rest } = plan;
  return rest;
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

/** modelGroup for the tests of later-edition plans (a plan is plain data). */
export { modelGroupForTest } from './term.js';
