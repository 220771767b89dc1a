// The service's request and response types, written out for front ends: nothing here imports a
// server package, so a browser project's type-check sees only these declarations and tRPC's.
// The root test suite checks them against the server's own procedures (test/client/contract.test.ts).

/** Applies to the first plain d20 term: `advantage` keeps the highest of two, `disadvantage` the lowest. */
export type AdvantageState = 'normal' | 'advantage' | 'disadvantage';

/** Every advantage state, in the order the API documents them. */
export const ADVANTAGE_STATES = [
  'normal',
  'advantage',
  'disadvantage',
] as const satisfies readonly AdvantageState[];

/** An integer flat modifier, or a formula fragment such as `'1d4'` (terms only, no tag). */
export type Bonus = number | string;

/** The input of `roll` (GET /v1/roll): a formula and an optional advantage state. */
export interface RollQuery {
  /** A dice formula: `4d6kh3`, `1d20+7`, `2d20adv`, `1d8+3 fire` (see docs/language.md). */
  formula: string;
  advantage?: AdvantageState;
}

/** The input of `rollWith` (POST /v1/roll): a formula with bonuses and the tags it may end with. */
export interface RollRequest {
  formula: string;
  advantage?: AdvantageState;
  /** Integers and formula fragments added to the roll. */
  bonuses?: readonly Bonus[];
  /** The trailing words the formula may end with (lowercase a to z). */
  tags?: readonly string[];
}

/** The input of `batch` (POST /v1/roll/batch): rolls that share one dice budget. */
export interface BatchRollRequest {
  rolls: readonly RollRequest[];
}

/** One dice term of the formula and what it rolled. */
export interface DieGroup {
  /** Sides of each die in the group. */
  sides: number;
  /** Sign of the group's contribution. */
  sign: 1 | -1;
  /** Every die rolled, including dropped ones; a penetrated 1 is recorded as 0. */
  results: number[];
  /** The dice that counted towards the total. */
  kept: number[];
  /** Aligned index by index to `results`: whether each die was kept. */
  keptFlags: boolean[];
  /** K from an `xK` modifier, else 1. */
  multiplier: number;
  /** This group's signed contribution to the total. */
  total: number;
  /** One die kept, showing its maximum face. */
  naturalHigh: boolean;
  /** One die kept, showing 1. */
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

/** One physical throw of a die. */
export interface DieThrow {
  die: number;
  kind: 'roll' | 'reroll' | 'explode';
  value: number;
  face?: number;
}

/** An item of an evaluated group. */
export interface GroupItemResult {
  value: number;
  exact?: string;
  kept: boolean;
  node: ExpressionResult;
}

/** A node of the evaluated formula: `exact` ("n/d") appears when the value is not an integer. */
export type ExpressionResult =
  | { type: 'dice'; group: number; value: number }
  | { type: 'number'; value: number }
  | {
      type: 'operation';
      operator: '+' | '-' | '*' | '/' | '%' | '^';
      value: number;
      exact?: string;
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

/** Every die rolled, which ones counted, and the total. */
export interface RollResponse {
  /** The formula rolled, whitespace trimmed. */
  formula: string;
  /** One entry per dice group. */
  dice: DieGroup[];
  /** Sum of the flat modifiers; dice are not counted. */
  modifier: number;
  /** Each flat modifier, in order. */
  modifiers: number[];
  total: number;
  advantageState: AdvantageState;
  /** The trailing tag word, when the formula ends with one. */
  tag?: string;
  /** With parentheses, * / % ^, a function or a group: the evaluated tree (total = its root rounded down). */
  expression?: ExpressionResult;
}

/** The results of a batch, in request order. */
export interface BatchRollResponse {
  rolls: RollResponse[];
}

/** The answer of `health`. */
export interface HealthResponse {
  status: 'ok';
  version: string;
}

/** The input of `stats` (GET /v1/stats): a formula, an advantage state and the explosion depth to list. */
export interface StatsQuery {
  formula: string;
  advantage?: AdvantageState;
  /** Explosion extras listed per die, 0 to 100 (default: until the tail is below 1e-30). */
  depth?: number;
}

/** The input of `statsWith` (POST /v1/stats): a RollRequest plus the explosion depth to list. */
export interface StatsRequest extends RollRequest {
  depth?: number;
}

/** One possible total and its exact probability (docs/stats.md). */
export interface StatsOutcome {
  total: number;
  /** Ways to get it over `denominator`, a decimal string; absent when counts are omitted. */
  count?: string;
  probability: number;
  atLeast: number;
  atMost: number;
}

/** The answer of `stats` and `statsWith`: the exact distribution of the roll's total. */
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
  listing: 'full' | 'probabilities' | 'summary';
  denominator: string | null;
  outcomes: StatsOutcome[];
  percentiles: { '5': number; '25': number; '50': number; '75': number; '95': number } | null;
  truncation: { depth: number; tailProbability: number; tailExact: string } | null;
}

/** The stable error codes of the API, the same over REST and tRPC. */
export const API_ERROR_CODES = [
  'invalid_request',
  'invalid_formula',
  'too_many_dice',
  'too_complex',
  'payload_too_large',
  'rate_limited',
  'internal_error',
  'not_found',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The API error a failed call carries: the code and message REST would answer with. */
export interface ApiErrorData {
  code: ApiErrorCode;
  /** Human-readable and safe to show on a page; may be reworded, so match on `code`. */
  message: string;
  /** On `rate_limited` only: seconds until the address may call again. */
  retryAfter?: number;
}
