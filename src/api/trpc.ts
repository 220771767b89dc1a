// The tRPC edge: context, meta, and the translation of errors both ways. An operation's
// DiceError leaves as a TRPCError with the matching status; the error formatter puts the service
// error into every tRPC error's data, so a typed client sees the same `code` as REST
// (`err.data.api.code`).
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import {
  type ApiErrorCode,
  DiceError,
  type ErrorStatus,
  MESSAGES,
  RequestError,
  unexpectedError,
} from '../errors.js';
import { describeIssues, type RawInput } from './input.js';
import type { DiceContext } from './operations.js';

/** The service error in a tRPC error's data (`err.data.api`). */
export interface ApiErrorData {
  code: ApiErrorCode;
  message: string;
  /** On a 429 only (the rate limit's, src/http/trpc-errors.ts, or a spent throws budget's): seconds to wait. */
  retryAfter?: number;
}

/** Typed over every status, so a status added to src/errors.ts without a tRPC code fails to compile. */
export const TRPC_CODE_OF_STATUS: Readonly<Record<ErrorStatus, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

/** A DiceError as a TRPCError with its status (tRPC would answer 500); anything else unchanged. */
export function toTrpcError(error: unknown): unknown {
  if (!(error instanceof DiceError)) return error;
  return new TRPCError({ code: TRPC_CODE_OF_STATUS[error.status], message: error.message, cause: error });
}

/**
 * The service error a tRPC error stands for, or undefined when nobody planned for it. `input` is
 * the call's raw input when known: with it a schema failure is worded as REST words it.
 */
export function fromTrpcError(error: TRPCError, input?: RawInput): DiceError | undefined {
  const { cause } = error;
  if (cause instanceof DiceError) return cause;
  // An output-validation failure is ours, not the caller's: only input failures are 400s.
  if (cause instanceof z.ZodError)
    return error.code === 'BAD_REQUEST' ? new RequestError(describeIssues(cause.issues, input)) : undefined;
  switch (error.code) {
    case 'BAD_REQUEST':
    case 'PARSE_ERROR':
    case 'METHOD_NOT_SUPPORTED':
    case 'UNSUPPORTED_MEDIA_TYPE':
      return new RequestError('The request is not valid.');
    case 'NOT_FOUND':
      return new DiceError('not_found', MESSAGES.notFound);
    // No PAYLOAD_TOO_LARGE: the body limit is fastify's (answered by the HTTP edge), tRPC has none.
    default:
      return undefined;
  }
}

const t = initTRPC
  .context<DiceContext>()
  .meta<OpenApiMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error, input }) {
      const known = fromTrpcError(error, { value: input }) ?? unexpectedError();
      const api: ApiErrorData = { code: known.code, message: known.message };
      // A spent throws budget (docs/operations.md#what-one-address-can-cost) says when to retry.
      const retryAfter = (known as { retryAfterSeconds?: unknown }).retryAfterSeconds;
      if (known.status === 429 && typeof retryAfter === 'number') api.retryAfter = retryAfter;
      return {
        code: shape.code,
        message: known.message,
        data: { code: shape.data.code, httpStatus: known.status, path: shape.data.path, api },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
