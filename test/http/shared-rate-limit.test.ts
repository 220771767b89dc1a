// Two app instances (buildApp twice, each on its own port) sharing one real Redis: one budget for
// both, and through Redis faults never a 500, the limit still enforced per instance.

import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { THROWS_KEY_PREFIX } from '../../src/http/throw-budget.js';
import { LIMITS } from '../../src/limits.js';
import { type LogLine, listen, logCollector } from '../support/app.js';
import { type Answer, get } from '../support/http.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { until } from '../support/wait.js';

interface Instance {
  app: FastifyInstance;
  port: number;
  logs: LogLine[];
  said(message: RegExp): number;
}

const FALLBACK = /^Redis unavailable/;
const BACK = /^Redis is back/;
const CONNECTED = /^Redis connected/;

const envelopeCode = (answer: Answer) =>
  (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
const remaining = (answer: Answer) => Number(answer.headers['x-ratelimit-remaining']);

describeWithRedis('two app instances sharing one Redis', (executable) => {
  const servers: RedisServer[] = [];
  const instances: Instance[] = [];
  const latencies: Record<string, number[]> = {};

  const redisServer = async () => {
    const server = await startRedis(executable);
    servers.push(server);
    return server;
  };

  const instance = async (
    redisUrl: string,
    rateLimitMax: number,
    overrides: Partial<Config> = {},
  ): Promise<Instance> => {
    const log = logCollector();
    const logs = log.lines;
    const app = await buildApp(defaultConfig({ redisUrl, rateLimitMax, logLevel: 'info', ...overrides }), {
      logStream: log,
    });
    const port = Number(new URL(await listen(app)).port);
    const created = {
      app,
      port,
      logs,
      said: (message: RegExp) => logs.filter((line) => message.test(line.msg ?? '')).length,
    };
    instances.push(created);
    return created;
  };

  const timed = async (label: string, port: number) => {
    const started = performance.now();
    const answer = await get(port);
    latencies[label] ??= [];
    latencies[label].push(performance.now() - started);
    return answer;
  };

  afterEach(async () => {
    await Promise.all(instances.splice(0).map((created) => created.app.close()));
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  afterAll(() => {
    const summary = Object.entries(latencies).map(
      ([label, ms]) => `${label}: max ${Math.max(...ms).toFixed(1)} ms over ${ms.length} requests`,
    );
    console.info(`HTTP latency during Redis faults\n  ${summary.join('\n  ')}`);
  });

  it('gives both instances one budget: the 61st request across both is 429', async () => {
    const redis = await redisServer();
    const a = await instance(redis.url, LIMITS.rateLimitMax);
    const b = await instance(redis.url, LIMITS.rateLimitMax);
    await until(() => a.said(CONNECTED) === 1 && b.said(CONNECTED) === 1, 'both instances on Redis');

    for (let i = 1; i <= LIMITS.rateLimitMax; i++) {
      const answer = await get(i % 2 === 0 ? a.port : b.port);
      expect(answer.status, answer.body).toBe(200);
      expect(remaining(answer)).toBe(LIMITS.rateLimitMax - i);
    }
    for (const port of [a.port, b.port]) {
      const limited = await get(port);
      expect(limited.status).toBe(429);
      expect(envelopeCode(limited)).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('gives both instances one throws budget per address: what one spent, the other refuses', async () => {
    const redis = await redisServer();
    // A bucket that does not refill during the test (1 throw a second).
    const a = await instance(redis.url, 1000, { throwsPerSecond: 1 });
    const b = await instance(redis.url, 1000, { throwsPerSecond: 1 });
    await until(() => a.said(CONNECTED) === 1 && b.said(CONNECTED) === 1, 'both instances on Redis');
    // Every die rerolled to the cap (a throw of 4294967295 or more stops it: 2 in 2^32).
    const costly = `/v1/roll?formula=${encodeURIComponent('49d4294967296r<4294967295')}`;
    const throwsLeft = (answer: Answer) => Number(answer.headers['x-ratelimit-throws-remaining']);
    // A roll sends its charge to Redis without waiting for it: the next request waits until
    // Redis holds it (the key lives until the bucket is full again: 1 s per throw owed here).
    const client = new Redis(redis.url);
    const owedSeconds = async () => (await client.pttl(`${THROWS_KEY_PREFIX}127.0.0.1`)) / 1000;
    try {
      const first = await get(a.port, costly);
      expect(first.status, first.body).toBe(200);
      // The bucket refills 1 throw a second: a loaded machine may let a few pass in between.
      expect(throwsLeft(first)).toBeGreaterThanOrEqual(LIMITS.throwsBurst - 4_949);
      expect(throwsLeft(first)).toBeLessThanOrEqual(LIMITS.throwsBurst - 4_949 + 5);
      await until(async () => (await owedSeconds()) > 4_900, 'the first charge in Redis');
      // b has thrown nothing itself, yet its answer counts a's throws: 102 left.
      const second = await get(b.port, costly);
      expect(second.status, second.body).toBe(200);
      expect(throwsLeft(second)).toBeGreaterThanOrEqual(LIMITS.throwsBurst - 2 * 4_949);
      expect(throwsLeft(second)).toBeLessThanOrEqual(LIMITS.throwsBurst - 2 * 4_949 + 5);
      await until(async () => (await owedSeconds()) > 9_800, 'the second charge in Redis');
      expect((await get(a.port, costly)).status).toBe(200);
      await until(async () => (await owedSeconds()) > 14_800, 'the third charge in Redis');
      // The shared bucket is now 4,847 below empty: b refuses even a 1d20, though its own memory
      // holds 5,051 throws.
      const refused = await get(b.port);
      expect(refused.status).toBe(429);
      expect(envelopeCode(refused)).toBe('rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(4_000);
    } finally {
      client.disconnect();
    }
  });

  it('keeps serving when Redis is killed: no 500, each instance enforces the limit itself, shared again after a restart', async () => {
    const max = 5;
    const redis = await redisServer();
    const a = await instance(redis.url, max);
    const b = await instance(redis.url, max);
    await until(() => a.said(CONNECTED) === 1 && b.said(CONNECTED) === 1, 'both instances on Redis');
    expect((await get(a.port)).status).toBe(200);
    expect(remaining(await get(b.port))).toBe(max - 2);

    await redis.kill();
    for (const created of [a, b]) {
      const statuses: number[] = [];
      for (let i = 0; i < max + 2; i++) statuses.push((await timed('Redis killed', created.port)).status);
      // Each instance now counts alone, from zero: its own `max`, then 429. Never a 500.
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      expect(created.said(FALLBACK)).toBe(1);
    }

    await redis.restart();
    await until(() => a.said(BACK) === 1 && b.said(BACK) === 1, 'both instances back on Redis');
    const shared: number[] = [];
    for (let i = 0; i < max; i++) shared.push(remaining(await get(i % 2 === 0 ? a.port : b.port)));
    expect(shared).toEqual([4, 3, 2, 1, 0]);
    expect((await get(b.port)).status).toBe(429);
    expect(a.said(FALLBACK)).toBe(1);
  });

  it('starts and serves when Redis is down at start, limiting per instance', async () => {
    const redis = await redisServer();
    await redis.kill();
    const max = 3;
    const a = await instance(redis.url, max);
    const statuses: number[] = [];
    for (let i = 0; i < max + 1; i++) statuses.push((await timed('Redis down at start', a.port)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    await until(() => a.said(FALLBACK) === 1, 'the fallback log line');
    expect(a.said(FALLBACK)).toBe(1);
  });

  it('keeps answering when Redis stalls, and shares again when it resumes', async () => {
    const max = 50;
    const redis = await redisServer();
    const a = await instance(redis.url, max);
    await until(() => a.said(CONNECTED) === 1, 'on Redis');
    expect((await get(a.port)).status).toBe(200);

    redis.pause();
    try {
      const stalled = await Promise.all(
        Array.from({ length: 5 }, () => timed('Redis stalled: in flight', a.port)),
      );
      expect(stalled.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      const after: Answer[] = [];
      for (let i = 0; i < 5; i++) after.push(await timed('Redis stalled: after the switch', a.port));
      expect(after.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      // Counted locally from zero: 5 in flight, then these 5.
      expect(after.map(remaining)).toEqual([44, 43, 42, 41, 40]);
      expect(a.said(FALLBACK)).toBe(1);
    } finally {
      redis.resume();
    }
    await until(() => a.said(BACK) === 1, 'back on Redis');
    expect((await get(a.port)).status).toBe(200);
  });
});
