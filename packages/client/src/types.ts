// The service's types for front ends. The answers' types are inferred from their zod schemas in
// ./shapes, the one declaration of each wire shape, and imported here as types only: this module
// and ./constants.ts load nothing at run time, so the client's main entry carries no zod. The
// requests are written out below. Nothing here imports a server package; the root test suite
// holds both to the server's own procedures (test/client/contract.test.ts).

import type { AdvantageState, ApiErrorCode } from './constants.js';

export {
  ADVANTAGE_STATES,
  type AdvantageState,
  API_ERROR_CODES,
  type ApiErrorCode,
  STATS_BATCH_MAX,
  STATS_TARGETS_MAX,
  TABLE_ID_PATTERN,
} from './constants.js';
export type { HealthResponse } from './shapes/health.js';
export type { Ed25519Jwk, Jwks, Receipt, SignedRequest, VerifyResponse } from './shapes/receipt.js';
export type { BatchRollResponse, RollResponse } from './shapes/response.js';
export type { DieGroup, DieThrow, ExpressionNode, GroupItem, Roll } from './shapes/roll.js';
export type {
  StatsBatchResponse,
  StatsDistribution,
  StatsOutcome,
  StatsResponse,
  StatsTarget,
  StatsVersus,
} from './shapes/stats.js';
export type {
  ReportEntry,
  RevealEntry,
  SealedEntry,
  SealedRequest,
  SealedRoll,
  TableCreated,
  TableEntry,
  TableHead,
  TableReport,
  TableRolls,
} from './shapes/tables.js';

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
  /** Who rolls: a display name of 1 to 32 characters, signed into the receipt. */
  by?: string;
  /** What the roll is for: 1 to 200 characters, signed into the receipt. */
  note?: string;
  /**
   * A key of 1 to 255 visible ASCII characters, new for each roll: the same key again with the
   * same request within 24 hours answers the first answer (`replayed: true`) instead of rolling
   * (docs/api.md#idempotency).
   */
  idempotencyKey?: string;
}

/** One roll of a batch: a RollRequest without its own idempotency key (the batch has one). */
export type BatchRollItem = Omit<RollRequest, 'idempotencyKey'>;

/** The input of `batch` (POST /v1/roll/batch): rolls that share one dice budget. */
export interface BatchRollRequest {
  rolls: readonly BatchRollItem[];
  /** As RollRequest's: one key for the whole batch. */
  idempotencyKey?: string;
}

/** The input of `stats` (GET /v1/stats): a formula, an advantage state and the explosion depth to list. */
export interface StatsQuery extends Omit<RollQuery, 'receipt'> {
  /** Explosion extras listed per die, 0 to 100 (default: until the tail is below 1e-30). */
  depth?: number;
  /** Up to 20 totals, comma-separated (`10,15,20`): the answer's `targets` gives P(total >= t) and P(total <= t). */
  targets?: string;
  /** An opposing formula B: the answer's `versus` gives P(A > B), P(A = B), P(A < B) and A - B. */
  versus?: string;
  /** The advantage state of `versus`. */
  versusAdvantage?: AdvantageState;
}

/** A roll whose odds are asked: a RollRequest without its switches (receipt, table, by, note, idempotencyKey). */
export type StatsRoll = Omit<RollRequest, 'receipt' | 'table' | 'by' | 'note' | 'idempotencyKey'>;

/** The input of `statsWith` (POST /v1/stats): a RollRequest plus the explosion depth to list. */
export interface StatsRequest extends StatsRoll {
  depth?: number;
  /** Up to 20 totals: the answer's `targets` gives P(total >= t) and P(total <= t) for each. */
  targets?: readonly number[];
  /** An opposing roll B (its own advantage, bonuses and tags): the answer's `versus`. */
  versus?: StatsRoll;
}

/** The input of `statsBatch` (POST /v1/stats/batch): up to 5 stats requests under one budget. */
export interface StatsBatchRequest {
  requests: readonly StatsRequest[];
}

/** The input of `tableRolls` (GET /v1/tables/{id}/rolls). */
export interface TableRollsQuery {
  id: string;
  /** A number: list entries with a sequence number above it (default 0). The service coerces it. */
  after?: unknown;
  /** A number: at most this many entries. The service coerces it. */
  limit?: unknown;
}

/** The input of `tableReport` (GET /v1/tables/{id}/report). */
export interface TableReportQuery {
  id: string;
}

/** The input of `storedRoll` (GET /v1/rolls/{rollId}). */
export interface StoredRollQuery {
  /** A receipt's id (UUIDv7). */
  rollId: string;
}

/**
 * The input of `verifyReceipt` (POST /v1/receipts/verify): a receipt; or a head, a log (`rolls`,
 * from entry 1) or both, the log then checked against the head.
 */
export interface VerifyRequest {
  receipt?: Record<string, unknown>;
  head?: Record<string, unknown>;
  rolls?: readonly Record<string, unknown>[];
}

/** The API error a failed call carries: the code and message REST would answer with. */
export interface ApiErrorData {
  code: ApiErrorCode;
  /** Human-readable and safe to show on a page; may be reworded, so match on `code`. */
  message: string;
  /** On a 429 only (`rate_limited`, `too_many_tables`, `too_many_streams`): seconds to wait. */
  retryAfter?: number;
}
