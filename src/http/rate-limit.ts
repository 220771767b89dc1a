// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413).
// The client address is fastify's `request.ip`, which honours TRUST_PROXY. Counted in memory, or
// with REDIS_URL in one Redis shared by every instance, falling back to memory while Redis fails.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { rateLimitedError } from './errors.js';
import { SharedRateLimit } from './rate-limit-store.js';

/**
 * Registers the limiter as a root onRequest hook, so it reaches every route, the 404 handler
 * and encapsulated scopes alike. Hooks added before this one (the CORS preflight) run first.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  let store: SharedRateLimit['Store'] | undefined;
  if (config.redisUrl !== undefined) {
    const shared = new SharedRateLimit({ redisUrl: config.redisUrl, logger: app.log });
    store = shared.Store;
    // onClose runs after the server has stopped and its in-flight requests are answered.
    app.addHook('onClose', () => shared.close());
  }
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    ...(store === undefined ? {} : { store }),
    // The shared store answers from memory itself when Redis fails; should any store error still
    // escape, the request goes through uncounted rather than failing with a 500.
    skipOnError: true,
    errorResponseBuilder: rateLimitedError,
    // The limiter runs as a root hook, so the per-route `config: { rateLimit: false }` that the
    // plugin honours for its own hooks is honoured here by hand: the /docs assets use it.
    allowList: (request) => request.routeOptions.config.rateLimit === false,
  });
  app.addHook('onRequest', app.rateLimit());
}
