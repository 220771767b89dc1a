// A request -> its roll plan (src/formula/plan.ts): parses the formula and every bonus (through
// the parse cache), applies the request's advantage, enforces the per-roll dice limit, and turns
// each dice term into the rules its dice follow, in written order. Nothing is rolled: the plan
// is what the roller (src/roll/roll.ts) and the exact distribution engine (src/stats) read, and
// the service checks a batch's budget from its dice count.

import { ADVANTAGE_STATES, type AdvantageState } from '@fairdice/client/types';
import { FormulaError, RequestError } from '../errors.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import type { AdvantageModifier, DiceNode, FormulaNode, GroupNode } from './ast.js';
import { deepFreeze, type ParseCache, parseCache } from './cache.js';
import { clampBounds, compareBounds, explodePoint, faceBounds } from './compare.js';
import { compileTerms, type DiceSlots, keepPlan } from './expression.js';
import { formatInteger } from './messages.js';
import type {
  Deprecation,
  ExpressionPlan,
  GroupPlan,
  KeepPlan,
  ModifierPlan,
  PoolPlan,
  PreparedRoll,
  RollRequest,
  ValueRange,
} from './plan.js';
import { KeepRule, unhandledKind } from './plan.js';
import { forEachDice, poolTerms, usesArithmetic } from './walk.js';

export interface PrepareOptions {
  /** The per-roll dice limit (default LIMITS.dicePerRoll; the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** Where parsed formulas are kept (default: the shared `parseCache`; `maxEntries: 0` parses every time). */
  parseCache?: ParseCache | undefined;
}

const NO_BONUSES: NonNullable<RollRequest['bonuses']> = Object.freeze([]);

const ADVANTAGE_DEPRECATION =
  'The form 1d20adv (adv or dis on a single die) is deprecated: it still throws two dice; write 2d20adv.';

/** A parsed formula or bonus fragment, and which item of the request it is. */
interface Fragment {
  readonly node: FormulaNode;
  readonly item: string;
}

/**
 * Checks a request against every rule of docs/language.md and builds its roll plan. Throws
 * FormulaError (invalid_formula) or RequestError (invalid_request); never rolls.
 */
