// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413).
// The client address is fastify's `request.ip`, which honours TRUST_PROXY; IPv6 clients count per
// IPV6_PREFIX_LENGTH prefix (one /64 is one subscriber). Counted in memory (the most recently seen
// LIMITS.rateLimitAddresses addresses), or with REDIS_URL in one Redis shared by every instance,
// falling back to memory while Redis fails.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import { addressKey, type ConnectionGuard } from './connections.js';
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
export async function registerRateLimit(
  app: FastifyInstance,
  config: Config,
  guard?: ConnectionGuard,
): Promise<SharedRateLimit | undefined> {
  let store: SharedRateLimit['Store'] | undefined;
  let shared: SharedRateLimit | undefined;
  if (config.redisUrl !== undefined) {
    // Connected by `whenReady` once the app is built (buildApp awaits it before returning).
    const link = new SharedRateLimit({ redisUrl: config.redisUrl, logger: app.log, deferConnect: true });
    shared = link;
    store = link.Store;
    // onClose runs after the server has stopped and its in-flight requests are answered.
    app.addHook('onClose', () => link.close());
  }
  const closing = new WeakSet<Error>();
  app.addHook('onError', (_request, reply, error, done) => {
    if (closing.has(error)) reply.header('connection', 'close');
    done();
  });
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    ...(store === undefined ? {} : { store }),
    cache: LIMITS.rateLimitAddresses,
    ipv6Subnet: config.ipv6PrefixLength,
    // The connection guard's key, IPv6 prefixes remembered rather than parsed on every request.
    keyGenerator: (request) => addressKey(request.ip, config.ipv6PrefixLength),
    // The shared store answers from memory itself when Redis fails; should any store error still
    // escape, the request goes through uncounted rather than failing with a 500.
    skipOnError: true,
    errorResponseBuilder: (request, context) => {
      // Past the API's limit (not a route's own, such as the /docs assets'): an address that keeps
      // asking at twice its limit has its new connections refused before a byte is parsed until
      // its window ends, and this one closes after its 429 so keep-alive does not go round that.
      const error = rateLimitedError();
      const address = request.socket.remoteAddress;
      if (
        guard !== undefined &&
        address !== undefined &&
        guard.guards(address) &&
        request.routeOptions.config.rateLimit === undefined &&
        guard.refused(address, Date.now() + context.ttl, context.max)
      ) {
        closing.add(error);
      }
      return error;
    },
  });
  // The limiter runs as a root hook, so a route's own `config.rateLimit` (false, or limits of its
  // own as the /docs assets have, counted by the plugin's per-route hook) is honoured here by
  // hand: the root hook leaves such a route alone, and a `rateLimitInHandler` route too (its
  // handler charges it through handlerRateLimit).
  const limit = app.rateLimit();
  app.addHook('onRequest', function rootRateLimit(request, reply) {
    const { config } = request.routeOptions;
    if (config.rateLimit !== undefined || config.rateLimitInHandler === true) return Promise.resolve();
    return limit.call(this, request, reply);
  });
  return shared;
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
