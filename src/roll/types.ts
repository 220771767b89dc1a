// The public shapes of a roll: what a caller asks for and what comes back (SPEC.md, FORMULA.md).
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
  /** `roll`: the die's first throw; `reroll`: a throw replacing the one before; `explode`: an extra. */
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
  /** `!!`: each die's throws are merged into one value in `results`. */
  compounded?: true;
  /** Terms with r, ro, !, !p or !!: every physical throw in rolling order. */
  throws?: DieThrow[];
}

export interface RollResponse {
  formula: string;
  dice: DieGroup[];
  modifier: number;
  modifiers: number[];
  total: number;
  advantageState: AdvantageState;
  tag?: string;
}

/**
 * Where dice come from. `die(sides)` returns an integer in [1, sides], uniformly; sides is
 * 1..2^32. The production source is the pooled CSPRNG sampler; tests inject scripted, minimum,
 * maximum or failing sources. Nothing reachable over HTTP can choose the source.
 */
export interface RandomSource {
  die(sides: number): number;
}
