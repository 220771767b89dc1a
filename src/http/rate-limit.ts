// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413).
// The client address is fastify's `request.ip`, which honours TRUST_PROXY. Counted in memory, or
// with REDIS_URL in one Redis shared by every instance, falling back to memory while Redis fails.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { rateLimitedError } from './errors.js';
import { SharedRateLimit } from './rate-limit-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route charges the limit itself, from its handler, once it knows what the request is
     * (/mcp: a tool call over the limit gets a tool result, not a 429).
     */
    rateLimitInHandler?: boolean;
  }
}

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
  // A route with `rateLimitInHandler` is left alone here: its handler charges it.
  const limit = app.rateLimit();
  app.addHook('onRequest', function rootRateLimit(request, reply) {
    if (request.routeOptions.config.rateLimitInHandler === true) return Promise.resolve();
    return limit.call(this, request, reply);
  });
}

export interface RateVerdict {
  /** The request is over the limit. */
  exceeded: boolean;
  /** Seconds until the address's window ends (what retry-after says on a 429). */
  retryAfterSeconds: number;
}

/**
 * Charges one request of a `rateLimitInHandler` route against its address's budget: the same
 * count, store and window as every other route. Call once per request, from its handler.
 */
export function handlerRateLimit(app: FastifyInstance): (request: FastifyRequest) => Promise<RateVerdict> {
  const check = app.createRateLimit();
  return async (request) => {
    const limit = await check(request);
    if (limit.isAllowed) return { exceeded: false, retryAfterSeconds: 0 };
    return { exceeded: limit.isExceeded, retryAfterSeconds: limit.ttlInSeconds };
  };
}
