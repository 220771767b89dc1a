// Errors answered on /trpc before tRPC sees the call (the rate limit's 429, the body limit's 413,
// fastify's own refusals) in tRPC's error shape, the one the router's error formatter gives every
// other /trpc error (src/api/trpc.ts): a tRPC client reads them as `error.data.api` instead of
// failing to parse the REST envelope. A 429 adds `retryAfter` in seconds. See docs/client.md.
import { type TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

/** The error as the HTTP edge knows it: its status, API code and safe message. */
export interface EdgeError {
  status: number;
  code: string;
  message: string;
}

const TRPC_KEY_OF_STATUS: Readonly<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
};

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
export function trpcErrorBodyOf(error: EdgeError, url: string, retryAfter?: number) {
  const key = TRPC_KEY_OF_STATUS[error.status] ?? 'INTERNAL_SERVER_ERROR';
  return {
    error: {
      code: TRPC_ERROR_CODES_BY_KEY[key],
      message: error.message,
      data: {
        code: key,
        httpStatus: error.status,
        path: procedureOfUrl(url),
        api: {
          code: error.code,
          message: error.message,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        },
      },
    },
  };
}
