// The service's one error vocabulary: every code, the HTTP status it travels with, what each
// status means, and the fixed messages. The engine throws these errors; the edges (src/http for
// REST, src/api/trpc.ts for tRPC) only translate them. Every message is safe to put on a web page
// (no character a formula cannot contain is ever quoted). The list of codes is in docs/api.md.
import { LIMITS } from './limits.js';

/**
 * What each error status means, and the name of its body schema in the OpenAPI document (built
 * by src/http/openapi.ts, with the status's codes as its enum). A new status is one row here; the
 * compiler then asks for its tRPC code (src/api/trpc.ts) and its documented example
 * (src/http/openapi.ts). A new code of an existing status is one row of ERROR_CODES below.
 */
export const ERROR_STATUSES = {
  400: { schema: 'BadRequestError', description: 'The request or the formula was rejected' },
  403: {
    schema: 'ForbiddenError',
    description: "The reveal token is not the sealed roll's (docs/trust.md#sealed-rolls)",
  },
  404: {
    schema: 'NotFoundError',
    description: 'No such path, table, stored receipt or sealed entry',
  },
  409: {
    schema: 'ConflictError',
    description:
      'The table holds its maximum of entries, another request with this Idempotency-Key is still being answered, or the sealed roll was revealed already',
  },
  422: {
    schema: 'UnprocessableError',
    description: 'This Idempotency-Key was already used for another request (docs/api.md#idempotency)',
  },
  413: {
    schema: 'PayloadTooLargeError',
    description: `The request body is larger than the limit (${LIMITS.bodyBytes} bytes by default)`,
  },
  429: { schema: 'RateLimitedError', description: 'Too many requests from this address' },
  500: {
    schema: 'InternalError',
    description:
      'Something failed on the server (the random source, or a fault of ours); the caller may try again',
  },
  503: {
    schema: 'UnavailableError',
    description:
      'The table and receipt store cannot be reached (plain rolls still work), or every stats worker is busy and its queue full (retry after the retry-after header)',
  },
} as const;

export type ErrorStatus = keyof typeof ERROR_STATUSES;

