// The resilient rate-limit store against a real redis-server: one budget across instances, and
// per-instance counting (never an error, never a hang) while Redis is down, gone or stalled.

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  MemoryRateStore,
  type RateLimitLogger,
  type RateStore,
  REDIS_FALLBACK_AFTER_MS,
  REDIS_KEY_PREFIX,
  SharedRateLimit,
} from '../../src/http/rate-limit-store.js';
import { ThrowBuckets } from '../../src/http/throw-budget.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { until } from '../support/wait.js';

const WINDOW_MS = 60_000;
const MAX = 5;

interface LogLine {
  level: 'warn' | 'info';
  message: string;
  details: Record<string, unknown>;
}

function recordingLogger(): RateLimitLogger & { lines: LogLine[]; count(level: LogLine['level']): number } {
  const lines: LogLine[] = [];
  return {
    lines,
    warn: (details, message) => lines.push({ level: 'warn', message, details }),
    info: (details, message) => lines.push({ level: 'info', message, details }),
    count: (level) => lines.filter((line) => line.level === level).length,
  };
}

interface Counted {
  current: number;
  ttlMs: number;
  /** The store answered at once, without a promise: it did not wait for anything. */
  synchronous: boolean;
  ms: number;
}

async function hit(store: RateStore, key: string): Promise<Counted> {
  const started = performance.now();
  const answer = store.hit(key);
  const synchronous = !(answer instanceof Promise);
  const { current, ttlMs } = await answer;
  return { current, ttlMs, synchronous, ms: performance.now() - started };
}

describe('MemoryRateStore', () => {
  it('counts per key in fixed windows, answering at once', () => {
    let now = 1_000_000;
    const store = new MemoryRateStore(1_000, 10, () => now);
    const first = store.hit('a');
    expect(first instanceof Promise).toBe(false);
    expect({ ...first }).toMatchObject({ current: 1, ttlMs: 1_000 });
    now += 400;
    expect({ ...store.hit('a') }).toMatchObject({ current: 2, ttlMs: 600 });
    expect({ ...store.hit('b') }).toMatchObject({ current: 1, ttlMs: 1_000 });
    now += 599;
    expect({ ...store.hit('a') }).toMatchObject({ current: 3, ttlMs: 1 });
    // The window ends: the next request starts a new one.
    now += 1;
    expect({ ...store.hit('a') }).toMatchObject({ current: 1, ttlMs: 1_000 });
  });

  it('forgets the least recently counted key first, past its capacity', () => {
    const store = new MemoryRateStore(60_000, 3);
    for (const key of ['a', 'b', 'c']) store.hit(key);
    // a is counted again: b is now the least recently counted.
    expect(store.hit('a').current).toBe(2);
    store.hit('d');
    expect(store.size).toBe(3);
    expect(store.hit('b').current).toBe(1);
    // b came back and pushed out c, the least recently counted; a and d are still known.
    expect(store.hit('a').current).toBe(3);
    expect(store.hit('d').current).toBe(2);
    expect(store.hit('c').current).toBe(1);
    expect(store.size).toBe(3);
  });
});

/** Latencies seen while falling back, printed once for the README and the report. */
const measured: Record<string, number[]> = {};
const measure = (label: string, counted: Counted) => {
  measured[label] ??= [];
  measured[label].push(counted.ms);
};

