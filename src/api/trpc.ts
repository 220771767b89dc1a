// The tRPC root: context, meta and the error formatter that puts the API error into every tRPC
// error's data, so a typed client sees the same `code` as REST (`err.data.api.code`).
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { ApiErrorCode } from '../errors.js';
import type { RandomSource } from '../roll/types.js';
import type { Trust } from '../trust/service.js';
import { apiErrorOf, internalError } from './errors.js';

/** The one logging call procedures make (pino-compatible, so a request logger carries its id). */
export interface RollLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Everything a procedure needs from its caller: made per request by the HTTP layer. */
export interface DiceContext {
  log: RollLog;
  random: RandomSource;
  dicePerRoll: number;
  dicePerBatch: number;
  /** Receipts and tables: the signing key and the store. */
  trust?: Trust | undefined;
  /** The client address (as TRUST_PROXY decides), which table creations count against. */
  address?: string | undefined;
}

export interface ApiErrorData {
  code: ApiErrorCode;
  message: string;
}

const t = initTRPC
  .context<DiceContext>()
  .meta<OpenApiMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const api = apiErrorOf(error) ?? internalError();
      const data: ApiErrorData = { code: api.code, message: api.message };
      return {
        code: shape.code,
        message: api.message,
        data: { code: shape.data.code, httpStatus: api.status, path: shape.data.path, api: data },
      };
    },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