/** Every code the service answers with, and its status. A new code is one row here. */
export const ERROR_CODES = {
  invalid_request: 400,
  invalid_formula: 400,
  too_many_dice: 400,
  too_complex: 400,
  wrong_reveal_token: 403,
  not_found: 404,
  not_sealed: 404,
  table_full: 409,
  idempotency_key_in_use: 409,
  already_revealed: 409,
  payload_too_large: 413,
  idempotency_key_reused: 422,
  rate_limited: 429,
  too_many_tables: 429,
  too_many_streams: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, ErrorStatus>;

export type ApiErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes with a body schema of their own in the document: only the operations whose `errors`
 * (src/api/operations.ts) list them answer them, so their status's schema leaves them out and
 * those operations document both.
 */
export const CODE_SCHEMAS: Partial<Record<ApiErrorCode, { schema: string; description: string }>> = {
  too_complex: {
    schema: 'TooComplexError',
    description: "The formula's exact distribution would cost more than the budget (docs/stats.md)",
  },
};

/** The codes a status carries, in table order (the `code` enum of that status's body schema). */
export const codesOf = (status: ErrorStatus): ApiErrorCode[] =>
  (Object.keys(ERROR_CODES) as ApiErrorCode[]).filter((code) => ERROR_CODES[code] === status);

/** The statuses `codes` travel with, in ascending order. */
export const statusesOf = (codes: readonly ApiErrorCode[]): ErrorStatus[] =>
  [...new Set(codes.map((code) => ERROR_CODES[code]))].sort((a, b) => a - b);

/**
 * An error status in an operation's list of responses: its meaning and, when several, the codes
 * of `codes` (default: every code) it carries, in table order.
 */
export function statusDescription(
  status: ErrorStatus,
  codes: readonly ApiErrorCode[] = codesOf(status),
): string {
  const listed = codesOf(status).filter((code) => codes.includes(code));
  const { description } = ERROR_STATUSES[status];
  return listed.length > 1 ? `${description} (${listed.join(', ')}).` : `${description}.`;
}

/** The fixed messages; every other message is built where its error is thrown. */
export const MESSAGES = {
  /** Any failure nobody planned for: the original goes to the log with the request id, never to the body. */
  unexpected: 'An unexpected error occurred; it has been logged.',
  randomSource: 'The random source failed; please try again.',
  rateLimited: 'Too many requests from this address; wait the number of seconds in the retry-after header.',
  throwsSpent:
    'This address has rolled too many dice lately; wait the number of seconds in the retry-after header.',
  statsSpent:
    'This address has used its share of exact-distribution computing time; wait the number of seconds in the retry-after header (answers already computed are still served).',
  statsInFlight:
    'This address already has an exact distribution being computed; wait for its answer, then ask again.',
  statsQueueFull:
    'Every stats worker is busy and its queue is full; try again in the number of seconds in the retry-after header.',
  statsWaitedTooLong:
    'Every stats worker stayed busy for as long as a computation may wait; try again in the number of seconds in the retry-after header.',
  notFound: 'No such path. See /openapi.json for the operations.',
  tooManyConnections: 'Too many open connections from your address; close some and retry.',
  unsupportedEncoding:
    'The body has a Content-Encoding; send it uncompressed (no Content-Encoding, or identity).',
  payloadTooLarge: (bodyLimitBytes: number) => `The request body is larger than ${bodyLimitBytes} bytes.`,
  tableNotFound: 'No such table (it may have expired).',
  rollNotFound: 'No stored receipt has this id (it may have expired).',
  tableFull: (maxEntries: number) =>
    `This table holds its maximum of ${maxEntries} entries; create a new table.`,
  tooManyTables: (perHour: number) =>
    `This address has created ${perHour} tables this hour, the most allowed; try again later.`,
  tooManyStreams: (limit: number) =>
    `This address already holds ${limit} open event streams, the most allowed; close one first.`,
  unavailable: 'The table and receipt store is unavailable; plain rolls still work. Try again shortly.',
  idempotencyKeyReused:
    'This Idempotency-Key was already used for a different request; send a new key for a new roll.',
  wrongRevealToken:
    "This is not the reveal token of that sealed roll; only its roller's answer held the right one.",
  notSealed: 'That table has no sealed roll at this sequence number (an open roll, a reveal, or no entry).',
  alreadyRevealed: (revealedIn: number) =>
    `This sealed roll was revealed already, in entry ${revealedIn}; a sealed roll is revealed once.`,
  idempotencyKeyInUse:
    'Another request with this Idempotency-Key is still being answered; send it again shortly to get its answer.',
} as const;

/** The body of every error response: `{"error":{"code","message"}}`. */
export interface ErrorBody {
  error: { code: ApiErrorCode; message: string };
}

/** Every error the service answers on purpose: a code from ERROR_CODES and a safe message. */
export class DiceError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DiceError';
  }

  get status(): ErrorStatus {
    return ERROR_CODES[this.code];
  }

  /** The response body; the status is `status`. */
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

/** The answer to anything nobody planned for (log the original first). */
export const unexpectedError = (): DiceError => new DiceError('internal_error', MESSAGES.unexpected);

/**
 * A formula or bonus fragment that does not parse or breaks a rule of the language
 * (docs/language.md), including an unlisted trailing word and the per-roll dice limit.
 */
export class FormulaError extends DiceError {
  declare readonly code: 'invalid_formula';
  constructor(
    /** Human text without the location prefix, e.g. "Expected a number of sides". */
    readonly detail: string,
    /** Which item: "formula", "bonuses[1]"; the service prefixes batch items ("rolls[3].formula"). */
    readonly item: string,
    /** 1-based column in that item's text, or undefined for rules about the whole roll. */
    readonly column: number | undefined,
    /** What the parser expected at the column (readable names), empty for rule violations. */
    readonly expected: readonly string[] = [],
  ) {
    super('invalid_formula', FormulaError.compose(item, column, detail));
    this.name = 'FormulaError';
  }

