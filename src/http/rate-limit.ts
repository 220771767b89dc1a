// Rate limiting: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per client address, on every
// route including 404s, counted in onRequest, before the body is read (so a 429 wins over a 413);
// a preflight is answered before it (src/http/cors.ts) and never counted. The client address is
// the request's key (src/http/connections.ts: fastify's `request.ip`, which honours TRUST_PROXY;
// IPv6 clients per IPV6_PREFIX_LENGTH prefix). Counted in memory, or with REDIS_URL in one Redis
// shared by every instance, falling back to memory while Redis fails (src/http/rate-limit-store.ts).
// Every counted answer carries x-ratelimit-limit, -remaining and -reset; a 429 adds retry-after
// (docs/api.md#headers, docs/operations.md#rate-limiting).
import type {
  FastifyBaseLogger,
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';
import type { DiceError } from '../errors.js';
import type { ConnectionGuard } from './connections.js';
import { rateLimitedError } from './errors.js';
import {
  memoryRateStores,
  type RateStore,
  type RateStores,
  SharedRateLimit,
  type WindowCount,
} from './rate-limit-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's requests count against a budget of their own instead of the API's: `max` per
     * window per address, with the same window and headers (the /docs and page assets); `false`:
     * not counted at all. Only on a route of a `countingItself` scope.
     */
    rateLimit?: false | { max: number };
    /**
     * The route charges the API's limit itself, from its handler, once it knows what the request
     * is (/mcp: a tool call over the limit gets a tool result, not a 429), through
     * `app.rateLimit.charge`. Only on a route of a `countingItself` scope.
     */
    rateLimitInHandler?: boolean;
  }
  interface FastifyInstance {
    /** The API's request limit (src/http/rate-limit.ts). */
    rateLimit: RateLimit;
  }
}

/** What charging the API's limit from a handler found. */
export interface RateVerdict {
  /** The request is over the limit. */
  exceeded: boolean;
  /** Seconds until the address's window ends (what retry-after says on a 429). */
  retryAfterSeconds: number;
}

export interface RateLimit {
  /**
   * Charges one request of a `rateLimitInHandler` route against its address's limit: the same
   * count, store and window as every other route, without headers. Call once per request.
   */
  charge(request: FastifyRequest): Promise<RateVerdict>;
  /** The Redis link when REDIS_URL is set (the throws budget shares it). */
  readonly shared: SharedRateLimit | undefined;
}

export interface RateLimitOptions {
  /** Requests per window per address (RATE_LIMIT_MAX). */
  max: number;
  /** The fixed window, in ms (RATE_LIMIT_WINDOW_MS). */
  windowMs: number;
  /** Count in this Redis, shared by every instance (REDIS_URL); absent: `stores`. */
  redisUrl?: string | undefined;
  /** Where to count without Redis (default: this process's memory); a test gives its own. */
  stores?: RateStores | undefined;
  /** The service's logger: Redis's comings and goings. */
  log: FastifyBaseLogger;
  /** A request's address key (src/http/connections.ts `requestKeys`). */
  keyOf(request: FastifyRequest): string;
  /** The connection cap, which refuses the connections of an address that keeps asking. */
  guard?: ConnectionGuard | undefined;
}

/** The scopes made by `countingItself`: the API's count leaves their routes alone. */
const selfCountingScopes = new WeakSet<FastifyInstance>();

/** Whether a route's options say it counts its requests itself (see `countingItself`). */
const countsItself = (config: FastifyContextConfig | undefined): boolean =>
  config?.rateLimit !== undefined || config?.rateLimitInHandler === true;

/**
 * Registers, in a scope of their own, routes that count their requests themselves: with a budget
 * of their own (`config.rateLimit`) or from their handler (`config.rateLimitInHandler`). The
 * API's count knows such a route by its scope (`request.server`, the instance its routes were
 * added to) instead of reading the route's options on every request: fastify builds
 * `request.routeOptions` anew on each read, a cost every request paid
 * (docs/performance.md#rate-counting). A set of scopes rather than a decorator: a fastify
 * instance keeps its properties in a dictionary, slow to miss in. The routes must be added
 * directly on `scope` (not in a plugin inside it): at start-up, a route whose options and scope
 * disagree stops the app.
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

/**
 * One budget: its store, its limit and what its 429 does. Methods on a class, so counting a
 * request makes no closure; in memory it answers at once: no promise, no extra turn of the event
 * loop either (docs/performance.md#rate-counting).
 */
class Budget {
  readonly #maxText: string;

  constructor(
    readonly store: RateStore,
    readonly max: number,
    /** The 429 of the API's own budget, which the connection cap hears about. */
    private readonly refusal: (request: FastifyRequest, ttlMs: number) => Error,
  ) {
    // Header values as strings: node checks each value with a regular expression, which takes a
    // slow path (and a conversion) for a number.
    this.#maxText = String(max);
  }

