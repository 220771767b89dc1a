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
  /** `'true'`: the answer carries a signed `receipt` anyone can verify (docs/trust.md). */
  receipt?: 'true' | 'false';
}

/** The input of `rollWith` (POST /v1/roll): a formula with bonuses and the tags it may end with. */
export interface RollRequest {
  formula: string;
  advantage?: AdvantageState;
  /** Integers and formula fragments added to the roll. */
  bonuses?: readonly Bonus[];
  /** The trailing words the formula may end with (lowercase a to z). */
  tags?: readonly string[];
  /** true: the answer carries a signed `receipt` anyone can verify (docs/trust.md). */
  receipt?: boolean;
  /** Roll at this table (an id from `createTable`): always signed, appended to the table's log. */
  table?: string;
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
  /** Fate (`dF`) and custom (`d{...}`) dice only: the faces, in written order. */
  faces?: number[];
  /** The label written after the term (`2d6[fire]`), only when written. */
  label?: string;
  /** Success counting only: how many kept values met the success point. */
  successes?: number;
  /** Only with `f`: how many kept values met the failure point. */
  failures?: number;
  /** `m` / `mt`: the values shown by at least N kept dice, ascending. */
  matches?: number[];
  /** Only with `!!` / `!!p`: each die's throws are merged into one value in `results`. */
  compounded?: true;
  /** Only on terms written with r, ro, u, !, !p, !! or !!p: every physical throw in rolling order. */
  throws?: DieThrow[];
}

/** One physical throw of a die. */
export interface DieThrow {
  /** 0-based index of the die within its group. */
  die: number;
  /** `roll`: the die's first throw; `reroll`: a throw replacing the one before; `explode`: an extra. */
  kind: 'roll' | 'reroll' | 'explode';
  /** The recorded value, the one `results` holds: after min/max, and minus 1 for an extra of `!p`. */
  value: number;
  /** The face that came up, present only when min/max or `!p` changed the value. */
  face?: number;
}

/** An item of an evaluated group: its value, whether it counted, and its own tree. */
export interface GroupItem {
  value: number;
  /** The exact value as "n/d", present only when `value` is not an integer. */
  exact?: string;
  kept: boolean;
  node: ExpressionNode;
}

/**
 * A node of the evaluated formula (docs/language.md, "The expression tree"), with its value;
 * `exact` ("n/d") appears when the value is not an integer.
 */
export type ExpressionNode =
  /** A dice term: `group` indexes `dice`, `value` is that DieGroup's signed total. */
  | { type: 'dice'; group: number; value: number }
  | { type: 'number'; value: number }
  | {
      type: 'operation';
      operator: '+' | '-' | '*' | '/' | '%' | '^';
      value: number;
      exact?: string;
      /** Two for * and /, one for a minus before a non-dice term, two or more for a sum. */
      operands: ExpressionNode[];
    }
  | {
      type: 'function';
      name: 'floor' | 'ceil' | 'round' | 'abs' | 'min' | 'max';
      value: number;
      exact?: string;
      arguments: ExpressionNode[];
    }
  | {
      type: 'group';
      value: number;
      exact?: string;
      items: GroupItem[];
      successes?: number;
      failures?: number;
      label?: string;
    };

/** A roll's result as a receipt holds it: a RollResponse without its receipt. */
export interface Roll {
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
  /**
   * Present only when the formula or a bonus uses parentheses, *, /, a function or a group: the
   * evaluated tree. Then `total` is its root value rounded down.
   */
  expression?: ExpressionNode;
}

/** Every die rolled, which ones counted, and the total. */
export interface RollResponse extends Roll {
  /** Present when a receipt was asked for, or at a table. */
  receipt?: Receipt;
}

/** What was asked: the roll request as rolled, without its receipt and table switches. */
export interface SignedRequest {
  formula: string;
  advantage?: AdvantageState;
  bonuses?: Bonus[];
  tags?: string[];
}

/**
 * A signed record of one roll, verifiable offline against the service's keys (`jwks`, or
 * /.well-known/jwks.json) with `verifyReceipt`. A type alias, not an interface, so that it can be
 * passed as it is to the `verifyReceipt` procedure (which takes any JSON object).
 */
export type Receipt = {
  /** UUIDv7: unique, ordered by time. */
  id: string;
  /** When it was signed (RFC 3339, UTC, milliseconds). */
  time: string;
  /** Which key of the key set verifies it (RFC 7638 thumbprint). */
  kid: string;
  request: SignedRequest;
  roll: Roll;
  /** At a table: its id. */
  table?: string;
  /** At a table: this entry's sequence number, from 1. */
  seq?: number;
  /** At a table: SHA-256 (hex) of the canonical JSON of the entry before, 64 zeros for the first. */
  prev?: string;
  /** Ed25519 signature (base64url) over the RFC 8785 canonical JSON of every other field. */
  signature: string;
};

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
export interface StatsQuery extends Omit<RollQuery, 'receipt'> {
  /** Explosion extras listed per die, 0 to 100 (default: until the tail is below 1e-30). */
  depth?: number;
}

/** The input of `statsWith` (POST /v1/stats): a RollRequest plus the explosion depth to list. */
export interface StatsRequest extends Omit<RollRequest, 'receipt' | 'table'> {
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

/** The answer of `createTable` (POST /v1/tables): whoever holds its id may roll and read there. */
export interface TableCreated {
  id: string;
  /** RFC 3339, UTC. */
  createdAt: string;
  /** Entries the table may hold. */
  maxEntries: number;
  /** The table is forgotten this many days after its last roll. */
  retentionDays: number;
  links: {
    /** The table's log. */
    rolls: string;
    /** Server-Sent Events of new rolls. */
    events: string;
  };
}

/** The input of `tableRolls` (GET /v1/tables/{id}/rolls). */
export interface TableRollsQuery {
  id: string;
  /** A number: list entries with a sequence number above it (default 0). The service coerces it. */
  after?: unknown;
  /** A number: at most this many entries. The service coerces it. */
  limit?: unknown;
}

/** A page of a table's log. */
export interface TableRolls {
  table: string;
  /** Entries in the whole log: the last sequence number. */
  entries: number;
  /** The entries asked for, in sequence order. */
  rolls: Receipt[];
}

/** The input of `storedRoll` (GET /v1/rolls/{rollId}). */
export interface StoredRollQuery {
  /** A receipt's id (UUIDv7). */
  rollId: string;
}

/** The input of `verifyReceipt` (POST /v1/receipts/verify): a receipt, as the service gave it. */
export interface VerifyRequest {
  receipt: Record<string, unknown>;
}

/** The answer of the `verifyReceipt` procedure. */
export interface VerifyResponse {
  valid: boolean;
  /** When valid: the key that verified it. */
  kid?: string;
  /** When invalid: what failed. */
  reason?: string;
}

/** One public key that verifies receipts. */
export interface Ed25519Jwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  /** RFC 7638 thumbprint; receipts name it. */
  kid: string;
  alg?: 'EdDSA';
  use?: 'sig';
}

/** The answer of `jwks` (/.well-known/jwks.json): the current key first, then retired ones. */
export interface Jwks {
  keys: Ed25519Jwk[];
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
  'table_full',
  'too_many_tables',
  'too_many_streams',
  'unavailable',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The API error a failed call carries: the code and message REST would answer with. */
export interface ApiErrorData {
  code: ApiErrorCode;
  /** Human-readable and safe to show on a page; may be reworded, so match on `code`. */
  message: string;
  /** On a 429 only (`rate_limited`, `too_many_tables`, `too_many_streams`): seconds to wait. */
  retryAfter?: number;
}