describeWithRedis('SharedRateLimit store with a real redis-server', (executable) => {
  const servers: RedisServer[] = [];
  const limits: SharedRateLimit[] = [];

  const redisServer = async () => {
    const server = await startRedis(executable);
    servers.push(server);
    return server;
  };
  const sharedLimit = (redisUrl: string, logger = recordingLogger()) => {
    const limit = new SharedRateLimit({ redisUrl, logger });
    limits.push(limit);
    return { limit, logger, store: limit.storeOf('', WINDOW_MS) };
  };

  afterEach(async () => {
    await Promise.all(limits.splice(0).map((limit) => limit.close()));
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  afterAll(() => {
    const summary = Object.entries(measured).map(
      ([label, ms]) => `${label}: max ${Math.max(...ms).toFixed(1)} ms over ${ms.length} calls`,
    );
    console.info(`rate-limit fallback latencies\n  ${summary.join('\n  ')}`);
  });

  it('gives two instances sharing one Redis one budget, under fastify-rate-limit-<address>', async () => {
    const server = await redisServer();
    const a = sharedLimit(server.url);
    const b = sharedLimit(server.url);
    await until(() => a.limit.counting === 'shared' && b.limit.counting === 'shared', 'both connected');
    const key = randomUUID();

    const counts: number[] = [];
    for (const store of [a.store, b.store, a.store, b.store, a.store, b.store]) {
      counts.push((await hit(store, key)).current);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);

    const probe = new Redis(server.url);
    try {
      expect(await probe.get(`${REDIS_KEY_PREFIX}${key}`)).toBe('6');
      const ttl = await probe.pttl(`${REDIS_KEY_PREFIX}${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    } finally {
      probe.disconnect();
    }
    expect(a.logger.lines.map((line) => line.message)).toEqual([
      'Redis connected: rate limits are shared by every instance',
    ]);
  });

  it('counts in fixed windows: the expiry is set once, and the count restarts after it', async () => {
    const server = await redisServer();
    const { limit } = sharedLimit(server.url);
    await until(() => limit.counting === 'shared', 'connected');
    const windowMs = 300;
    const store = limit.storeOf('', windowMs);
    const key = randomUUID();

    const first = await hit(store, key);
    expect(first.current).toBe(1);
    expect(first.ttlMs).toBe(windowMs);
    const second = await hit(store, key);
    const third = await hit(store, key);
    expect(third.current).toBe(3);
    // Going over the limit does not extend the window: the time left only runs down.
    expect(third.ttlMs).toBeLessThanOrEqual(second.ttlMs);
    expect(third.ttlMs).toBeLessThanOrEqual(windowMs);

    await until(async () => (await hit(store, key)).current === 1, 'the window to expire', {
      attempts: 40,
      everyMs: 50,
    });
  });

  it('gives a key left without an expiry one, rather than counting it forever', async () => {
    const server = await redisServer();
    const { limit, store } = sharedLimit(server.url);
    await until(() => limit.counting === 'shared', 'connected');
    const key = randomUUID();
    const probe = new Redis(server.url);
    try {
      await probe.set(`${REDIS_KEY_PREFIX}${key}`, '7');
      const counted = await hit(store, key);
      expect(counted.current).toBe(8);
      expect(counted.ttlMs).toBe(WINDOW_MS);
      const ttl = await probe.pttl(`${REDIS_KEY_PREFIX}${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    } finally {
      probe.disconnect();
    }
  });

  it('counts a budget of its own apart, under its name, still shared between instances', async () => {
    const server = await redisServer();
    const a = sharedLimit(server.url);
    const b = sharedLimit(server.url);
    await until(() => a.limit.counting === 'shared' && b.limit.counting === 'shared', 'both connected');
    // The name the rate limit gives a route's own budget (src/http/rate-limit.ts): method, URL, '-'.
    const budget = 'GET/docs/assets/:hash/:file-';
    const ownA = a.limit.storeOf(budget, WINDOW_MS);
    const ownB = b.limit.storeOf(budget, WINDOW_MS);
    const key = randomUUID();

    expect((await hit(ownA, key)).current).toBe(1);
    expect((await hit(ownB, key)).current).toBe(2);
    expect((await hit(a.store, key)).current).toBe(1);
    const probe = new Redis(server.url);
    try {
      expect(await probe.get(`${REDIS_KEY_PREFIX}${budget}${key}`)).toBe('2');
    } finally {
      probe.disconnect();
    }
  });

  it('keeps counting locally when Redis is killed, logs the fallback once, and shares again after a restart', async () => {
    const server = await redisServer();
    const a = sharedLimit(server.url);
    const b = sharedLimit(server.url);
    await until(() => a.limit.counting === 'shared' && b.limit.counting === 'shared', 'both connected');
    const key = randomUUID();
    expect((await hit(a.store, key)).current).toBe(1);
    expect((await hit(b.store, key)).current).toBe(2);

    await server.kill();
    const first = await hit(a.store, key);
    measure('killed: first call', first);
    // The local fallback starts its own window: this instance's own count, enforced against max.
    expect(first.current).toBe(1);
    const later: Counted[] = [];
    for (let i = 0; i < MAX + 2; i++) later.push(await hit(a.store, key));
    for (const counted of later) measure('killed: later calls', counted);
    expect(later.map((counted) => counted.current)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(later.filter((counted) => counted.current > MAX)).toHaveLength(3);
    // Known down: answered on the spot, no waiting on Redis.
    expect(later.every((counted) => counted.synchronous)).toBe(true);
    expect(a.limit.counting).toBe('local');
    expect(a.logger.count('warn')).toBe(1);
    expect(a.logger.lines.find((line) => line.level === 'warn')?.message).toBe(
      'Redis unavailable: rate limits are counted per instance until it is back',
    );
    // Instance b keeps its own separate local count.
    expect((await hit(b.store, key)).current).toBe(1);

    await server.restart();
    await until(() => a.limit.counting === 'shared' && b.limit.counting === 'shared', 'reconnection');
    expect(a.logger.lines.at(-1)?.message).toBe('Redis is back: rate limits are shared again');
    expect(a.logger.count('warn')).toBe(1);
    // The restarted Redis is empty: both instances count into one fresh shared budget.
    expect((await hit(a.store, key)).current).toBe(1);
    expect((await hit(b.store, key)).current).toBe(2);
    expect((await hit(a.store, key)).current).toBe(3);
  });

  it('works locally when Redis is down at start, and shares once it comes up', async () => {
    const server = await redisServer();
    await server.kill();
    const { limit, logger, store } = sharedLimit(server.url);
    const key = randomUUID();

    const counts: number[] = [];
    for (let i = 0; i < MAX + 1; i++) {
      const counted = await hit(store, key);
      measure('down at start', counted);
      counts.push(counted.current);
    }
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);
    await until(() => logger.count('warn') === 1, 'the fallback log line');
    expect(limit.counting).toBe('local');

    await server.restart();
    await until(() => limit.counting === 'shared', 'the first connection');
    expect((await hit(store, key)).current).toBe(1);
    expect(logger.count('warn')).toBe(1);
    expect(logger.lines.at(-1)?.message).toBe('Redis is back: rate limits are shared again');
  });

  it('answers from the local count when Redis stalls, and shares again when it resumes', async () => {
    const server = await redisServer();
    const { limit, logger, store } = sharedLimit(server.url);
    await until(() => limit.counting === 'shared', 'connected');
    const key = randomUUID();
    expect((await hit(store, key)).current).toBe(1);

    server.pause();
    try {
      // Requests already in flight when Redis stalls wait for the command timeout, then count locally.
      const inFlight = await Promise.all(Array.from({ length: 4 }, () => hit(store, key)));
      for (const counted of inFlight) measure('stalled: calls in flight', counted);
      expect(inFlight.map((counted) => counted.current).sort()).toEqual([1, 2, 3, 4]);
      expect(limit.counting).toBe('local');
      const warnings = logger.lines.filter((line) => line.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.details.reason)).toMatch(/timed out|did not answer/i);

      // Later requests do not wait at all.
      const later = await hit(store, key);
      measure('stalled: later calls', later);
      expect(later.synchronous).toBe(true);
      expect(later.current).toBe(5);
    } finally {
      server.resume();
    }
    await until(() => limit.counting === 'shared', 'the probe to see Redis again');
    expect(logger.lines.at(-1)?.message).toBe('Redis is back: rate limits are shared again');
    expect(logger.count('warn')).toBe(1);
    // Shared again: the count continues from what Redis holds (1, plus any in-flight INCRs it ran on resume).
    expect((await hit(store, key)).current).toBeGreaterThanOrEqual(2);
  });

  it('does not blame Redis for a pause of this process: a reply that came in meanwhile counts', async () => {
    const server = await redisServer();
    const { limit, logger, store } = sharedLimit(server.url);
    await until(() => limit.counting === 'shared', 'connected');
    const key = randomUUID();
    const throws = new ThrowBuckets({ burst: 100, perSecond: 1, addresses: 10, shared: limit });
    // Sent, then this process does not run for three times the fallback wait (a long garbage
    // collection, a starved machine) while Redis answers at once. From a setImmediate callback, as
    // after reading a request: the event loop's next turn runs its timers before reading sockets.
    const [counted, level] = await new Promise<[Promise<Counted>, Promise<number | undefined> | undefined]>(
      (resolve) => {
        setImmediate(async () => {
          const sent = [hit(store, key), throws.sharedLevelOf(key, 7)] as const;
          // Both written (a script command is sent after a few promise steps), nothing read yet.
          for (let step = 0; step < 20; step++) await Promise.resolve();
          const pausedUntil = performance.now() + 3 * REDIS_FALLBACK_AFTER_MS;
          while (performance.now() < pausedUntil) {
            // busy: no timer and no socket read can run
          }
          resolve([...sent]);
        });
      },
    );
    expect((await counted).current).toBe(1);
    expect(await level).toBe(93);
    expect(limit.counting).toBe('shared');
    expect(logger.count('warn')).toBe(0);
  });

  it('close() quits Redis; requests after it are still answered locally without a fallback warning', async () => {
    const server = await redisServer();
    const { limit, logger, store } = sharedLimit(server.url);
    await until(() => limit.counting === 'shared', 'connected');
    await limit.close();
    expect(limit.redis.status).toBe('end');
    const key = randomUUID();
    const counted = await hit(store, key);
    expect(counted.current).toBe(1);
    expect(counted.synchronous).toBe(true);
    expect(logger.count('warn')).toBe(0);
  });
});

describe('fallback timing contract', () => {
  it('gives up on Redis well within half a second', () => {
    expect(REDIS_FALLBACK_AFTER_MS).toBeLessThan(500);
  });
});