  /** Counts the request under `key`, then `done()` with the headers set, or `done(error)` for the 429. */
  count(key: string, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const counted = this.store.hit(key);
    if (!(counted instanceof Promise)) {
      this.admit(counted, request, reply, done);
      return;
    }
    counted.then(
      (count) => this.admit(count, request, reply, done),
      // Stores never fail (a shared one counts locally instead); should one, the request goes
      // through uncounted rather than failing with a 500.
      () => done(),
    );
  }

  private admit(
    counted: WindowCount,
    request: FastifyRequest,
    reply: FastifyReply,
    done: (error?: Error) => void,
  ): void {
    const { current, ttlMs } = counted;
    const resetText = String(Math.ceil(ttlMs / 1000));
    if (current <= this.max) {
      reply
        .header('x-ratelimit-limit', this.#maxText)
        .header('x-ratelimit-remaining', String(this.max - current))
        .header('x-ratelimit-reset', resetText);
      done();
      return;
    }
    reply
      .header('x-ratelimit-limit', this.#maxText)
      .header('x-ratelimit-remaining', '0')
      .header('x-ratelimit-reset', resetText)
      .header('retry-after', resetText);
    done(this.refusal(request, ttlMs));
  }
}

async function rateLimit(app: FastifyInstance, options: RateLimitOptions): Promise<void> {
  const { max, windowMs, keyOf, guard } = options;
  const { metrics } = app;
  let shared: SharedRateLimit | undefined;
  let stores: RateStores = options.stores ?? memoryRateStores;
  if (options.redisUrl !== undefined) {
    // Connected by `whenReady` once the app is built (buildApp awaits it before it returns).
    const link = new SharedRateLimit({
      redisUrl: options.redisUrl,
      logger: options.log,
      deferConnect: true,
      onFallback: metrics === undefined ? undefined : () => metrics.redisFellBack(),
    });
    shared = link;
    stores = link;
    // onClose runs after the server has stopped and its in-flight requests are answered.
    app.addHook('onClose', () => link.close());
  }

  // Past the API's limit (not a route's own, such as the /docs assets'): an address that keeps
  // asking at twice its limit has its new connections refused before a byte is parsed until its
  // window ends, and this one closes after its 429 so keep-alive does not go round that.
  const closing = new WeakSet<Error>();
  app.addHook('onError', (_request, reply, error, done) => {
    if (closing.has(error)) reply.header('connection', 'close');
    done();
  });
  const apiRefusal = (request: FastifyRequest, ttlMs: number): Error => {
    metrics?.refused('rate');
    const error = rateLimitedError();
    const address = request.socket.remoteAddress;
    if (
      guard !== undefined &&
      address !== undefined &&
      guard.guards(address) &&
      guard.refused(address, Date.now() + ttlMs, max)
    ) {
      closing.add(error);
    }
    return error;
  };
  const ownRefusal = (): DiceError => {
    metrics?.refused('rate');
    return rateLimitedError();
  };

  // The API's budget, shared by every route outside a countingItself() scope (404s included) and
  // by the routes that charge it from their handler.
  const api = new Budget(stores.storeOf('', windowMs), max, apiRefusal);
  app.addHook('onRequest', function countRequest(request, reply, done) {
    if (selfCountingScopes.has(request.server)) {
      done();
      return;
    }
    api.count(keyOf(request), request, reply, done);
  });

  // A route with a budget of its own gets its own count, with its own store; a route that counts
  // itself must live in a countingItself() scope, and every other route outside one.
  app.addHook('onRoute', function checkCounting(route) {
    const own = countsItself(route.config);
    if (own !== selfCountingScopes.has(this)) {
      throw new Error(
        own
          ? `${String(route.method)} ${route.url} counts its own requests: register it with countingItself()`
          : `${String(route.method)} ${route.url} is inside a countingItself() scope but counts nothing itself: every request would go uncounted`,
      );
    }
    const limit = route.config?.rateLimit;
    if (limit === undefined || limit === false) return;
    const budget = new Budget(
      stores.storeOf(`${String(route.method)}${route.url}-`, windowMs),
      limit.max,
      ownRefusal,
    );
    const countOwn: onRequestHookHandler = (request, reply, done) =>
      budget.count(keyOf(request), request, reply, done);
    const hooks = route.onRequest;
    route.onRequest =
      hooks === undefined ? [countOwn] : [...(Array.isArray(hooks) ? hooks : [hooks]), countOwn];
  });

  const apiStore = api.store;
  app.decorate('rateLimit', {
    shared,
    async charge(request: FastifyRequest): Promise<RateVerdict> {
      const { current, ttlMs } = await apiStore.hit(keyOf(request));
      if (current > max) metrics?.refused('rate');
      return { exceeded: current > max, retryAfterSeconds: Math.ceil(ttlMs / 1000) };
    },
  } satisfies RateLimit);
}

/**
 * The request limit, for the whole app (not encapsulated: its hooks see every route, the 404
 * handler included). Register it after src/http/cors.ts, whose preflight answer must come first.
 */
export const rateLimitPlugin = fp(rateLimit, { name: 'fairdice-rate-limit', fastify: '5.x' });
