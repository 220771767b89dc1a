// Where the rate limit counts (src/http/rate-limit.ts): requests per key in fixed windows, in this
// process's memory (the most recently seen LIMITS.rateLimitAddresses keys), or with REDIS_URL in
// one Redis shared by every instance, counting per instance instead the moment Redis is down,
// going away or stalling: a Redis fault never fails a roll (docs/operations.md#redis).
import { Redis } from 'ioredis';
import { LIMITS } from '../limits.js';

/** One key's count in its current window, as a store answers it. */
export interface WindowCount {
  /** Requests counted in the window, this one included. */
  readonly current: number;
  /** Milliseconds until the window ends. */
  readonly ttlMs: number;
}

/**
 * Counts requests per key in fixed windows of one length. `hit` counts one request and answers
 * at once when it can (memory: no promise, no closure per request) or with a promise (Redis). It
 * never fails: a store that cannot reach Redis counts in memory instead.
 */
export interface RateStore {
  hit(key: string): WindowCount | Promise<WindowCount>;
}

/**
 * The stores of one process: `budget` names a budget counted apart from the others (the API's
 * own is `''`), `windowMs` its window. A store is made once per budget, at start-up.
 */
export interface RateStores {
  storeOf(budget: string, windowMs: number): RateStore;
}

/** One key's window, also the memory store's answer (read at once, before the next hit). */
class Window implements WindowCount {
  current = 0;
  ttlMs = 0;
  startedMs = 0;
  /** The neighbours in order of last hit: the least recently hit key goes first. */
  older: Window | undefined = undefined;
  newer: Window | undefined = undefined;
  constructor(readonly key: string) {}
}

/**
 * Counts in memory, remembering the `capacity` most recently hit keys (a forgotten key starts a
 * new window). A hit moves its key to the front of a list linked through the windows themselves:
 * no allocation for a key already known.
 */
export class MemoryRateStore implements RateStore {
  readonly #windows = new Map<string, Window>();
  #newest: Window | undefined = undefined;
  #oldest: Window | undefined = undefined;

  constructor(
    readonly windowMs: number,
    readonly capacity: number = LIMITS.rateLimitAddresses,
    /** Milliseconds since the epoch; a test's clock. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Keys remembered now. */
  get size(): number {
    return this.#windows.size;
  }

  hit(key: string): WindowCount {
    const now = this.clock();
    const windowMs = this.windowMs;
    let window = this.#windows.get(key);
    if (window === undefined) {
      window = new Window(key);
      this.#windows.set(key, window);
      this.#pushNewest(window);
      if (this.#windows.size > this.capacity) this.#forgetOldest();
    } else if (window !== this.#newest) {
      this.#unlink(window);
      this.#pushNewest(window);
    }
    if (window.current === 0 || window.startedMs + windowMs <= now) {
      window.current = 1;
      window.startedMs = now;
      window.ttlMs = windowMs;
    } else {
      window.current++;
      window.ttlMs = windowMs - (now - window.startedMs);
    }
    return window;
  }

  #pushNewest(window: Window): void {
    window.older = this.#newest;
    window.newer = undefined;
    if (this.#newest !== undefined) this.#newest.newer = window;
    this.#newest = window;
    this.#oldest ??= window;
  }

  #unlink(window: Window): void {
    if (window.older !== undefined) window.older.newer = window.newer;
    else this.#oldest = window.newer;
    if (window.newer !== undefined) window.newer.older = window.older;
    else this.#newest = window.older;
  }

  #forgetOldest(): void {
    const oldest = this.#oldest;
    if (oldest === undefined) return;
    this.#unlink(oldest);
    this.#windows.delete(oldest.key);
  }
}

/** Every budget counted in this process's memory. */
export const memoryRateStores: RateStores = {
  storeOf: (_budget, windowMs) => new MemoryRateStore(windowMs),
};

/**
 * The longest one request waits for Redis before it is counted locally. Only the requests already
 * waiting when Redis stalls pay it: the first timeout switches the whole process to local counting.
 */
export const REDIS_FALLBACK_AFTER_MS = 400;
/**
 * ioredis's own command timeout: only a backstop that frees a call Redis never answers, long
 * after answerWithin gave up on it, so that it never decides before answerWithin does.
 */
const REDIS_COMMAND_BACKSTOP_MS = 30_000;
/** How long one attempt to connect to Redis may take. */
export const REDIS_CONNECT_TIMEOUT_MS = 2_000;
/** While counting locally on an open but silent connection, how often Redis is asked whether it is back. */
export const REDIS_PROBE_INTERVAL_MS = 500;
/** Longest pause between reconnection attempts once Redis has gone away. */
export const REDIS_RECONNECT_MAX_MS = 1_000;
/**
 * The prefix of the request counts' keys in Redis: `fastify-rate-limit-<address>`, and for a
 * route's own budget `fastify-rate-limit-<METHOD><url>-<address>`. The keys (and the counting)
 * of @fastify/rate-limit's Redis store, which earlier versions used: instances of both versions
 * sharing one Redis during a rolling upgrade share one count.
 */
