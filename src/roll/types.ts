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

export interface DieGroup {
  sides: number;
  sign: 1 | -1;
  results: number[];
  kept: number[];
  keptFlags: boolean[];
  multiplier: number;
  total: number;
  naturalHigh: boolean;
  naturalLow: boolean;
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
