// The roll plan: what the language hands its two back ends, the roller (src/roll/roll.ts) and
// the exact distribution engine (src/stats). A request becomes a plan in src/formula/compile.ts
// after every rule of docs/language.md has passed, so a back end never checks the language
// again; it reads the plan, and nothing else of the language but src/formula/index.ts.
//
// Everything a back end must act on is a kind of a discriminated union: a dice term's rules
// (`ModifierPlan`) and the nodes of an expression (`ExpressionPlan`). Each back end covers them
// with an exhaustive `switch`, so a kind added here fails to compile until both handle it (or
// refuse it with a reason). Plain fields hold what every dice term has (its die, count, sign,
// multiplier, label, the faces that make naturals); a new dice modifier is a new kind, never a
// new field (docs/architecture.md, "Adding a dice modifier").
//
// Plain data, no classes: a plan can be frozen and shared (src/formula/compile.ts keeps one per
// cached formula), printed and compared.

import type { AdvantageState } from '@fairdice/client/types';
import type { ComparePoint, FunctionName } from './ast.js';

/** How a keep/drop selects the dice (or items) that count: small integers the roller compares. */
export const KeepRule = { KeepHighest: 1, KeepLowest: 2, DropHighest: 3, DropLowest: 4 } as const;
export type KeepRule = (typeof KeepRule)[keyof typeof KeepRule];

/**
 * Values meeting a compare point: `low <= value <= high`, or for a not-equal point an inverted
 * range (low > high) that every value but one meets (`within` in src/formula/compare.ts).
 */
export interface ValueRange {
  readonly low: number;
  readonly high: number;
}

/** `minN` / `maxN`: a throw below `low` is recorded as `low`, above `high` as `high`. */
export interface ClampPlan {
  readonly kind: 'clamp';
  readonly low: number;
  readonly high: number;
}

/** `r` / `ro`: a value (after clamping) in the range is thrown again, at most `limit` times. */
export interface RerollPlan extends ValueRange {
  readonly kind: 'reroll';
  /** 1 for `ro`, the reroll cap (LIMITS.rerollCap) for `r`. */
  readonly limit: number;
}

/**
 * `u` / `uo`: after clamping and rerolling, a value in the range that an earlier die of the term
 * shows is thrown again, at most `limit` times.
 */
export interface UniquePlan extends ValueRange {
  readonly kind: 'unique';
  /** 1 for `uo`, the unique cap (LIMITS.uniqueCap) for `u`. */
  readonly limit: number;
}

/**
 * `!`, `!p`, `!!`, `!!p`: a die's final value (after clamping) in the range throws an extra, and
 * so does each extra in it, at most LIMITS.explodeCap extras. `penetrate`: every extra is recorded
 * minus 1 (after the test). `compound`: a die's throws are recorded as one merged value.
 */
export interface ExplodePlan extends ValueRange {
  readonly kind: 'explode';
  readonly penetrate: boolean;
  readonly compound: boolean;
}

/**
 * `kh`, `kl`, `dh`, `dl`, `d`, `adv`, `dis` and the request's advantage: which dice count. A term
 * may have several (`4d10dh1dl2`): a die counts only when none of them drops it.
 */
export interface KeepPlan {
  readonly kind: 'keep';
  readonly rule: KeepRule;
  readonly amount: number;
}

/** `mN` / `mtN`: the values shown by at least `amount` kept dice; `total` (mt) counts them as the total. */
export interface MatchPlan {
  readonly kind: 'match';
  readonly amount: number;
  readonly total: boolean;
}

/**
 * A success point (and `f`): the term's total is the kept values meeting `success` minus those
 * meeting `failure`. A pool group's point is every one of its terms' count.
 */
export interface CountPlan {
  readonly kind: 'count';
  readonly success: ValueRange;
  readonly failure: ValueRange | undefined;
}

/**
 * A rule of a dice term. A plan lists them in the order they act on a die: clamp, reroll,
 * unique, explode (with compounding), then keep/drop (in written order), matching sets, counting
 * (docs/language.md, "Order of application"). Each kind appears at most once, except keep.
 */
export type ModifierPlan =
  | ClampPlan
  | RerollPlan
  | UniquePlan
  | ExplodePlan
  | KeepPlan
  | MatchPlan
  | CountPlan;

/**
 * A pool group (`{4d6+3d8}kh3`): its terms are `groups[first .. first + size)`; `keep` acts on
 * all their dice, and its terms have no keep of their own (their counting is the group's).
 */
export interface PoolPlan {
  readonly first: number;
  readonly size: number;
  readonly keep: KeepPlan | undefined;
}

