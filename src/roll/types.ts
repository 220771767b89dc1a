// The public shapes of a roll: what a caller asks for and what comes back (docs/api.md,
// docs/language.md). What comes back is declared once, as the zod schemas of
// @fairdice/client/schemas: the roller's output types are theirs, re-exported here.

export type {
  AdvantageState,
  DieGroup,
  DieThrow,
  ExpressionNode as ExpressionResult,
  GroupItem as GroupItemResult,
  /**
   * What the roller returns: every die, which ones counted, and the total. The service adds a
   * receipt when one is asked for (the answer's RollResponse); a receipt holds this as its `roll`.
   */
  Roll as RollResponse,
} from '@fairdice/client/types';
export { ADVANTAGE_STATES } from '@fairdice/client/types';

/** What the roller takes (the language's compiler reads it: src/formula/plan.ts). */
export type { RollRequest } from '../formula/index.js';

/**
 * Where dice come from. `die(sides)` returns an integer in [1, sides], uniformly; sides is
 * 1..2^32. The production source is the pooled CSPRNG sampler; tests inject scripted, minimum,
 * maximum or failing sources. Nothing reachable over HTTP can choose the source.
 */
export interface RandomSource {
  die(sides: number): number;
}
