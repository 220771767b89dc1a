// A @fastify/rate-limit store that counts in one Redis shared by every instance, and counts per
// instance instead the moment Redis is down, going away or stalling: a Redis fault never fails a roll.

import type {
  FastifyRateLimitOptions,
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import { Redis } from 'ioredis';
import { LIMITS } from '../limits.js';

/**
 * The longest one request waits for Redis before it is counted locally. Only the requests already
 * waiting when Redis stalls pay it: the first timeout switches the whole process to local counting.
 */
export const REDIS_FALLBACK_AFTER_MS = 400;
/** How long one attempt to connect to Redis may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** While counting locally on an open but silent connection, how often Redis is asked whether it is back. */
export const REDIS_PROBE_INTERVAL_MS = 500;
/** Longest pause between reconnection attempts once Redis has gone away. */
export const REDIS_RECONNECT_MAX_MS = 1_000;
/** The key prefix of @fastify/rate-limit's built-in Redis store, kept so both count the same keys. */
export const REDIS_KEY_PREFIX = 'fastify-rate-limit-';
/** The client name fairdice's connections carry in Redis's CLIENT LIST. */
export const REDIS_CONNECTION_NAME = 'fairdice-rate-limit';
/** Addresses remembered by the per-instance fallback, as by the in-memory limiter. */
const LOCAL_CACHE_SIZE = LIMITS.rateLimitAddresses;

/** The pino subset the store logs through (a fastify logger fits). */
export interface RateLimitLogger {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

export interface SharedRateLimitOptions {
  /** redis://[user:password@]host:port[/db] */
  redisUrl: string;
  logger: RateLimitLogger;
  /** Overrides REDIS_FALLBACK_AFTER_MS. */
  fallbackAfterMs?: number;
  /** Overrides REDIS_KEY_PREFIX (several services sharing one Redis). */
  keyPrefix?: string;
  /**
   * Connect only when `whenReady` is called. A server starting up connects once its synchronous
   * set-up work is done: begun earlier, that work could outlast the connect timeout and turn a
   * healthy Redis into a logged outage.
   */
  deferConnect?: boolean;
}

export type RateLimitCounting = 'shared' | 'local';

type CountCallback = Parameters<FastifyRateLimitStore['incr']>[1];
type RouteParams = Parameters<FastifyRateLimitStore['child']>[0];

/** The store methods both built-in stores have; `read` is untyped upstream but used by `{ increment: false }`. */
interface CountingStore extends FastifyRateLimitStore {
  read(key: string, callback: CountCallback, timeWindow: number, max: number): void;
}

/** The flags of @fastify/rate-limit's parameters that change how a count evolves. */
interface CountingFlags {
  continueExceeding?: boolean;
  exponentialBackoff?: boolean;
}

/**
 * One Redis connection and its health, shared by the root store and every per-route child, so a
 * process switches between shared and local counting (and logs it) once, not once per route.
 */
export class SharedRateLimit {
  /** Pass as `store` to @fastify/rate-limit. */
  readonly Store: FastifyRateLimitStoreCtor;
  readonly redis: Redis;
  readonly fallbackAfterMs: number;
  private sharing = false;
  private fallbackLogged = false;
  private closed = false;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly logger: RateLimitLogger;
  private readonly target: string;

  constructor(options: SharedRateLimitOptions) {
    this.logger = options.logger;
    this.fallbackAfterMs = options.fallbackAfterMs ?? REDIS_FALLBACK_AFTER_MS;
    this.target = redisTarget(options.redisUrl);
    this.redis = new Redis(options.redisUrl, {
      // Fail fast instead of queueing: a request never waits for a connection that is not there.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A command that outlived its request must not be replayed and counted twice after a reconnect.
      autoResendUnfulfilledCommands: false,
      // Generous: no request waits for a connection (see above), and on a busy machine a short
      // timeout would turn a healthy Redis into an outage, and a starting worker into one that
      // counts locally.
      connectTimeout: Math.max(this.fallbackAfterMs, REDIS_CONNECT_TIMEOUT_MS),
      commandTimeout: this.fallbackAfterMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
      lazyConnect: options.deferConnect === true,
      // Names the connection in CLIENT LIST, so operators can see which clients are fairdice.
      connectionName: REDIS_CONNECTION_NAME,
    });
    this.redis.on('ready', () => this.useShared());
    this.redis.on('close', () => this.useLocal('connection closed'));
    this.redis.on('error', (error: Error) => this.useLocal(error.message));

    const link = this;
    const keyPrefix = options.keyPrefix ?? REDIS_KEY_PREFIX;
    this.Store = class extends FallbackStore {
      constructor(params: FastifyRateLimitOptions) {
        const flags: CountingFlags = params;
        super(
          link,
          new RedisStore(
            flags.continueExceeding,
            flags.exponentialBackoff,
            link.redis,
            keyPrefix,
          ) as CountingStore,
          new LocalStore(
            flags.continueExceeding,
            flags.exponentialBackoff,
            LOCAL_CACHE_SIZE,
          ) as CountingStore,
        );
      }
    };
  }

  /** Where requests are being counted right now. */
  get counting(): RateLimitCounting {
    return this.usable ? 'shared' : 'local';
  }

  /** True when a request should go to Redis: known healthy, connected, not shutting down. */
  get usable(): boolean {
    return this.sharing && this.redis.status === 'ready';
  }

  /** Switches the process to per-instance counting; logs only the first switch of an outage. */
  useLocal(reason: string): void {
    this.sharing = false;
    if (this.closed) return;
    if (!this.fallbackLogged) {
      this.fallbackLogged = true;
      this.logger.warn(
        { redis: this.target, reason },
        'Redis unavailable: rate limits are counted per instance until it is back',
      );
    }
    this.startProbe();
  }

  private useShared(): void {
    if (this.closed || this.sharing) return;
    this.sharing = true;
    this.stopProbe();
    if (this.fallbackLogged) {
      this.fallbackLogged = false;
      this.logger.info({ redis: this.target }, 'Redis is back: rate limits are shared again');
    } else {
      this.logger.info({ redis: this.target }, 'Redis connected: rate limits are shared by every instance');
    }
  }

  /**
   * A stalled Redis keeps its socket open, so no reconnect will ever announce its return: ask it.
   * When the connection is down instead, ioredis reconnects by itself and 'ready' switches back.
   */
  private startProbe(): void {
    if (this.probe !== undefined) return;
    this.probe = setInterval(() => {
      if (this.probing || this.redis.status !== 'ready') return;
      this.probing = true;
      this.redis.ping().then(
        () => {
          this.probing = false;
          this.useShared();
        },
        () => {
          this.probing = false;
        },
      );
    }, REDIS_PROBE_INTERVAL_MS);
    this.probe.unref();
  }

  private stopProbe(): void {
    clearInterval(this.probe);
    this.probe = undefined;
  }

  /**
   * Resolves once Redis answers, or after `waitMs` (then counting locally, with the usual line
   * logged). A starting server awaits it before it listens, so its first requests are counted in
   * Redis like every other instance's, not in an empty local store.
   */
  async whenReady(waitMs: number): Promise<RateLimitCounting> {
    if (this.usable || this.closed) return this.counting;
    if (this.redis.status === 'wait') this.redis.connect().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    let onReady: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      onReady = resolve;
      this.redis.once('ready', onReady);
    });
    clearTimeout(timer);
    if (onReady !== undefined) this.redis.off('ready', onReady);
    if (!this.usable) this.useLocal(`Redis did not answer within the ${waitMs} ms start-up wait`);
    return this.counting;
  }

  /** Quits the Redis connection (graceful shutdown); requests still arriving are counted locally. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sharing = false;
    this.stopProbe();
    if (this.redis.status === 'ready') {
      await this.boundedWait(this.redis.quit().catch(() => undefined));
    }
    if (this.redis.status !== 'end') {
      const ended = new Promise((resolve) => this.redis.once('end', resolve));
      this.redis.disconnect();
      await this.boundedWait(ended);
    }
  }

  /** Shutdown must not hang on a stalled Redis: wait at most one fallback period. */
  private async boundedWait(pending: Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      pending,
      new Promise((resolve) => {
        timer = setTimeout(resolve, this.fallbackAfterMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

/**
 * Counts in Redis through the built-in RedisStore when the link is usable, else in the built-in
 * LocalStore; a Redis error or a reply slower than `fallbackAfterMs` counts that request locally.
 */
class FallbackStore implements CountingStore {
  constructor(
    private readonly link: SharedRateLimit,
    private readonly shared: CountingStore,
    private readonly local: CountingStore,
  ) {}

  incr(key: string, callback: CountCallback, timeWindow: number, max: number): void {
    this.count('incr', key, callback, timeWindow, max);
  }

  read(key: string, callback: CountCallback, timeWindow: number, max: number): void {
    this.count('read', key, callback, timeWindow, max);
  }

  child(routeParams: RouteParams): FastifyRateLimitStore {
    return new FallbackStore(
      this.link,
      this.shared.child(routeParams) as CountingStore,
      this.local.child(routeParams) as CountingStore,
    );
  }

  private count(
    method: 'incr' | 'read',
    key: string,
    callback: CountCallback,
    timeWindow: number,
    max: number,
  ): void {
    const { link, local } = this;
    if (!link.usable) {
      local[method](key, callback, timeWindow, max);
      return;
    }
    let settled = false;
    const fallBack = (reason: string) => {
      settled = true;
      link.useLocal(reason);
      local[method](key, callback, timeWindow, max);
    };
    // ioredis's commandTimeout should fire first; this timer is the guarantee that nothing hangs.
    const timer = setTimeout(() => {
      if (!settled) fallBack('Redis did not answer in time');
    }, link.fallbackAfterMs + 50);
    try {
      this.shared[method](
        key,
        (error, result) => {
          if (settled) return;
          clearTimeout(timer);
          if (error !== null || result === undefined) {
            fallBack(error?.message ?? 'Redis returned no count');
            return;
          }
          settled = true;
          callback(null, result);
        },
        timeWindow,
        max,
      );
    } catch (error) {
      clearTimeout(timer);
      if (!settled) fallBack(error instanceof Error ? error.message : 'Redis call failed');
    }
  }
}

/** host:port of a Redis URL, without credentials, for log lines. */
function redisTarget(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.hostname}:${url.port || '6379'}`;
  } catch {
    return 'redis';
  }
}
