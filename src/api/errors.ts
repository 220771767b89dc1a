// The API's error vocabulary: which status each code travels with, and how any error the
// procedures can raise (a dice error, a schema failure, a tRPC error) becomes one safe
// {status, code, message}. Messages never quote library text or caller-supplied markup.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { z } from 'zod';
import { type ApiErrorCode, DiceError, RandomSourceError } from '../errors.js';

export interface ApiError {
  status: number;
  code: ApiErrorCode;
  message: string;
}

/** Exactly the codes each status may carry (docs/api.md "Errors", plus not_found for unknown paths). */
export const CODES_OF_STATUS = {
  400: ['invalid_request', 'invalid_formula', 'too_many_dice', 'too_complex'],
  404: ['not_found'],
  413: ['payload_too_large'],
  429: ['rate_limited'],
  500: ['internal_error'],
} as const satisfies Record<number, readonly ApiErrorCode[]>;

export type ErrorStatus = keyof typeof CODES_OF_STATUS;

type ListedCode = (typeof CODES_OF_STATUS)[ErrorStatus][number];

/**
 * The status each code travels with, read off CODES_OF_STATUS. Typed as a record over every
 * ApiErrorCode, so a code added without a status fails to compile.
 */
export const STATUS_OF_CODE: Readonly<Record<ApiErrorCode, number>> = Object.fromEntries(
  Object.entries(CODES_OF_STATUS).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)])),
) as Record<ListedCode, number>;

/** The one message of every 500: the random source failed, or something unexpected did. */
export const INTERNAL_ERROR_MESSAGE = new RandomSourceError().message;

export const RATE_LIMITED_MESSAGE =
  'Too many requests from this address; wait the number of seconds in the retry-after header.';

export const NOT_FOUND_MESSAGE = 'No such path. See /openapi.json for the operations.';

export const payloadTooLargeMessage = (bodyLimitBytes: number): string =>
  `The request body is larger than ${bodyLimitBytes} bytes.`;

/** The body of an error response: `{"error":{"code","message"}}`. */
export const errorBodyOf = (error: ApiError): { error: ApiErrorBody } => ({
  error: { code: error.code, message: error.message },
});

export type ApiErrorBody = Omit<ApiError, 'status'>;

export const apiError = (code: ApiErrorCode, message: string): ApiError => ({
  status: STATUS_OF_CODE[code],
  code,
  message,
});

/** Whether `value` is already an API error (so mapping it again is the identity). */
export function isApiError(value: unknown): value is ApiError {
  if (value === null || typeof value !== 'object') return false;
  const { status, code, message } = value as Partial<ApiError>;
  return (
    typeof code === 'string' &&
    code in STATUS_OF_CODE &&
    status === STATUS_OF_CODE[code] &&
    typeof message === 'string'
  );
}

export const internalError = (): ApiError => apiError('internal_error', INTERNAL_ERROR_MESSAGE);

const TRPC_CODE_OF_STATUS: Readonly<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
};

/** A dice error as a tRPC error with the matching status, so tRPC clients see 400, not 500. */
export function toTrpcError(error: unknown): unknown {
  if (!(error instanceof DiceError)) return error;
  const status = STATUS_OF_CODE[error.code];
  return new TRPCError({
    code: TRPC_CODE_OF_STATUS[status] ?? 'INTERNAL_SERVER_ERROR',
    message: error.message,
    cause: error,
  });
}

type Issue = z.core.$ZodIssue;

const SAFE_KEY = /^[A-Za-z0-9_]{1,40}$/;

/** `rolls[3].formula`; an unsafe key (one that could hold markup) is described, not quoted. */
export function describePath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && SAFE_KEY.test(key)) text += text === '' ? key : `.${key}`;
    else text += text === '' ? '(a field)' : '.(a field)';
  }
  return text;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The raw input, when the caller has it: it tells a missing field from a wrong-typed one. */
export interface RawInput {
  value: unknown;
  /** The input came from a URL query, where a repeated parameter arrives as an array. */
  fromQuery?: boolean;
}

/** A size or value bound: "tags must have at most 20 items.", "formula must be at least 1 character long." */
function describeBound(where: string, origin: string, side: 'at least' | 'at most', limit: number): string {
  if (origin === 'string')
    return `${where} must be ${side} ${plural(limit, 'character', 'characters')} long.`;
  if (origin === 'array') return `${where} must have ${side} ${plural(limit, 'item', 'items')}.`;
  return `${where} must be ${side} ${limit}.`;
}

