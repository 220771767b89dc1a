// CORS: every answer may be read by a page on any origin (`access-control-allow-origin: *`, the
// limits' headers exposed) and carries `x-content-type-options: nosniff`; a preflight (`OPTIONS`)
// is answered 204 here, before the rate limit counts it (docs/api.md#headers). What never reaches
// a route (a malformed URL, a request the HTTP parser refuses) gets the same two headers where it
// is answered (src/http/app.ts, src/http/errors.ts, src/http/connections.ts).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The response headers a page on another origin may read: the limits' and the validator (docs/api.md#headers). */
export const EXPOSED_HEADERS =
  'retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-ratelimit-throws-limit, x-ratelimit-throws-remaining, x-ratelimit-throws-reset, x-ratelimit-stats-limit, x-ratelimit-stats-remaining, x-ratelimit-stats-reset, etag';

/** The methods a preflight allows. */
export const ALLOWED_METHODS = 'GET, POST, OPTIONS';
/** How long a browser may keep a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE_SECONDS = '86400';

async function cors(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', function corsHeaders(request, reply, done) {
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', EXPOSED_HEADERS)
      .header('x-content-type-options', 'nosniff');
    if (request.method !== 'OPTIONS') {
      done();
      return;
    }
    // Answered here: no later hook runs, so a preflight is never counted (src/http/rate-limit.ts).
    reply
      .code(204)
      .header('access-control-allow-methods', ALLOWED_METHODS)
      .header(
        'access-control-allow-headers',
        request.headers['access-control-request-headers'] ?? 'content-type',
      )
      .header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
      .send();
  });
}

/**
 * The CORS and nosniff headers, for the whole app (not encapsulated: its hook sees every route
 * and the 404 handler). Register it first: its preflight answer comes before any other hook.
 */
export const corsPlugin = fp(cors, { name: 'fairdice-cors', fastify: '5.x' });