export const REDIS_KEY_PREFIX = 'fastify-rate-limit-';
/** The client name fairdice's connections carry in Redis's CLIENT LIST. */
export const REDIS_CONNECTION_NAME = 'fairdice-rate-limit';

/**
 * KEYS[1]: the key. ARGV[1]: the window in ms. Counts one request; the first of a window sets the
 * key to expire when the window ends. Returns the count and the ms left in the window. A key
 * without an expiry (never set by this script) is given one rather than counting forever.
 */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = -1
if current > 1 then ttl = redis.call('PTTL', KEYS[1]) end
if ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {current, ttl}
`;

/** The Redis client with the script defined on it (ioredis `defineCommand`). */
interface CountCommand {
  fairdiceRateCount(key: string, windowMs: number): Promise<[number, number]>;
}

/** The pino subset the link logs through (a fastify logger fits). */
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
  /** Told each time the process switches to local counting (the metrics). */
  onFallback?: (() => void) | undefined;
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

/**
 * One Redis connection and its health, shared by every budget's store (and the throws budget,
 * src/http/throw-budget.ts), so a process switches between shared and local counting (and logs
 * it) once, not once per budget.
 */
export class SharedRateLimit implements RateStores {
  readonly redis: Redis;
  readonly fallbackAfterMs: number;
  readonly keyPrefix: string;
  private sharing = false;
  private fallbackLogged = false;
  private closed = false;
  private probe: NodeJS.Timeout | undefined;
  private probing = false;
  private readonly logger: RateLimitLogger;
  private readonly target: string;
  private readonly onFallback: (() => void) | undefined;

  constructor(options: SharedRateLimitOptions) {
    this.logger = options.logger;
    this.onFallback = options.onFallback;
    this.fallbackAfterMs = options.fallbackAfterMs ?? REDIS_FALLBACK_AFTER_MS;
    this.keyPrefix = options.keyPrefix ?? REDIS_KEY_PREFIX;
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
      commandTimeout: Math.max(REDIS_COMMAND_BACKSTOP_MS, this.fallbackAfterMs),
      retryStrategy: (attempt) => Math.min(attempt * 100, REDIS_RECONNECT_MAX_MS),
      lazyConnect: options.deferConnect === true,
      // Names the connection in CLIENT LIST, so operators can see which clients are fairdice.
      connectionName: REDIS_CONNECTION_NAME,
    });
    this.redis.defineCommand('fairdiceRateCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    this.redis.on('ready', () => this.useShared());
    this.redis.on('close', () => this.useLocal('connection closed'));
    this.redis.on('error', (error: Error) => this.useLocal(error.message));
  }

  /** A budget's store: in Redis while the link is usable, else in this process's memory. */
  storeOf(budget: string, windowMs: number): RateStore {
    return new FallbackStore(this, `${this.keyPrefix}${budget}`, windowMs, new MemoryRateStore(windowMs));
  }

  /**
   * The answer of `command` (one Redis call), or a rejection when Redis has not answered within
   * fallbackAfterMs. Every call of the link goes through it, the probe's PING too, so requests and
   * the probe judge Redis by one bound. Not ioredis's own commandTimeout: after a pause of this
   * process (a long garbage collection, a starved machine) timers run before the replies that
   * arrived meanwhile are read, so a timeout alone would blame a Redis that answered in time.
   */
  answerWithin<T>(command: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<never>((_resolve, reject) => {
      // setImmediate runs after the poll phase, which reads what the socket already holds.
      timer = setTimeout(
        () => setImmediate(reject, new Error('Redis did not answer in time')),
        this.fallbackAfterMs,
      );
    });
    // A call that throws at once (no connection) rejects like one that fails later.
    const answered = new Promise<T>((resolve) => resolve(command()));
    return Promise.race([answered, tooLate]).finally(() => clearTimeout(timer));
  }

  /** Counts one request of `key` (already prefixed) in Redis: the count and the ms left in its window. */
  countInRedis(key: string, windowMs: number): Promise<[number, number]> {
    return this.answerWithin(() => (this.redis as unknown as CountCommand).fairdiceRateCount(key, windowMs));
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
      this.onFallback?.();
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
      this.answerWithin(() => this.redis.ping()).then(
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
 * Counts in Redis when the link is usable, else in memory; a Redis error or a reply slower than
 * `fallbackAfterMs` counts that request in memory and switches the process to local counting.
 */
class FallbackStore implements RateStore {
  constructor(
    private readonly link: SharedRateLimit,
    private readonly prefix: string,
    private readonly windowMs: number,
    private readonly local: MemoryRateStore,
  ) {}

  hit(key: string): WindowCount | Promise<WindowCount> {
    const { link, local } = this;
    if (!link.usable) return local.hit(key);
    const fallBack = (reason: string): WindowCount => {
      link.useLocal(reason);
      return local.hit(key);
    };
    return link.countInRedis(`${this.prefix}${key}`, this.windowMs).then(
      (count) =>
        count === undefined || count === null
          ? fallBack('Redis returned no count')
          : { current: count[0], ttlMs: count[1] },
      (error: unknown) => fallBack(error instanceof Error ? error.message : 'Redis call failed'),
    );
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
