// The constants of the service's vocabulary, zod-free: the shapes (./shapes) and the types
// (./types.ts) both read them, and the client's main entry exports them.

/** Applies to the first plain d20 term: `advantage` keeps the highest of two, `disadvantage` the lowest. */
export type AdvantageState = 'normal' | 'advantage' | 'disadvantage';

/** Every advantage state, in the order the API documents them. */
export const ADVANTAGE_STATES = [
  'normal',
  'advantage',
  'disadvantage',
] as const satisfies readonly AdvantageState[];

/** A table id as `createTable` makes it: base64url, at least 128 random bits. */
export const TABLE_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

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
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'unavailable',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** /v1/stats: totals in `targets` at most (docs/stats.md#targets). */
export const STATS_TARGETS_MAX = 20;

/** /v1/stats/batch: requests in one batch at most, answered under one work budget. */
export const STATS_BATCH_MAX = 5;
