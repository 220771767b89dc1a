// Request bodies: JSON only, read as they arrive. A text/plain body would otherwise be parsed and
// reach the schemas as a string, and a compressed one (Content-Encoding) could only ever fail as
// bad JSON, so it is refused with 400 invalid_request before it is read, after the rate limit has
// counted the request (docs/operations.md#limits-that-protect-the-service).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { MESSAGES, RequestError } from '../errors.js';
import { replyWithError } from './errors.js';

export interface RequestBodyOptions {
  /** BODY_LIMIT_BYTES, for the 413 message of the error envelope. */
  bodyLimitBytes: number;
}

async function requestBody(app: FastifyInstance, options: RequestBodyOptions): Promise<void> {
  app.removeContentTypeParser('text/plain');
  const unsupportedEncoding = new RequestError(MESSAGES.unsupportedEncoding);
  app.addHook('onRequest', function refuseEncoding(request, reply, done) {
    const encoding = request.headers['content-encoding'];
    if (encoding === undefined || encoding.trim().toLowerCase() === 'identity') {
      done();
      return;
    }
    replyWithError(request, reply, unsupportedEncoding, options.bodyLimitBytes);
  });
}

/**
 * The body rules, for the whole app (not encapsulated). Register it after src/http/rate-limit.ts:
 * a refused body is counted, and a 429 wins over this 400.
 */
export const requestBodyPlugin = fp(requestBody, {
  name: 'fairdice-request-body',
  fastify: '5.x',
  dependencies: ['fairdice-rate-limit'],
});
