// The HTTP edge of the error vocabulary (src/errors.ts): any thrown value (a DiceError, a schema
// failure, a tRPC error, fastify's own, the rate limiter's) becomes the envelope
// {"error":{"code","message"}} with the code's status. Anything unrecognised is the generic 500,
// logged with the request id; no library text or stack ever reaches a body.
import type { Duplex } from 'node:stream';
import { TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RawInput } from '../api/input.js';
import { fromTrpcError } from '../api/trpc.js';
import { DiceError, MESSAGES, RequestError, unexpectedError } from '../errors.js';
import { answersPeople, REFUSAL_CONTENT_SECURITY_POLICY, refusalPage } from './for-people.js';
import { isTrpcUrl, retryAfterOf, trpcErrorBodyOf } from './trpc-errors.js';

/** The 429 of a request over the rate limit (src/http/rate-limit.ts), answered in the envelope. */
export const rateLimitedError = (): DiceError => new DiceError('rate_limited', MESSAGES.rateLimited);

const FASTIFY_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Send the body as JSON, with Content-Type: application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The body length does not match its Content-Length.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The JSON body is empty.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
};

/** A formula whose space sits where a `+` was probably meant: `2d6+3` sent unencoded arrives as `2d6 3`. */
const LOST_PLUS = /\S\s+[\dd]/i;
const LOST_PLUS_HINT = ' In a URL query, send + as %2B: a bare + arrives as a space.';

/** An invalid_formula from a URL query whose formula lost a `+`, with the hint to encode it. */
function withQueryHint(error: DiceError, input: RawInput | undefined): DiceError {
  if (error.code !== 'invalid_formula' || input?.fromQuery !== true) return error;
  const formula = (input.value as { formula?: unknown } | undefined)?.formula;
  if (typeof formula !== 'string' || !LOST_PLUS.test(formula)) return error;
  return new DiceError(error.code, `${error.message.replace(/\.?$/, '.')}${LOST_PLUS_HINT}`);
}

interface HttpErrorLike {
  code?: unknown;
  statusCode?: unknown;
}

/**
 * The service error for any thrown value, or undefined when nobody planned for it.
 * `bodyLimitBytes` goes into the 413 message; `input` is the raw input of a REST operation.
 */
function httpErrorOf(error: unknown, bodyLimitBytes: number, input?: RawInput): DiceError | undefined {
  if (error instanceof DiceError) return withQueryHint(error, input);
  if (error instanceof TRPCError) return fromTrpcError(error);
  if (error === null || typeof error !== 'object') return undefined;
  const { code, statusCode } = error as HttpErrorLike;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || statusCode === 413)
    return new DiceError('payload_too_large', MESSAGES.payloadTooLarge(bodyLimitBytes));
  if (code === 'FST_ERR_BAD_URL') return new DiceError('not_found', MESSAGES.notFound);
  if (typeof code === 'string' && code in FASTIFY_MESSAGES) return new RequestError(FASTIFY_MESSAGES[code]!);
  // JSON.parse failures from fastify's parser carry statusCode 400 and parser text: never echo it.
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return new RequestError(
      error instanceof SyntaxError
        ? FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY!
        : 'The request is not valid.',
    );
  }
  return undefined;
}

/** Whether an error is one nobody planned for (or the random source failing): it gets logged. */
export const needsLogging = (known: DiceError | undefined): boolean =>
  known === undefined || known.status === 500;

/** Answers `error` in the envelope; an unexpected error is logged (with the request id) first. */
export function replyWithError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  bodyLimitBytes: number,
  input?: RawInput,
): FastifyReply {
  const known = httpErrorOf(error, bodyLimitBytes, input);
  if (needsLogging(known)) request.log.error({ err: error }, 'request failed');
  const answer = known ?? unexpectedError();
  // A refusal that says when to come back (every stats worker busy) says it in the header too.
  const retryAfter = (answer as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  // A page route opened in a browser: a person reads the refusal, in words (src/http/for-people.ts).
  // Its refusal, like its page, depends on Accept.
  if (request.routeOptions.config?.pageForPeople === true) reply.header('vary', 'accept');
  if (answer.code === 'rate_limited' && answersPeople(request)) {
    return reply
      .code(answer.status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', REFUSAL_CONTENT_SECURITY_POLICY)
      .header('cache-control', 'no-store')
      .send(refusalPage(retryAfterOf(reply.getHeader('retry-after')) ?? 1));
  }
  // A /trpc call gets tRPC's error shape, so a tRPC client can read it.
  const body = isTrpcUrl(request.url)
    ? trpcErrorBodyOf(answer, request.url, retryAfterOf(reply.getHeader('retry-after')))
    : answer.toBody();
  return reply.code(answer.status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

const CLIENT_ERROR_MESSAGES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: 'The request headers are too large.',
  ERR_HTTP_REQUEST_TIMEOUT: 'The request took too long to arrive.',
};

/**
 * Fastify's `clientErrorHandler`: a request node's HTTP parser refused (a bad request line, a
 * Content-Length that does not match, oversized headers) never reaches a route or a hook, so
 * the envelope and the CORS header are written on the socket here. Always 400
 * invalid_request: the statuses a roll route may answer are 200, 400, 413, 429 and 500.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection is gone already: nothing to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const message = CLIENT_ERROR_MESSAGES[error.code ?? ''] ?? 'The request could not be read as HTTP.';
    const body = JSON.stringify(new RequestError(message).toBody());
    socket.write(
      'HTTP/1.1 400 Bad Request\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'Access-Control-Allow-Origin: *\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

export interface ErrorHandlingOptions {
  /** BODY_LIMIT_BYTES, for the 413 message. */
  bodyLimitBytes: number;
}

async function errorHandling(app: FastifyInstance, { bodyLimitBytes }: ErrorHandlingOptions): Promise<void> {
  app.setErrorHandler((error, request, reply) => replyWithError(request, reply, error, bodyLimitBytes));
  const notFound = new DiceError('not_found', MESSAGES.notFound);
  app.setNotFoundHandler((request, reply) => replyWithError(request, reply, notFound, bodyLimitBytes));
}

/**
 * The one error envelope for every route and the 404 of any other path, for the whole app (not
 * encapsulated). A malformed URL and what the HTTP parser refuses never reach it: see
 * `answerClientError` above and the app's `frameworkErrors` (src/http/app.ts).
 */
export const errorHandlingPlugin = fp(errorHandling, { name: 'fairdice-error-handling', fastify: '5.x' });
