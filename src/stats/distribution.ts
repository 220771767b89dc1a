// The exact distribution of a roll's `total` (docs/stats.md): the request is prepared exactly as
// /v1/roll prepares it, every construct is checked to be one the engine knows, the cost is
// estimated before any work, and the answer is built from integer counts over one denominator.
// Pure: no HTTP, no tRPC, no worker; src/stats/pool.ts runs it off the event loop.

import { RequestError } from '../errors.js';
import type { DiceModifier, FormulaNode } from '../formula/ast.js';
import { isPool, parseFormula, parseFragment } from '../formula/parse.js';
import { LIMITS } from '../limits.js';
import { type GroupPlan, type PreparedRoll, prepareRoll } from '../roll/prepare.js';
import type { AdvantageState, RollRequest } from '../roll/types.js';
import { notYetSupported, TooComplexError } from './errors.js';
import { bitLength, fraction, ratioToNumber } from './exact.js';
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
  // Present for pool groups; checkSupported admits no other arithmetic, so the total is their sum.
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
  if (plan.summaryOnly) return { ...base, ...summary(groups, prepared.modifier) };
  let result: TermDistribution = { min: prepared.modifier, step: 1, counts: [1n], tail: 0n, denominator: 1n };
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!;
    if (group.pool === undefined) {
      result = addDistributions(result, termDistribution(group, depth));
    } else {
      // A pool group's terms are kept together (they are consecutive in written order).
      const members = groups.slice(g, g + group.pool.size);
      result = addDistributions(result, poolDistribution(members, group.pool, depth));
      g += group.pool.size - 1;
    }
  }
  const exploding = groups.some(termExplodes);
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
  groups: readonly GroupPlan[];
  depth: number;
  summaryOnly: boolean;
}

function planDistribution(request: StatsRequest, options?: StatsOptions): Plan {
  const prepared = prepareRoll(request, { dicePerRoll: options?.dicePerRoll });
  checkSupported(request);
  const groups = checkGroups(prepared);
  const depth = request.depth ?? autoDepth(groups);
  if (!Number.isInteger(depth) || depth < 0 || depth > LIMITS.explodeCap) {
    throw new RequestError(`depth must be an integer from 0 to ${LIMITS.explodeCap}.`);
  }
  if (listedSupport(groups, depth) > (options?.outcomesMax ?? LIMITS.statsOutcomesMax)) {
    if (groups.some(termSelects)) {
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
      case 'group':
        // A pool group (`{4d6+3d8}kh3`): its keep/drop and counting act on every die inside.
        if (!Array.isArray((term as { items?: unknown }).items) || !isPool(term)) {
          throw notYetSupported('A group of several items', item, term.column);
        }
        checkFields(term, GROUP_FIELDS, 'A pool group with', item);
        checkFormulaNode({ kind: 'formula', terms: term.items[0]!.terms, tag: null }, item);
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
const GROUP_FIELDS = new Set(['kind', 'items', 'modifiers', 'column', 'label']);

function checkGroups(prepared: PreparedRoll): readonly GroupPlan[] {
  checkFields(prepared, KNOWN_PREPARED_FIELDS, "A roll's");
  for (const plan of prepared.groups) checkTerm(plan);
  return prepared.groups;
}

// --- the answer --------------------------------------------------------------------------------

function describe(
  d: TermDistribution,
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
    if (count === 0n) continue;
    const value = d.min + i * d.step;
    const t = BigInt(value);
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
