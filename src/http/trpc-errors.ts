// Errors answered on /trpc before tRPC sees the call (the rate limit's 429, the body limit's 413,
// fastify's own refusals) in tRPC's error shape, the one the router's error formatter gives every
// other /trpc error (src/api/trpc.ts): a tRPC client reads them as `error.data.api` instead of
// failing to parse the REST envelope. A 429 adds `retryAfter` in seconds. See docs/client.md.
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { type ApiErrorData, TRPC_CODE_OF_STATUS } from '../api/trpc.js';
import type { DiceError } from '../errors.js';

const PREFIX = '/trpc';

/** Whether `url` (path and query) is under the tRPC endpoint. */
export const isTrpcUrl = (url: string): boolean =>
  url === PREFIX || url.startsWith(`${PREFIX}/`) || url.startsWith(`${PREFIX}?`);

/** A procedure name as the router spells them; anything else is not echoed. */
const PROCEDURE = /^[A-Za-z][A-Za-z0-9_.]{0,99}$/;

/** The procedure a /trpc URL calls (`/trpc/roll?input=...` is `roll`), if it names one plainly. */
export function procedureOfUrl(url: string): string | undefined {
  if (!url.startsWith(`${PREFIX}/`)) return undefined;
  const name = url.slice(PREFIX.length + 1).split('?')[0] ?? '';
  return PROCEDURE.test(name) ? name : undefined;
}

/** The `retry-after` the rate limiter set on the reply, in seconds, if any. */
export function retryAfterOf(header: unknown): number | undefined {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return header !== undefined && Number.isInteger(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The body of a /trpc error response: `{"error":{"code","message","data":{...,"api"}}}`. */
export function trpcErrorBodyOf(error: DiceError, url: string, retryAfter?: number) {
  const key = TRPC_CODE_OF_STATUS[error.status];
  const api: ApiErrorData = {
    code: error.code,
    message: error.message,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
  return {
    error: {
      code: TRPC_ERROR_CODES_BY_KEY[key],
      message: error.message,
      data: { code: key, httpStatus: error.status, path: procedureOfUrl(url), api },
    },
  };
}