  static compose(item: string, column: number | undefined, detail: string): string {
    return column === undefined ? `${item}: ${detail}` : `${item}, column ${column}: ${detail}`;
  }

  /** The same error, located inside a larger request (for a batch: `rolls[3]`). */
  within(prefix: string): FormulaError {
    return new FormulaError(this.detail, `${prefix}.${this.item}`, this.column, this.expected);
  }
}

/** A request that breaks a schema or contradicts itself (an `adv` term plus `advantage`). */
export class RequestError extends DiceError {
  declare readonly code: 'invalid_request';
  constructor(message: string) {
    super('invalid_request', message);
    this.name = 'RequestError';
  }
}

/** A batch whose dice together exceed the batch budget. */
export class TooManyDiceError extends DiceError {
  declare readonly code: 'too_many_dice';
  constructor(
    readonly budget: number,
    readonly requested: number,
  ) {
    super(
      'too_many_dice',
      `This batch asks for ${requested} dice; a batch may roll at most ${budget} dice in total.`,
    );
    this.name = 'TooManyDiceError';
  }
}

/** A distribution (/v1/stats) whose exact answer would cost more than the engine's budget (docs/stats.md). */
export class TooComplexError extends DiceError {
  declare readonly code: 'too_complex';
  constructor(message: string) {
    super('too_complex', message);
    this.name = 'TooComplexError';
  }
}

/**
 * A request whose rerolls and explosions went on past the throws budget: refused as a whole
 * (no partial roll is answered), with the same code as the dice budgets.
 */
export class TooManyThrowsError extends DiceError {
  declare readonly code: 'too_many_dice';
  constructor(readonly budget: number) {
    super(
      'too_many_dice',
      `This request threw more than ${budget} dice counting rerolls and explosions; a request may throw at most ${budget}.`,
    );
    this.name = 'TooManyThrowsError';
  }
}

/** The random source failed; the service answers 500 internal_error and the caller may retry. */
export class RandomSourceError extends DiceError {
  declare readonly code: 'internal_error';
  constructor(options?: { cause?: unknown }) {
    super('internal_error', MESSAGES.randomSource, options);
    this.name = 'RandomSourceError';
  }
}

/**
 * The address's throws budget is spent (docs/operations.md#what-one-address-can-cost): 429
 * rate_limited, with the seconds until it holds a throw again, sent as retry-after.
 */
export class ThrowsSpentError extends DiceError {
  declare readonly code: 'rate_limited';
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', MESSAGES.throwsSpent);
    this.name = 'ThrowsSpentError';
  }
}

/**
 * The address's /v1/stats budget refuses a computation (docs/operations.md#what-one-address-can-cost):
 * its computing time is spent, or it already has one under way. 429 rate_limited, with the seconds
 * to wait, sent as retry-after.
 */
export class StatsSpentError extends DiceError {
  declare readonly code: 'rate_limited';
  constructor(
    readonly retryAfterSeconds: number,
    reason: 'spent' | 'inFlight' = 'spent',
  ) {
    super('rate_limited', reason === 'spent' ? MESSAGES.statsSpent : MESSAGES.statsInFlight);
    this.name = 'StatsSpentError';
  }
}

/**
 * No /v1/stats worker for this computation: every worker is busy and the queue is full, or it
 * waited in the queue as long as a computation may wait. 503 unavailable, with a retry-after
 * (seconds) the HTTP edge sends as a header; never too_complex, whose time limit counts only the
 * computation (docs/stats.md).
 */
export class StatsBusyError extends DiceError {
  declare readonly code: 'unavailable';
  readonly retryAfterSeconds = 1;
  constructor(reason: 'queueFull' | 'waitedTooLong') {
    super('unavailable', reason === 'queueFull' ? MESSAGES.statsQueueFull : MESSAGES.statsWaitedTooLong);
    this.name = 'StatsBusyError';
  }
}
