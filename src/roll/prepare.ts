// A request -> a checked roll plan: parses the formula and every bonus, applies the request's
// advantage, enforces the per-roll dice limit, and counts the dice before anything is rolled
// (the service checks a batch's budget from these counts).

import { FormulaError, RequestError } from '../errors.js';
import type { AdvantageModifier, DiceNode, FormulaNode } from '../formula/ast.js';
import { type ParseCache, parseCache } from '../formula/cache.js';
import { formatInteger, rerollFaces } from '../formula/parse.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import { ADVANTAGE_STATES, type AdvantageState, type RollRequest } from './types.js';

/** How a group selects the dice that count (small integers: the roller switches on them). */
export const KeepRule = { All: 0, KeepHighest: 1, KeepLowest: 2, DropHighest: 3, DropLowest: 4 } as const;
export type KeepRule = (typeof KeepRule)[keyof typeof KeepRule];

/** How a die showing its maximum grows. */
export const ExplodeRule = { None: 0, Explode: 1, Penetrate: 2 } as const;
export type ExplodeRule = (typeof ExplodeRule)[keyof typeof ExplodeRule];

/** One dice term, ready to roll: everything the hot loop needs, as plain numbers. */
export interface GroupPlan {
  readonly sides: number;
  /** Dice thrown (a one-die `adv` or advantage-given d20 throws two). */
  readonly count: number;
  readonly sign: 1 | -1;
  readonly multiplier: number;
  readonly keep: KeepRule;
  readonly keepAmount: number;
  readonly explode: ExplodeRule;
  /** Rerolls allowed per die: 0 (no reroll), 1 (`ro`) or the reroll cap (`r`). */
  readonly rerollLimit: number;
  /** Faces that get rerolled: rerollLow <= face <= rerollHigh. */
  readonly rerollLow: number;
  readonly rerollHigh: number;
}

export interface Deprecation {
  message: string;
  /** Which item used the deprecated form: `formula`, `bonuses[1]`. */
  item: string;
}

/** A request that passed every rule: its dice are counted, nothing is rolled yet. */
export interface PreparedRoll {
  /** The formula as given, whitespace trimmed. */
  readonly formula: string;
  readonly groups: readonly GroupPlan[];
  /** Flat terms of the formula in order, then the bonuses' (integer bonuses and fragment flats). */
  readonly modifiers: readonly number[];
  readonly modifier: number;
  readonly advantageState: AdvantageState;
  readonly tag: string | undefined;
  /** Dice thrown, as counted by docs/language.md "Limits" (original dice; explosions and rerolls not counted). */
  readonly diceCount: number;
  /** Deprecated forms used; rollPrepared reports them through `onDeprecation`. */
  readonly deprecations: readonly Deprecation[];
}

export interface PrepareOptions {
  /** The per-roll dice limit (default LIMITS.dicePerRoll; the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** Where parsed formulas are kept (default: the shared `parseCache`; `maxEntries: 0` parses every time). */
  parseCache?: ParseCache | undefined;
}

