// src/http/rate-limit-store.ts reuses @fastify/rate-limit's own stores through deep imports
// (`store/LocalStore.js`, `store/RedisStore.js`), which are not part of its documented API. The
// version is pinned exactly in package.json; these tests fail when an upgrade moves the files or
// changes how they count, before the shared limiter silently stops working.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';

interface Counted {
  current: number;
  ttl: number;
}
interface Counting {
  incr(
    key: string,
    cb: (error: Error | null, result?: Counted) => void,
    timeWindow: number,
    max: number,
  ): void;
}

const incr = (store: Counting, key: string, timeWindow: number, max: number) =>
  new Promise<Counted>((resolve, reject) =>
    store.incr(
      key,
      (error, result) => (error !== null || result === undefined ? reject(error) : resolve(result)),
      timeWindow,
      max,
    ),
  );

describe('@fastify/rate-limit deep imports', () => {
  it('is pinned to exactly the version installed', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const pinned = pkg.dependencies['@fastify/rate-limit'];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = createRequire(import.meta.url)('@fastify/rate-limit/package.json') as {
      version: string;
    };
    expect(installed.version).toBe(pinned);
  });

  it('LocalStore counts per key in a fixed window, and restarts the window when continueExceeding', async () => {
    const store = new LocalStore(false, false, 100) as unknown as Counting;
    expect((await incr(store, 'a', 60_000, 2)).current).toBe(1);
    const second = await incr(store, 'a', 60_000, 2);
    expect(second.current).toBe(2);
    expect(second.ttl).toBeGreaterThan(0);
    expect(second.ttl).toBeLessThanOrEqual(60_000);
    expect((await incr(store, 'b', 60_000, 2)).current).toBe(1);

    const exceeding = new LocalStore(true, false, 100) as unknown as Counting;
    for (let i = 0; i < 3; i++) await incr(exceeding, 'a', 60_000, 1);
    expect(await incr(exceeding, 'a', 60_000, 1)).toEqual(
      expect.objectContaining({ current: 4, ttl: 60_000 }),
    );
  });
});

describeWithRedis('@fastify/rate-limit RedisStore deep import against a real redis-server', (executable) => {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('counts under its key prefix in one fixed window', async () => {
    server = await startRedis(executable);
    redis = new Redis(server.url);
    const store = new RedisStore(false, false, redis, 'deep-import-test:') as unknown as Counting;
    expect((await incr(store, 'client', 60_000, 5)).current).toBe(1);
    const second = await incr(store, 'client', 60_000, 5);
    expect(second.current).toBe(2);
    expect(second.ttl).toBeGreaterThan(0);
    expect(second.ttl).toBeLessThanOrEqual(60_000);
    expect(await redis.get('deep-import-test:client')).toBe('2');
  });
});
