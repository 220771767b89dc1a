// A request -> a checked roll plan: parses the formula and every bonus, applies the request's
// advantage, enforces the per-roll dice limit, and counts the dice before anything is rolled
// (the service checks a batch's budget from these counts).

import { FormulaError, RequestError } from '../errors.js';
import type {
  AdvantageModifier,
  DiceModifier,
  DiceNode,
  FormulaNode,
  GroupModifier,
  GroupNode,
} from '../formula/ast.js';
import { deepFreeze, type ParseCache, parseCache } from '../formula/cache.js';
import {
  clampBounds,
  compareBounds,
  explodePoint,
  faceBounds,
  forEachDice,
  formatInteger,
  usesArithmetic,
} from '../formula/parse.js';
import { LIMITS, TAG_PATTERN } from '../limits.js';
import { ADVANTAGE_STATES, type AdvantageState, type RollRequest } from './types.js';

/** How a group selects the dice that count (small integers: the roller switches on them). */
export const KeepRule = { All: 0, KeepHighest: 1, KeepLowest: 2, DropHighest: 3, DropLowest: 4 } as const;
export type KeepRule = (typeof KeepRule)[keyof typeof KeepRule];

/** How a die meeting its explode point grows. */
export const ExplodeRule = { None: 0, Explode: 1, Penetrate: 2, Compound: 3 } as const;
export type ExplodeRule = (typeof ExplodeRule)[keyof typeof ExplodeRule];

/**
 * One dice term, ready to roll: everything the hot loop needs, as plain numbers. Every condition
 * is an inclusive range `low <= value <= high` (see compareBounds); an unused one is empty.
 */
export interface GroupPlan {
  /** Faces of one die (for custom and Fate dice, the number of faces listed). */
  readonly sides: number;
  /** Custom and Fate dice: the face values, thrown as `faces[die(faces.length) - 1]`. */
  readonly faces: readonly number[] | undefined;
  /** Dice thrown (a one-die `adv` or advantage-given d20 throws two). */
  readonly count: number;
  readonly sign: 1 | -1;
  readonly multiplier: number;
  readonly keep: KeepRule;
  readonly keepAmount: number;
  /** Further keep/drop modifiers of the term (`4d10dh1dl2`): a die counts only if none drops it. */
  readonly moreKeeps: readonly KeepStep[];
  readonly explode: ExplodeRule;
  /**
   * `!!p`: compounded extras are recorded minus 1 (`!p` is ExplodeRule.Penetrate). Like every
   * Part C field, absent or neutral when unused, so a reader written for earlier plans (the
   * exact distributions of src/stats) sees a field it does not know only where it matters.
   */
  readonly compoundPenetrate?: true;
  /** Present when a compare point of the term is `<>N`: its range is inverted (see `within`). */
  readonly notEqual?: true;
  /** Values (after clamping) that explode: explodeLow <= value <= explodeHigh. */
  readonly explodeLow: number;
  readonly explodeHigh: number;
  /** Rerolls allowed per die: 0 (no reroll), 1 (`ro`) or the reroll cap (`r`). */
  readonly rerollLimit: number;
  /** Values (after clamping) that get rerolled: rerollLow <= value <= rerollHigh. */
  readonly rerollLow: number;
  readonly rerollHigh: number;
  /**
   * `u` / `uo`: rerolls allowed per die while it repeats an earlier die, and the values (after
   * clamping) that must be unique, `low <= value <= high`. Absent without `u`.
   */
  readonly unique?: { readonly limit: number; readonly low: number; readonly high: number };
  /** `mN` / `mtN`: sets of at least `amount` equal kept values; `total` (mt) makes their number the total. */
  readonly match?: { readonly amount: number; readonly total: boolean };
  /** min/max: a face below clampLow counts as clampLow, above clampHigh as clampHigh. */
  readonly clamped: boolean;
  readonly clampLow: number;
  readonly clampHigh: number;
  /** Success counting (a success point), and failure counting (`f`) within it. */
  readonly countSuccesses: boolean;
  readonly successLow: number;
  readonly successHigh: number;
  readonly countFailures: boolean;
  readonly failureLow: number;
  readonly failureHigh: number;
  /** Faces (before clamping) that make naturalHigh / naturalLow: the top / bottom face, or cs / cf. */
  readonly highLow: number;
  readonly highHigh: number;
  readonly lowLow: number;
  readonly lowHigh: number;
  /** Whether the response lists every throw (`throws`): written with r, ro, !, !p or !!. */
  readonly recordThrows: boolean;
  /** One throw per die, every die kept, nothing counted or clamped: the fast path. */
  readonly plain: boolean;
  readonly label: string | undefined;
  /** Set on every term of a pool group (`{4d6+3d8}kh3`): the group keeps across its terms' dice. */
  readonly pool: PoolPlan | undefined;
}

