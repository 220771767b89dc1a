// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413).
// The client address is fastify's `request.ip`, which honours TRUST_PROXY. In memory for now.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { RateLimitedError } from './errors.js';

/**
 * Registers the limiter as a root onRequest hook, so it reaches every route, the 404 handler
 * and encapsulated scopes alike. Hooks added before this one (the CORS preflight) run first.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    errorResponseBuilder: () => new RateLimitedError(),
    // The limiter runs as a root hook, so the per-route `config: { rateLimit: false }` that the
    // plugin honours for its own hooks is honoured here by hand: the /docs assets use it.
    allowList: (request) => request.routeOptions.config.rateLimit === false,
  });
  app.addHook('onRequest', app.rateLimit());
}