export function prepareRoll(request: RollRequest, options?: PrepareOptions): PreparedRoll {
  if (typeof request.formula !== 'string') throw new RequestError('The formula must be a string.');
  const advantage = request.advantage ?? 'normal';
  if (!ADVANTAGE_STATES.includes(advantage)) {
    throw new RequestError('advantage must be normal, advantage or disadvantage.');
  }
  const tags = request.tags;
  if (tags !== undefined) checkTags(tags);
  const bonuses = request.bonuses ?? NO_BONUSES;
  if (bonuses.length > LIMITS.bonusesPerRoll) {
    throw new RequestError(`A roll takes at most ${LIMITS.bonusesPerRoll} bonuses.`);
  }

  const cache = options?.parseCache ?? parseCache;
  const formula = cache.formula(request.formula, { tags });
  // A formula from the parse cache (frozen, shared by every request with its text and tags),
  // rolled as written, always gets the same plan: it is built once and shared too.
  const asWritten = bonuses.length === 0 && advantage === 'normal';
  if (asWritten) {
    // Only a cached (frozen) formula has a plan here: no need to ask V8 whether it is frozen.
    const known = plansOfCachedFormulas.get(formula);
    if (known !== undefined) {
      checkDicePerRoll(known.diceCount, options);
      return known;
    }
  }
  const fragments: Fragment[] = [{ node: formula, item: 'formula' }];
  // Each bonus in order: an integer's value, or undefined for a fragment (the next of `fragments`).
  const bonusValues: Array<number | undefined> = [];
  const modifiers: number[] = [];
  pushFlats(formula, modifiers);
  for (let i = 0; i < bonuses.length; i++) {
    const bonus = bonuses[i];
    const item = `bonuses[${i}]`;
    if (typeof bonus === 'number') {
      if (!Number.isInteger(bonus)) throw new RequestError(`${item} must be an integer or a string.`);
      if (Math.abs(bonus) > LIMITS.flatMaxAbs) {
        throw new FormulaError(
          `An integer bonus is at most ${formatInteger(LIMITS.flatMaxAbs)} in absolute value.`,
          item,
          undefined,
        );
      }
      modifiers.push(bonus === 0 ? 0 : bonus);
      bonusValues.push(bonus === 0 ? 0 : bonus);
    } else if (typeof bonus === 'string') {
      const fragment = { node: cache.fragment(bonus, { item }), item };
      fragments.push(fragment);
      bonusValues.push(undefined);
      pushFlats(fragment.node, modifiers);
    } else {
      throw new RequestError(`${item} must be an integer or a string.`);
    }
  }

  // Every dice term in written order (formula, then bonuses), with its pool group if any.
  const arithmetic = fragments.some(({ node }) => usesArithmetic(node));
  const terms: Array<{ term: DiceNode; pool: GroupNode | undefined; item: string }> = [];
  for (const { node, item } of fragments) {
    if (arithmetic) forEachDice(node.terms, (term, pool) => terms.push({ term, pool, item }));
    // A plain sum: its dice terms are its own terms.
    else for (const term of node.terms) if (term.kind === 'dice') terms.push({ term, pool: undefined, item });
  }

  // At most one adv/dis term in the whole roll, and never together with the advantage field.
  let advantageTerm: DiceNode | undefined;
  let advantageModifier: AdvantageModifier | undefined;
  for (const { term, item } of terms) {
    const modifier = term.modifiers.find((m): m is AdvantageModifier => m.kind === 'advantage');
    if (modifier === undefined) continue;
    if (advantageTerm !== undefined) {
      throw new FormulaError('A roll may have only one adv or dis term.', item, modifier.column);
    }
    advantageTerm = term;
    advantageModifier = modifier;
  }
  if (advantageTerm !== undefined && advantage !== 'normal') {
    throw new RequestError(
      'The formula has an adv or dis term, so advantage must be normal: net advantage and disadvantage into one.',
    );
  }

  // The request's advantage goes to the first plain d20 of the formula itself, wherever it
  // stands in written order; a pool group's terms are kept by their group, so none is plain.
  let advantaged: DiceNode | undefined;
  if (advantage !== 'normal') {
    advantaged = terms.find(
      ({ term, pool, item }) =>
        item === 'formula' &&
        pool === undefined &&
        term.sides === 20 &&
        term.faces === undefined &&
        !term.modifiers.some((m) => m.kind === 'keep' || m.kind === 'drop' || m.kind === 'advantage'),
    )?.term;
  }

  // Every dice term planned in written order: its index in `groups` is its place in that order.
  const groups: GroupPlan[] = [];
  const deprecations: Deprecation[] = [];
  let diceCount = 0;
  let item = 'formula';
  const plan = (term: DiceNode, pool: { group: GroupNode; plan: PoolPlan } | undefined): number => {
    const group = planGroup(term, term === advantaged ? advantage : 'normal', pool);
    if (term === advantageTerm && term.count === 1) {
      deprecations.push({ message: ADVANTAGE_DEPRECATION, item });
    }
    groups.push(group);
    diceCount += group.count;
    return groups.length - 1;
  };
  const roots: ExpressionPlan[] = [];
  if (arithmetic) {
    const slots: DiceSlots = {
      dice: (term) => plan(term, undefined),
      pool: (group) => {
        const members = poolTerms(group.items[0]!);
        const pool: PoolPlan = { first: groups.length, size: members.length, keep: groupKeep(group) };
        for (const term of members) plan(term, { group, plan: pool });
        return pool.first;
      },
    };
    for (const fragment of fragments) {
      item = fragment.item;
      roots.push(compileTerms(fragment.node.terms, slots));
    }
  } else {
    for (const { term, item: termItem } of terms) {
      item = termItem;
      plan(term, undefined);
    }
  }
  checkDicePerRoll(diceCount, options);

  let modifier = 0;
  for (const value of modifiers) modifier += value;
  let advantageState: AdvantageState = 'normal';
  if (advantageModifier !== undefined) advantageState = advantageModifier.mode;
  else if (advantaged !== undefined) advantageState = advantage;

  const prepared: PreparedRoll = {
    formula: request.formula.trim(),
    groups,
    modifiers,
    modifier,
    advantageState,
    tag: formula.tag?.word,
    diceCount,
    deprecations,
    expression: arithmetic ? rollExpression(roots, bonusValues) : undefined,
  };
  // Frozen like the formula it comes from: a caller writing to a shared plan throws instead of
  // changing another request's roll.
  if (asWritten && Object.isFrozen(formula)) plansOfCachedFormulas.set(formula, deepFreeze(prepared));
  return prepared;
}