/** One keep/drop modifier. */
export interface KeepStep {
  readonly keep: KeepRule;
  readonly amount: number;
}

/** A pool group: its terms are `groups[first .. first + size)`; keep/drop acts on all their dice. */
export interface PoolPlan {
  readonly first: number;
  readonly size: number;
  readonly keep: KeepRule;
  readonly keepAmount: number;
}

/** A bonus as the expression tree adds it: an integer, or a parsed fragment. */
export type PreparedBonus = { readonly value: number } | { readonly node: FormulaNode };

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
  /**
   * Present when the formula or a bonus uses parentheses, *, /, a function or a group: the trees
   * to evaluate, and each dice term's index in `groups` (written order).
   */
  readonly arithmetic:
    | {
        readonly formula: FormulaNode;
        readonly bonuses: readonly PreparedBonus[];
        readonly groupOf: ReadonlyMap<DiceNode, number>;
      }
    | undefined;
}

export interface PrepareOptions {
  /** The per-roll dice limit (default LIMITS.dicePerRoll; the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** Where parsed formulas are kept (default: the shared `parseCache`; `maxEntries: 0` parses every time). */
  parseCache?: ParseCache | undefined;
}

const NO_BONUSES: NonNullable<RollRequest['bonuses']> = Object.freeze([]);

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
  const fragments: Array<{ node: FormulaNode; item: string }> = [{ node: formula, item: 'formula' }];
  const preparedBonuses: PreparedBonus[] = [];
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
      preparedBonuses.push({ value: bonus === 0 ? 0 : bonus });
    } else if (typeof bonus === 'string') {
      const node = cache.fragment(bonus, { item });
      fragments.push({ node, item });
      preparedBonuses.push({ node });
      pushFlats(node, modifiers);
    } else {
      throw new RequestError(`${item} must be an integer or a string.`);
    }
  }

  // Every dice term in written order (formula, then bonuses), with its pool group if any.
  let arithmetic = false;
  const terms: Array<{ term: DiceNode; pool: GroupNode | undefined; item: string }> = [];
  for (const { node, item } of fragments) {
    if (usesArithmetic(node)) {
      arithmetic = true;
      forEachDice(node.terms, (term, pool) => terms.push({ term, pool, item }));
    } else {
      // A first-edition sum: its dice terms are its own terms.
      for (const term of node.terms) if (term.kind === 'dice') terms.push({ term, pool: undefined, item });
    }
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

  const groups: GroupPlan[] = [];
  const deprecations: Deprecation[] = [];
  const groupOf = arithmetic ? new Map<DiceNode, number>() : undefined;
  // Made on the first pool group's term: most rolls have none.
  let pools: Map<GroupNode, { first: number; size: number; keep: KeepRule; keepAmount: number }> | undefined;
  let diceCount = 0;
  for (const { term, pool: poolGroup, item } of terms) {
    let pool: PoolPlan | undefined;
    if (poolGroup !== undefined) {
      pools ??= new Map();
      let found = pools.get(poolGroup);
      if (found === undefined) {
        found = { first: groups.length, size: 0, ...groupKeep(poolGroup) };
        pools.set(poolGroup, found);
      }
      found.size++;
      pool = found;
    }
    const group = planGroup(term, term === advantaged ? advantage : 'normal', poolGroup, pool);
    if (term === advantageTerm && term.count === 1) {
      deprecations.push({ message: ADVANTAGE_DEPRECATION, item });
    }
    groupOf?.set(term, groups.length);
    groups.push(group);
    diceCount += group.count;
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
    arithmetic: groupOf === undefined ? undefined : { formula, bonuses: preparedBonuses, groupOf },
  };
  // Frozen like the formula it comes from: a caller writing to a shared plan throws instead of
  // changing another request's roll.
  if (asWritten && Object.isFrozen(formula)) plansOfCachedFormulas.set(formula, deepFreeze(prepared));
  return prepared;
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

/** An unused range (never tested: its count, limit or rule is zero), finite for plan readers. */
const EMPTY: readonly [number, number] = [1, 0];
const EVERYTHING: readonly [number, number] = [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
const NO_KEEPS: readonly KeepStep[] = [];

/** A group's keep/drop as a rule and an amount (All when it has none). */
function groupKeep(group: GroupNode): { keep: KeepRule; keepAmount: number } {
  for (const modifier of group.modifiers) {
    if (modifier.kind === 'keep') {
      return {
        keep: modifier.mode === 'highest' ? KeepRule.KeepHighest : KeepRule.KeepLowest,
        keepAmount: modifier.amount,
      };
    }
    if (modifier.kind === 'drop') {
      return {
        keep: modifier.mode === 'highest' ? KeepRule.DropHighest : KeepRule.DropLowest,
        keepAmount: modifier.amount,
      };
    }
  }
  return { keep: KeepRule.All, keepAmount: 0 };
}

/**
 * A dice term's plan. A term of a pool group counts with the group's success and failure points
 * (the parser allows it none of its own) and leaves keep/drop to the pool.
 */
function planGroup(
  term: DiceNode,
  advantage: AdvantageState,
  poolGroup?: GroupNode,
  pool?: PoolPlan,
): GroupPlan {
  // The request's advantage (for the first plain d20) or the term's own adv/dis: never both.
  let keepOne = advantage;
  let count = term.count;
  let keep: KeepRule = KeepRule.All;
  let keepAmount = 0;
  let moreKeeps: KeepStep[] | undefined;
  const addKeep = (rule: KeepRule, amount: number) => {
    if (keep === KeepRule.All) {
      keep = rule;
      keepAmount = amount;
    } else {
      moreKeeps ??= [];
      moreKeeps.push({ keep: rule, amount });
    }
  };
  let unique: { limit: number; low: number; high: number } | undefined;
  let match: { amount: number; total: boolean } | undefined;
  let compoundPenetrate = false;
  let notEqual = false;
  let explode: ExplodeRule = ExplodeRule.None;
  let explodeRange = EMPTY;
  let rerollLimit = 0;
  let rerollRange = EMPTY;
  let multiplier = 1;
  let successRange: readonly [number, number] | undefined;
  let failureRange: readonly [number, number] | undefined;
  const lowest = term.faces === undefined ? 1 : faceBounds(term)[0];
  const highest = term.faces === undefined ? term.sides : faceBounds(term)[1];
  let highRange: readonly [number, number] | undefined;
  let lowRange: readonly [number, number] | undefined;
  let clamped = false;
  const modifiers: ReadonlyArray<DiceModifier | GroupModifier> =
    poolGroup === undefined
      ? term.modifiers
      : [
          ...term.modifiers,
          ...poolGroup.modifiers.filter((m) => m.kind === 'success' || m.kind === 'failure'),
        ];
  for (const modifier of modifiers) {
    switch (modifier.kind) {
      case 'keep':
        addKeep(modifier.mode === 'highest' ? KeepRule.KeepHighest : KeepRule.KeepLowest, modifier.amount);
        break;
      case 'drop':
        addKeep(modifier.mode === 'highest' ? KeepRule.DropHighest : KeepRule.DropLowest, modifier.amount);
        break;
      case 'unique': {
        const [low, high] = modifier.compare === null ? EVERYTHING : compareBounds(modifier.compare);
        unique = { limit: modifier.once ? 1 : LIMITS.uniqueCap, low, high };
        break;
      }
      case 'match':
        match = { amount: modifier.amount, total: modifier.total };
        break;
      case 'advantage':
        keepOne = modifier.mode;
        break;
      case 'explode':
        explode = modifier.compound
          ? ExplodeRule.Compound
          : modifier.penetrate
            ? ExplodeRule.Penetrate
            : ExplodeRule.Explode;
        explodeRange = compareBounds(explodePoint(term, modifier));
        compoundPenetrate = modifier.compound && modifier.penetrate;
        break;
      case 'reroll':
        rerollLimit = modifier.once ? 1 : LIMITS.rerollCap;
        rerollRange = compareBounds(modifier.compare);
        break;
      case 'multiply':
        multiplier = modifier.factor;
        break;
      case 'clamp':
        clamped = true;
        break;
      case 'success':
        successRange = compareBounds(modifier.compare);
        break;
      case 'failure':
        failureRange = compareBounds(modifier.compare);
        break;
      case 'critical':
        if (modifier.range === 'success') highRange = compareBounds(modifier.compare);
        else lowRange = compareBounds(modifier.compare);
        break;
    }
  }
  if (keepOne !== 'normal') {
    keep = keepOne === 'advantage' ? KeepRule.KeepHighest : KeepRule.KeepLowest;
    keepAmount = 1;
    count = Math.max(count, 2);
  }
  const [clampLow, clampHigh] = clamped ? clampBounds(term) : [lowest, highest];
  for (const modifier of modifiers) {
    if ('compare' in modifier && modifier.compare?.operator === '<>') notEqual = true;
  }
  const recordThrows = rerollLimit > 0 || unique !== undefined || explode !== ExplodeRule.None;
  const plan: Mutable<GroupPlan> = {
    sides: term.sides,
    faces: term.faces,
    count,
    sign: term.sign,
    multiplier,
    keep,
    keepAmount,
    moreKeeps: moreKeeps ?? NO_KEEPS,
    explode,
    explodeLow: explodeRange[0],
    explodeHigh: explodeRange[1],
    rerollLimit,
    rerollLow: rerollRange[0],
    rerollHigh: rerollRange[1],
    clamped,
    clampLow,
    clampHigh,
    countSuccesses: successRange !== undefined,
    successLow: (successRange ?? EMPTY)[0],
    successHigh: (successRange ?? EMPTY)[1],
    countFailures: failureRange !== undefined,
    failureLow: (failureRange ?? EMPTY)[0],
    failureHigh: (failureRange ?? EMPTY)[1],
    highLow: highRange === undefined ? highest : highRange[0],
    highHigh: highRange === undefined ? highest : highRange[1],
    lowLow: lowRange === undefined ? lowest : lowRange[0],
    lowHigh: lowRange === undefined ? lowest : lowRange[1],
    recordThrows,
    plain:
      pool === undefined &&
      !recordThrows &&
      keep === KeepRule.All &&
      term.faces === undefined &&
      !clamped &&
      match === undefined &&
      successRange === undefined &&
      highRange === undefined &&
      lowRange === undefined,
    label: term.label?.text,
    pool,
  };
  // The optional fields only when they apply, set after the literal: a spread of `{}` per field
  // would cost a runtime copy on every plan.
  if (unique !== undefined) plan.unique = unique;
  if (match !== undefined) plan.match = match;
  if (compoundPenetrate) plan.compoundPenetrate = true;
  if (notEqual) plan.notEqual = true;
  return plan;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
