// The public shapes of a roll: what a caller asks for and what comes back (docs/api.md, docs/language.md).
// Plain data only, shared by the roller, the zod schemas and the typed client.

export const ADVANTAGE_STATES = ['normal', 'advantage', 'disadvantage'] as const;
export type AdvantageState = (typeof ADVANTAGE_STATES)[number];

export interface RollRequest {
  formula: string;
  advantage?: AdvantageState | undefined;
  bonuses?: ReadonlyArray<number | string> | undefined;
  tags?: ReadonlyArray<string> | undefined;
}

/** One physical throw of a die (docs/language.md, "Every throw"). */
export interface DieThrow {
  /** 0-based index of the die within its group. */
  die: number;
  /**
   * `roll`: the die's first throw; `reroll`: a throw replacing the one before (by r, ro or u);
   * `explode`: an extra.
   */
  kind: 'roll' | 'reroll' | 'explode';
  /** The recorded value (after min/max; an extra of `!p` minus 1): what `results` holds. */
  value: number;
  /** The face that came up, only when min/max or penetration changed it. */
  face?: number;
}

/**
 * One dice term and what it rolled. The optional fields appear only when they apply, so a
 * first-edition formula's response has none of them (except `throws`, on terms with r, ro, !, !p).
 */
export interface DieGroup {
  sides: number;
  sign: 1 | -1;
  /** Recorded values in rolling order; with `!!`, one merged value per die. */
  results: number[];
  kept: number[];
  keptFlags: boolean[];
  multiplier: number;
  total: number;
  naturalHigh: boolean;
  naturalLow: boolean;
  /** Custom and Fate dice: the faces, in written order. */
  faces?: number[];
  /** The term's label, as written. */
  label?: string;
  /** Success counting: kept values meeting the success point. */
  successes?: number;
  /** Failure counting (`f`): kept values meeting the failure point. */
  failures?: number;
  /** `m` / `mt`: the values shown by at least N kept dice, ascending. */
  matches?: number[];
  /** `!!` / `!!p`: each die's throws are merged into one value in `results`. */
  compounded?: true;
  /** Terms with r, ro, u, !, !p, !! or !!p: every physical throw in rolling order. */
  throws?: DieThrow[];
}

/** An item of an evaluated group: its total, whether it counted, and its own tree. */
export interface GroupItemResult {
  value: number;
  exact?: string;
  kept: boolean;
  node: ExpressionResult;
}

/**
 * A node of the evaluated formula (docs/language.md, "The expression tree"): `value` is a JSON
 * number, and `exact` ("n/d") appears when the value is not an integer.
 */
export type ExpressionResult =
  /** A dice term: `group` indexes `dice`, `value` is that DieGroup's signed total. */
  | { type: 'dice'; group: number; value: number }
  | { type: 'number'; value: number }
  | {
      type: 'operation';
      operator: '+' | '-' | '*' | '/' | '%' | '^';
      value: number;
      exact?: string;
      /** Two for * / % ^ (base, exponent), one for a minus before a non-dice term, two or more for a sum. */
      operands: ExpressionResult[];
    }
  | {
      type: 'function';
      name: 'floor' | 'ceil' | 'round' | 'abs' | 'min' | 'max';
      value: number;
      exact?: string;
      arguments: ExpressionResult[];
    }
  | {
      type: 'group';
      value: number;
      exact?: string;
      items: GroupItemResult[];
      successes?: number;
      failures?: number;
      label?: string;
    };

export interface RollResponse {
  formula: string;
  dice: DieGroup[];
  modifier: number;
  modifiers: number[];
  total: number;
  advantageState: AdvantageState;
  tag?: string;
  /**
   * Present only when the formula or a bonus uses parentheses, *, /, a function or a group: the
   * evaluated tree; then `total` is its root's value rounded down.
   */
  expression?: ExpressionResult;
}

/**
 * Where dice come from. `die(sides)` returns an integer in [1, sides], uniformly; sides is
 * 1..2^32. The production source is the pooled CSPRNG sampler; tests inject scripted, minimum,
 * maximum or failing sources. Nothing reachable over HTTP can choose the source.
 */
export interface RandomSource {
  die(sides: number): number;
}
