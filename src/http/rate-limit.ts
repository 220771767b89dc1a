// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413).
// The client address is fastify's `request.ip`, which honours TRUST_PROXY; IPv6 clients count per
// IPV6_PREFIX_LENGTH prefix (one /64 is one subscriber). Counted in memory (the most recently seen
// LIMITS.rateLimitAddresses addresses), or with REDIS_URL in one Redis shared by every instance,
// falling back to memory while Redis fails.
import rateLimit, {
  type FastifyRateLimitOptions,
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import type { ConnectionGuard } from './connections.js';
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

/** The scopes made by `countingItself`: the root count leaves their routes alone. */
const selfCountingScopes = new WeakSet<FastifyInstance>();

/** Whether a route's options say it counts its requests itself (see `countingItself`). */
const countsItself = (config: FastifyContextConfig | undefined): boolean =>
  config?.rateLimit !== undefined || config?.rateLimitInHandler === true;

/**
 * Registers, in a scope of their own, routes that count their requests themselves: with a limit
 * of their own (`config.rateLimit`, false or a budget, counted by the plugin's per-route hook) or
 * from their handler (`config.rateLimitInHandler`). The root count knows such a route by its
 * scope (`request.server`, the instance its routes were added to) instead of reading the route's
 * options on every request: fastify builds `request.routeOptions` anew on each read, a cost every
 * request paid (docs/performance.md#rate-counting). A set of scopes rather than a
 * decorator: a fastify instance keeps its properties in a dictionary, slow to miss in.
 * The routes must be added directly on `scope` (not in a plugin inside it): at start-up, a route
 * whose options and scope disagree stops the app (registerRateLimit's onRoute check).
 */
export function countingItself(
  app: FastifyInstance,
  routes: (scope: FastifyInstance) => void | Promise<void>,
): PromiseLike<unknown> {
  return app.register(async (scope) => {
    selfCountingScopes.add(scope);
    await routes(scope);
  });
}

/** Counts one request against its address's limit: `done()` to go on, `done(error)` for the 429. */
export type CountRequest = (
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
) => void;

export interface RateLimit {
  /**
   * The root count, for the app's one onRequest hook (src/http/app.ts), so it reaches every
   * route, the 404 handler and encapsulated scopes alike.
   */
  count: CountRequest;
  /** The Redis link when REDIS_URL is set. */
  shared: SharedRateLimit | undefined;
}

/**
 * Registers the rate-limit plugin (its store, per-route limits and 429) and returns the root count.
 * `keyOf` gives a request's address key (src/http/connections.ts `requestKeys`).
 */
export async function registerRateLimit(
  app: FastifyInstance,
  config: Config,
  log: FastifyBaseLogger,
  keyOf: (request: FastifyRequest) => string,
  guard?: ConnectionGuard,
): Promise<RateLimit> {
  let Store: FastifyRateLimitStoreCtor = InMemoryStore;
  let shared: SharedRateLimit | undefined;
  if (config.redisUrl !== undefined) {
    // Connected by `whenReady` once the app is built (buildApp awaits it before returning).
    const link = new SharedRateLimit({ redisUrl: config.redisUrl, logger: log, deferConnect: true });
    shared = link;
    Store = link.Store;
    // onClose runs after the server has stopped and its in-flight requests are answered.
    app.addHook('onClose', () => link.close());
  }
  // The plugin builds its root store once, at registration; the root hook below counts in it too,
  // so REST requests, /mcp tool calls and any other route share one count per address.
  let root: FastifyRateLimitStore | undefined;
  const Counted = function (this: unknown, params: FastifyRateLimitOptions) {
    const made = new Store(params);
    root ??= made;
    return made;
  } as unknown as FastifyRateLimitStoreCtor;
  const closing = new WeakSet<Error>();
  app.addHook('onError', (_request, reply, error, done) => {
    if (closing.has(error)) reply.header('connection', 'close');
    done();
  });
  const errorResponseBuilder = (request: FastifyRequest, context: { ttl: number; max: number }): Error => {
    // Past the API's limit (not a route's own, such as the /docs assets'): an address that keeps
    // asking at twice its limit has its new connections refused before a byte is parsed until
    // its window ends, and this one closes after its 429 so keep-alive does not go round that.
    const error = rateLimitedError();
    const address = request.socket.remoteAddress;
    if (
      guard !== undefined &&
      address !== undefined &&
      guard.guards(address) &&
      !selfCountingScopes.has(request.server) &&
      guard.refused(address, Date.now() + context.ttl, context.max)
    ) {
      closing.add(error);
    }
    return error;
  };
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    store: Counted,
    ipv6Subnet: config.ipv6PrefixLength,
    // The connection guard's key, IPv6 prefixes remembered rather than parsed on every request.
    keyGenerator: keyOf,
    // The shared store answers from memory itself when Redis fails; should any store error still
    // escape, the request goes through uncounted rather than failing with a 500.
    skipOnError: true,
    errorResponseBuilder,
  });
  const store = root;
  if (store === undefined) throw new Error('@fastify/rate-limit did not build its store');
  // The limiter runs in the root hook, so a route's own `config.rateLimit` (false, or limits of its
  // own as the /docs assets have, counted by the plugin's per-route hook) is honoured here by
  // hand: the root hook leaves such a route alone, and a `rateLimitInHandler` route too (its
  // handler charges it through handlerRateLimit). Such routes live in a `countingItself` scope,
  // and every other route outside one: checked here as each route is added.
  app.addHook('onRoute', function checkCounting(route) {
    const own = countsItself(route.config);
    if (own === selfCountingScopes.has(this)) return;
    throw new Error(
      own
        ? `${String(route.method)} ${route.url} counts its own requests: register it with countingItself()`
        : `${String(route.method)} ${route.url} is inside a countingItself() scope but counts nothing itself: every request would go uncounted`,
    );
  });
  // It does what the plugin's own onRequest handler does (same key, store, headers, 429 and
  // skip-on-error), with a callback: the in-memory count answers synchronously, so a request
  // costs no promise and no extra turn of the event loop (docs/performance.md#rate-counting).
  const max = config.rateLimitMax;
  // Header values as strings: node checks each value with a regular expression, which takes a
  // slow path (and a conversion) for a number.
  const maxText = String(max);
  const timeWindow = config.rateLimitWindowMs;
  const count: CountRequest = function rootRateLimit(request, reply, done) {
    if (selfCountingScopes.has(request.server)) return done();
    const key = keyOf(request);
    store.incr(
      key,
      (error, result) => {
        // As the plugin with skipOnError: a store error counts nothing.
        const counted = error === null ? result : undefined;
        const current = counted?.current ?? 0;
        const ttl = counted?.ttl ?? 0;
        const ttlInSeconds = String(Math.ceil(ttl / 1000));
        if (current <= max) {
          reply
            .header('x-ratelimit-limit', maxText)
            .header('x-ratelimit-remaining', String(max - current))
            .header('x-ratelimit-reset', ttlInSeconds);
          return done();
        }
        reply
          .header('x-ratelimit-limit', maxText)
          .header('x-ratelimit-remaining', '0')
          .header('x-ratelimit-reset', ttlInSeconds)
          .header('retry-after', ttlInSeconds);
        done(errorResponseBuilder(request, { max, ttl }));
      },
      timeWindow,
      max,
    );
  };
  return { count, shared };
}

/** The plugin's in-memory store, bounded to the most recently seen LIMITS.rateLimitAddresses addresses. */
const InMemoryStore = function (this: unknown, params: FastifyRateLimitOptions) {
  const flags: { continueExceeding?: boolean; exponentialBackoff?: boolean } = params;
  return new LocalStore(flags.continueExceeding, flags.exponentialBackoff, LIMITS.rateLimitAddresses);
} as unknown as FastifyRateLimitStoreCtor;

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
