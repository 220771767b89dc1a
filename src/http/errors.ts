// The one mapping from any error (dice, schema, tRPC, fastify, rate limiter) to the envelope
// {"error":{"code","message"}}. Anything unrecognised becomes the generic 500 and is logged
// with the request id; no library text or stack ever reaches a body.
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ApiError,
  apiError,
  apiErrorOf,
  errorBodyOf,
  internalError,
  NOT_FOUND_MESSAGE,
  payloadTooLargeMessage,
  RATE_LIMITED_MESSAGE,
  type RawInput,
} from '../api/errors.js';

/** What the rate limiter throws for a 429 (its errorResponseBuilder result). */
export class RateLimitedError extends Error {
  readonly statusCode = 429;
  constructor() {
    super(RATE_LIMITED_MESSAGE);
    this.name = 'RateLimitedError';
  }
}

const FASTIFY_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Send the body as JSON, with Content-Type: application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The body length does not match its Content-Length.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The JSON body is empty.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
};

interface HttpErrorLike {
  code?: unknown;
  statusCode?: unknown;
}

/** The API error for any thrown value; `bodyLimitBytes` goes into the 413 message. */
export function toApiError(error: unknown, bodyLimitBytes: number, input?: RawInput): ApiError | undefined {
  const known = apiErrorOf(error, input);
  if (known !== undefined) return known;
  if (error instanceof RateLimitedError) return apiError('rate_limited', RATE_LIMITED_MESSAGE);
  if (error === null || typeof error !== 'object') return undefined;
  const { code, statusCode } = error as HttpErrorLike;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || statusCode === 413) {
    return apiError('payload_too_large', payloadTooLargeMessage(bodyLimitBytes));
  }
  if (code === 'FST_ERR_BAD_URL') return apiError('not_found', NOT_FOUND_MESSAGE);
  if (typeof code === 'string' && code in FASTIFY_MESSAGES)
    return apiError('invalid_request', FASTIFY_MESSAGES[code]!);
  // JSON.parse failures from fastify's parser carry statusCode 400 and parser text: never echo it.
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return apiError(
      'invalid_request',
      error instanceof SyntaxError
        ? FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY!
        : 'The request is not valid.',
    );
  }
  return undefined;
}

/** The envelope, as the exact JSON string sent. */
export const envelopeOf = (error: ApiError): string => JSON.stringify(errorBodyOf(error));

/** Whether an error is one nobody planned for (or the random source failing): it gets logged. */
export const needsLogging = (api: ApiError | undefined): boolean =>
  api === undefined || api.code === 'internal_error';

/** Answers `error` in the envelope; an unexpected error is logged (with the request id) first. */
export function replyWithError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  bodyLimitBytes: number,
  input?: RawInput,
): FastifyReply {
  const known = toApiError(error, bodyLimitBytes, input);
  if (needsLogging(known)) request.log.error({ err: error }, 'request failed');
  const api = known ?? internalError();
  return reply.code(api.status).type('application/json; charset=utf-8').send(envelopeOf(api));
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
    const body = envelopeOf(apiError('invalid_request', message));
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