/** One dice term, ready to roll: it becomes one DieGroup of the response. */
export interface GroupPlan {
  /** Faces of one die (for custom and Fate dice, the number of faces listed). */
  readonly sides: number;
  /** Custom and Fate dice: the face values, thrown as `faces[die(faces.length) - 1]`. */
  readonly faces: readonly number[] | undefined;
  /** Dice thrown (a one-die `adv` or advantage-given d20 throws two). */
  readonly count: number;
  readonly sign: 1 | -1;
  /** `xK`: the term's total is multiplied by it (1 when not written). */
  readonly multiplier: number;
  /** The rules the term's dice follow, in the order they act (see ModifierPlan). */
  readonly modifiers: readonly ModifierPlan[];
  /**
   * Faces (before clamping) that make the response's naturalHigh / naturalLow when one die
   * counts: the top / bottom face, or the `cs` / `cf` range. They never change a total.
   */
  readonly highLow: number;
  readonly highHigh: number;
  readonly lowLow: number;
  readonly lowHigh: number;
  /**
   * No modifiers, a standard die, the usual naturals, no pool: one throw per die, every die
   * kept (the roller's fast path, and most rolls).
   */
  readonly plain: boolean;
  readonly label: string | undefined;
  /** Set on every term of a pool group: the group keeps across its terms' dice. */
  readonly pool: PoolPlan | undefined;
}

/**
 * A node of the formula's arithmetic, to evaluate exactly (src/formula/evaluate.ts) or over
 * distributions (src/stats/expression.ts). A dice term is a leaf naming its plan in `groups`.
 */
export type ExpressionPlan =
  | { readonly kind: 'dice'; readonly group: number }
  | { readonly kind: 'number'; readonly value: number }
  /** Two or more terms added in order (a sum of one term is that term). */
  | { readonly kind: 'sum'; readonly terms: readonly ExpressionPlan[] }
  | { readonly kind: 'negate'; readonly operand: ExpressionPlan }
  | {
      readonly kind: 'product';
      /** `%` is the remainder of truncating division (the sign of the left side). */
      readonly operator: '*' | '/' | '%';
      readonly left: ExpressionPlan;
      /** Never zero (for `/` and `%`): the checks proved it. */
      readonly right: ExpressionPlan;
    }
  /** The exponent has no dice and is a whole number from 0 to LIMITS.exponentMax. */
  | { readonly kind: 'power'; readonly base: ExpressionPlan; readonly exponent: ExpressionPlan }
  | { readonly kind: 'call'; readonly name: FunctionName; readonly arguments: readonly ExpressionPlan[] }
  | GroupExpressionPlan
  | PoolExpressionPlan;

/**
 * `{A, B, ...}` with its keep/drop and counting acting on the item totals (two or more items,
 * or one item without modifiers).
 */
export interface GroupExpressionPlan {
  readonly kind: 'group';
  readonly items: readonly ExpressionPlan[];
  readonly keep: KeepPlan | undefined;
  /** Item totals may be fractions, so the points stay points (`meets` in src/formula/compare.ts). */
  readonly success: ComparePoint | undefined;
  readonly failure: ComparePoint | undefined;
  readonly label: string | undefined;
}

/**
 * A one-item group with modifiers (`{4d6+3d8}kh3`): a pool whose dice the dice terms
 * `groups[first .. first + size)` already selected and counted (each term's `pool`); its value
 * is its item's, and `counting` / `failures` say whether it reports successes / failures.
 */
export interface PoolExpressionPlan {
  readonly kind: 'pool';
  readonly item: ExpressionPlan;
  readonly first: number;
  readonly size: number;
  readonly counting: boolean;
  readonly failures: boolean;
  readonly label: string | undefined;
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
  /** One plan per dice term, in written order (the formula's, then each bonus's). */
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
   * Present when the formula or a bonus uses arithmetic (parentheses, *, /, %, ^, a function, a
   * group): the value to evaluate, the formula's tree, or with bonuses the sum of it and each
   * bonus. The total is then its value rounded down; without it, the modifier plus every
   * group's total.
   */
  readonly expression: ExpressionPlan | undefined;
}

/**
 * The `default` of a back end's exhaustive switch over a plan's kinds: `kind` is `never` there,
 * so a kind added to the plan fails to compile until the switch handles it.
 */
export function unhandledKind(kind: never): never {
  throw new TypeError(`a plan of a kind this back end does not know: ${JSON.stringify(kind)}`);
}

/** What the compiler (and so the roller) takes: a formula, its advantage state, its bonuses and the tags it may end with. */
export interface RollRequest {
  formula: string;
  advantage?: AdvantageState | undefined;
  bonuses?: ReadonlyArray<number | string> | undefined;
  tags?: ReadonlyArray<string> | undefined;
}