function describeIssue(issue: Issue, input: RawInput | undefined): string {
  const where = issue.path.length === 0 ? 'The request' : describePath(issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (input !== undefined && valueAt(input.value, issue.path) === undefined) {
        return issue.path.length === 0 ? 'The request needs a JSON object body.' : `${where} is required.`;
      }
      // A query parameter repeated (`?formula=1d6&formula=1d8`) arrives as an array.
      if (
        input?.fromQuery === true &&
        issue.expected === 'string' &&
        Array.isArray(valueAt(input.value, issue.path))
      ) {
        return `${where} was given more than once; give it once.`;
      }
      return `${where} must be ${TYPE_NAMES[issue.expected] ?? 'of another type'}.`;
    case 'too_small':
      return describeBound(where, issue.origin, 'at least', Number(issue.minimum));
    case 'too_big':
      return describeBound(where, issue.origin, 'at most', Number(issue.maximum));
    case 'invalid_format':
      return `${where} must be lowercase letters a to z only.`;
    case 'invalid_value':
      return `${where} must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys': {
      const keys = issue.keys.filter((key) => SAFE_KEY.test(key));
      const named = keys.length === issue.keys.length && keys.length > 0 ? `: ${keys.join(', ')}` : '';
      const at = issue.path.length === 0 ? '' : ` in ${where}`;
      return `Unknown field${issue.keys.length === 1 ? '' : 's'}${at}${named}.`;
    }
    case 'invalid_union':
      return `${where} ${issue.message}`;
    default:
      return `${where} is not valid.`;
  }
}

/** One message for a schema failure: the first problem, and how many more there are. */
export function describeIssues(issues: readonly Issue[], input?: RawInput): string {
  const first = issues[0];
  if (first === undefined) return 'The request is not valid.';
  const rest = issues.length - 1;
  const text = describeIssue(first, input);
  return rest === 0 ? text : `${text} (${plural(rest, 'more problem', 'more problems')} in this request.)`;
}

function isZodError(error: unknown): error is z.ZodError {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as z.ZodError).issues);
}

/** A formula whose space sits where a `+` was probably meant: `2d6+3` sent unencoded arrives as `2d6 3`. */
const LOST_PLUS = /\S\s+[\dd]/i;
const LOST_PLUS_HINT = ' In a URL query, send + as %2B: a bare + arrives as a space.';

function withQueryHint(api: ApiError, query: unknown): ApiError {
  if (api.code !== 'invalid_formula') return api;
  const formula = (query as { formula?: unknown } | undefined)?.formula;
  if (typeof formula !== 'string' || !LOST_PLUS.test(formula)) return api;
  return { ...api, message: `${api.message.replace(/\.?$/, '.')}${LOST_PLUS_HINT}` };
}

/**
 * The API error for anything a procedure call can raise, or undefined when the error is
 * unexpected (the caller answers the generic 500 and logs the original).
 * `input` is the raw input when known, used only to tell a missing field from a wrong one.
 */
export function apiErrorOf(error: unknown, input?: RawInput): ApiError | undefined {
  if (isApiError(error)) return error;
  if (error instanceof DiceError) {
    if (error.code === 'internal_error') return internalError();
    const api = apiError(error.code, error.message);
    return input?.fromQuery === true ? withQueryHint(api, input.value) : api;
  }
  if (isZodError(error)) return apiError('invalid_request', describeIssues(error.issues, input));
  if (!(error instanceof TRPCError)) return undefined;
  if (error.cause instanceof DiceError) return apiErrorOf(error.cause, input);
  // An output-validation failure is ours, not the caller's: only input failures are 400s.
  if (isZodError(error.cause))
    return error.code === 'BAD_REQUEST' ? apiErrorOf(error.cause, input) : undefined;
  switch (error.code) {
    case 'BAD_REQUEST':
    case 'PARSE_ERROR':
    case 'METHOD_NOT_SUPPORTED':
    case 'UNSUPPORTED_MEDIA_TYPE':
      return apiError('invalid_request', 'The request is not valid.');
    case 'NOT_FOUND':
      return apiError('not_found', NOT_FOUND_MESSAGE);
    case 'PAYLOAD_TOO_LARGE':
      return apiError('payload_too_large', 'The request body is too large.');
    default:
      return undefined;
  }
}