/**
 * The value of a roll with arithmetic: the formula's tree (`roots[0]`), or with bonuses the sum
 * of it and each bonus in order (an integer as a number, a fragment as its own tree, the next of
 * `roots`).
 */
function rollExpression(
  roots: readonly ExpressionPlan[],
  bonuses: ReadonlyArray<number | undefined>,
): ExpressionPlan {
  if (bonuses.length === 0) return roots[0]!;
  const terms = [roots[0]!];
  let fragment = 1;
  for (const value of bonuses) {
    terms.push(value === undefined ? roots[fragment++]! : { kind: 'number', value });
  }
  return { kind: 'sum', terms };
}

/**
 * Plans of formulas from a parse cache, rolled as written (no bonuses, no request advantage),
 * keyed by the cached node: an entry goes when its node leaves the cache and is collected.
 */
const plansOfCachedFormulas = new WeakMap<FormulaNode, PreparedRoll>();

function checkDicePerRoll(diceCount: number, options: PrepareOptions | undefined): void {
  const dicePerRoll = options?.dicePerRoll ?? LIMITS.dicePerRoll;
  if (diceCount > dicePerRoll) {
    throw new FormulaError(
      `This roll asks for ${formatInteger(diceCount)} dice; a roll may throw at most ${formatInteger(dicePerRoll)}.`,
      'formula',
      undefined,
    );
  }
}

/**
 * How many dice a request throws, counted as the per-roll limit counts them, without rolling:
 * prepareRoll's `diceCount` for callers that want only the number. Throws as prepareRoll does.
 */
export function countDice(request: RollRequest, options?: PrepareOptions): number {
  return prepareRoll(request, options).diceCount;
}

function checkTags(tags: readonly string[]): void {
  if (tags.length > LIMITS.tagsPerRoll) {
    throw new RequestError(`A roll takes at most ${LIMITS.tagsPerRoll} tags.`);
  }
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag.length > LIMITS.tagMaxLength || !TAG_PATTERN.test(tag)) {
      throw new RequestError(`Each tag is 1 to ${LIMITS.tagMaxLength} lowercase letters a-z.`);
    }
  }
}

function pushFlats(node: FormulaNode, modifiers: number[]): void {
  for (const term of node.terms) {
    // `|| 0` keeps a written -0 from surfacing as a negative zero.
    if (term.kind === 'flat') modifiers.push(term.sign * term.value || 0);
  }
}

const NO_MODIFIERS: readonly ModifierPlan[] = [];

/** A group's keep/drop, if it has one. */
function groupKeep(group: GroupNode): KeepPlan | undefined {
  for (const modifier of group.modifiers) {
    if (modifier.kind === 'keep' || modifier.kind === 'drop') return keepPlan(modifier);
  }
  return undefined;
}

const range = ([low, high]: readonly [number, number]): ValueRange => ({ low, high });

/**
 * A dice term's plan: its rules in the order they act on a die. A term of a pool group counts
 * with the group's success and failure points (the checks allow it none of its own) and leaves
 * keep/drop to the pool. `advantage`: the request's advantage, given to this term.
 */