const ADVANTAGE_DEPRECATION =
  'The form 1d20adv (adv or dis on a single die) is deprecated: it still throws two dice; write 2d20adv.';

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
  const bonuses = request.bonuses ?? [];
  if (bonuses.length > LIMITS.bonusesPerRoll) {
    throw new RequestError(`A roll takes at most ${LIMITS.bonusesPerRoll} bonuses.`);
  }

  const cache = options?.parseCache ?? parseCache;
  const formula = cache.formula(request.formula, { tags });
  const fragments: Array<{ node: FormulaNode; item: string }> = [{ node: formula, item: 'formula' }];
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
    } else if (typeof bonus === 'string') {
      const node = cache.fragment(bonus, { item });
      fragments.push({ node, item });
      pushFlats(node, modifiers);
    } else {
      throw new RequestError(`${item} must be an integer or a string.`);
    }
  }

  // At most one adv/dis term in the whole roll, and never together with the advantage field.
  let advantageTerm: DiceNode | undefined;
  let advantageModifier: AdvantageModifier | undefined;
  for (const { node, item } of fragments) {
    for (const term of node.terms) {
      if (term.kind !== 'dice') continue;
      const modifier = term.modifiers.find((m): m is AdvantageModifier => m.kind === 'advantage');
      if (modifier === undefined) continue;
      if (advantageTerm !== undefined) {
        throw new FormulaError('A roll may have only one adv or dis term.', item, modifier.column);
      }
      advantageTerm = term;
      advantageModifier = modifier;
    }
  }
  if (advantageTerm !== undefined && advantage !== 'normal') {
    throw new RequestError(
      'The formula has an adv or dis term, so advantage must be normal: net advantage and disadvantage into one.',
    );
  }

  // The request's advantage goes to the first plain d20 of the formula itself.
  let advantaged: DiceNode | undefined;
  if (advantage !== 'normal') {
    advantaged = formula.terms.find(
      (term): term is DiceNode =>
        term.kind === 'dice' &&
        term.sides === 20 &&
        !term.modifiers.some((m) => m.kind === 'keep' || m.kind === 'drop' || m.kind === 'advantage'),
    );
  }

  const groups: GroupPlan[] = [];
  const deprecations: Deprecation[] = [];
  let diceCount = 0;
  for (const { node, item } of fragments) {
    for (const term of node.terms) {
      if (term.kind !== 'dice') continue;
      const group = planGroup(term, term === advantaged ? advantage : 'normal');
      if (term === advantageTerm && term.count === 1) {
        deprecations.push({ message: ADVANTAGE_DEPRECATION, item });
      }
      groups.push(group);
      diceCount += group.count;
    }
  }
  const dicePerRoll = options?.dicePerRoll ?? LIMITS.dicePerRoll;
  if (diceCount > dicePerRoll) {
    throw new FormulaError(
      `This roll asks for ${formatInteger(diceCount)} dice; a roll may throw at most ${formatInteger(dicePerRoll)}.`,
      'formula',
      undefined,
    );
  }

  let modifier = 0;
  for (const value of modifiers) modifier += value;
  let advantageState: AdvantageState = 'normal';
  if (advantageModifier !== undefined) advantageState = advantageModifier.mode;
  else if (advantaged !== undefined) advantageState = advantage;

  return {
    formula: request.formula.trim(),
    groups,
    modifiers,
    modifier,
    advantageState,
    tag: formula.tag?.word,
    diceCount,
    deprecations,
  };
}

/** How many dice a request throws, from the parse alone (the batch budget needs it first). */
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

function planGroup(term: DiceNode, advantage: AdvantageState): GroupPlan {
  // The request's advantage (for the first plain d20) or the term's own adv/dis: never both.
  let keepOne = advantage;
  let count = term.count;
  let keep: KeepRule = KeepRule.All;
  let keepAmount = 0;
  let explode: ExplodeRule = ExplodeRule.None;
  let rerollLimit = 0;
  let rerollLow = 1;
  let rerollHigh = 0;
  let multiplier = 1;
  for (const modifier of term.modifiers) {
    switch (modifier.kind) {
      case 'keep':
        keep = modifier.mode === 'highest' ? KeepRule.KeepHighest : KeepRule.KeepLowest;
        keepAmount = modifier.amount;
        break;
      case 'drop':
        keep = modifier.mode === 'highest' ? KeepRule.DropHighest : KeepRule.DropLowest;
        keepAmount = modifier.amount;
        break;
      case 'advantage':
        keepOne = modifier.mode;
        break;
      case 'explode':
        explode = modifier.penetrate ? ExplodeRule.Penetrate : ExplodeRule.Explode;
        break;
      case 'reroll':
        rerollLimit = modifier.once ? 1 : LIMITS.rerollCap;
        [rerollLow, rerollHigh] = rerollFaces(modifier.compare.operator, modifier.compare.value, term.sides);
        break;
      case 'multiply':
        multiplier = modifier.factor;
        break;
    }
  }
  if (keepOne !== 'normal') {
    keep = keepOne === 'advantage' ? KeepRule.KeepHighest : KeepRule.KeepLowest;
    keepAmount = 1;
    count = Math.max(count, 2);
  }
  return {
    sides: term.sides,
    count,
    sign: term.sign,
    multiplier,
    keep,
    keepAmount,
    explode,
    rerollLimit,
    rerollLow,
    rerollHigh,
  };
}