function planGroup(
  term: DiceNode,
  advantage: AdvantageState,
  pool: { group: GroupNode; plan: PoolPlan } | undefined,
): GroupPlan {
  let count = term.count;
  let clamped = false;
  let reroll: ModifierPlan | undefined;
  let unique: ModifierPlan | undefined;
  let explode: ModifierPlan | undefined;
  let keeps: KeepPlan[] | undefined;
  let match: ModifierPlan | undefined;
  let success: ValueRange | undefined;
  let failure: ValueRange | undefined;
  let multiplier = 1;
  const [lowest, highest] = term.faces === undefined ? [1, term.sides] : faceBounds(term);
  let critical: { high: readonly number[]; low: readonly number[] } | undefined;
  // The request's advantage (for the first plain d20) or the term's own adv/dis: never both.
  let keepOne = advantage;
  for (const modifier of term.modifiers) {
    switch (modifier.kind) {
      case 'keep':
      case 'drop':
        keeps ??= [];
        keeps.push(keepPlan(modifier));
        break;
      case 'advantage':
        keepOne = modifier.mode;
        break;
      case 'clamp':
        clamped = true;
        break;
      case 'reroll': {
        const [low, high] = compareBounds(modifier.compare);
        reroll = { kind: 'reroll', limit: modifier.once ? 1 : LIMITS.rerollCap, low, high };
        break;
      }
      case 'unique': {
        const [low, high] =
          modifier.compare === null
            ? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]
            : compareBounds(modifier.compare);
        unique = { kind: 'unique', limit: modifier.once ? 1 : LIMITS.uniqueCap, low, high };
        break;
      }
      case 'explode': {
        const [low, high] = compareBounds(explodePoint(term, modifier));
        explode = { kind: 'explode', low, high, penetrate: modifier.penetrate, compound: modifier.compound };
        break;
      }
      case 'match':
        match = { kind: 'match', amount: modifier.amount, total: modifier.total };
        break;
      case 'multiply':
        multiplier = modifier.factor;
        break;
      case 'success':
        success = range(compareBounds(modifier.compare));
        break;
      case 'failure':
        failure = range(compareBounds(modifier.compare));
        break;
      case 'critical':
        critical ??= { high: [highest, highest], low: [lowest, lowest] };
        if (modifier.range === 'success') critical.high = compareBounds(modifier.compare);
        else critical.low = compareBounds(modifier.compare);
        break;
      default:
        // A modifier added to the syntax tree fails to compile here until it has its plan.
        unhandledKind(modifier);
    }
  }
  if (pool !== undefined) {
    for (const modifier of pool.group.modifiers) {
      if (modifier.kind === 'success') success = range(compareBounds(modifier.compare));
      else if (modifier.kind === 'failure') failure = range(compareBounds(modifier.compare));
    }
  }
  if (keepOne !== 'normal') {
    const rule = keepOne === 'advantage' ? KeepRule.KeepHighest : KeepRule.KeepLowest;
    keeps = [{ kind: 'keep', rule, amount: 1 }];
    count = Math.max(count, 2);
  }
  // In the order the rules act on a die (ModifierPlan).
  let modifiers: ModifierPlan[] | undefined;
  const add = (rule: ModifierPlan) => {
    modifiers ??= [];
    modifiers.push(rule);
  };
  if (clamped) {
    const [low, high] = clampBounds(term);
    add({ kind: 'clamp', low, high });
  }
  if (reroll !== undefined) add(reroll);
  if (unique !== undefined) add(unique);
  if (explode !== undefined) add(explode);
  if (keeps !== undefined) for (const keep of keeps) add(keep);
  if (match !== undefined) add(match);
  if (success !== undefined) add({ kind: 'count', success, failure });
  return {
    sides: term.sides,
    faces: term.faces,
    count,
    sign: term.sign,
    multiplier,
    modifiers: modifiers ?? NO_MODIFIERS,
    highLow: critical === undefined ? highest : critical.high[0]!,
    highHigh: critical === undefined ? highest : critical.high[1]!,
    lowLow: critical === undefined ? lowest : critical.low[0]!,
    lowHigh: critical === undefined ? lowest : critical.low[1]!,
    plain:
      modifiers === undefined && term.faces === undefined && critical === undefined && pool === undefined,
    label: term.label?.text,
    pool: pool?.plan,
  };
}
