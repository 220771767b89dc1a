// The throws budget per address (docs/operations.md#what-one-address-can-cost): a bucket of
// THROWS_BURST throws refilled at THROWS_PER_SECOND, charged with the throws each roll made.
// Every loop is bounded; the app is driven by inject (no sockets).
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../../src/config.js';
import { MESSAGES, ThrowsSpentError } from '../../src/errors.js';
import { buildApp } from '../../src/http/app.js';
import { ThrowBuckets } from '../../src/http/throw-budget.js';
import { LIMITS } from '../../src/limits.js';
import { callToolOverHttp } from '../support/app.js';

/** Every die lands on 1: `r<N` rerolls it every time, to the reroll cap. */
const ones = { die: () => 1 };
/** The costliest roll under the default THROWS_PER_REQUEST: 49 dice x 101 throws = 4,949 throws. */
const COSTLY_FORMULA = '49d4294967296r<4294967295';
const COSTLY = `/v1/roll?formula=${encodeURIComponent(COSTLY_FORMULA)}`;
const COSTLY_THROWS = 49 * 101;
/** Past THROWS_PER_REQUEST: refused with too_many_dice once the budget is thrown. */
const PAST_BUDGET = `/v1/roll?formula=${encodeURIComponent('1000d4294967296r<4294967295')}`;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** The defaults, except a bucket that refills slowly (1 throw a second): see throwsLeft. */
const make = async (overrides: Partial<Config> = {}) => {
  app = await buildApp(
    defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000, throwsPerSecond: 1, ...overrides }),
    { random: ones },
  );
  return app;
};

const from = (remoteAddress: string, url: string) => ({ method: 'GET' as const, url, remoteAddress });

/**
 * After an earlier charge: the bucket refills 1 throw a second on the real clock, and a loaded
 * machine may let a few seconds pass between two requests. `header` is `expected` throws left, or
 * up to 5 more. A first charge of a fresh bucket reads the clock once, so its header is exact.
 */
const throwsLeft = (header: unknown, expected: number) => {
  expect(Number(header)).toBeGreaterThanOrEqual(expected);
  expect(Number(header)).toBeLessThanOrEqual(expected + 5);
};
/** A retry-after of `expected` seconds, or up to 5 fewer (the bucket refilled meanwhile). */
const waitSeconds = (header: unknown, expected: number) => {
  expect(Number(header)).toBeLessThanOrEqual(expected);
  expect(Number(header)).toBeGreaterThanOrEqual(expected - 5);
};

describe('the throws budget of an address', () => {
  it('lets the costliest rolls through until its bucket is spent, then refuses with 429 and retry-after, while another address rolls on', async () => {
    const built = await make();
    const answers = [];
    // 10,000 throws: two costly rolls leave 102, which lets a third in (the bucket is not empty).
    for (let i = 0; i < 4; i++) answers.push(await built.inject(from('127.0.0.1', COSTLY)));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers[0]!.headers['x-ratelimit-throws-limit']).toBe(String(LIMITS.throwsBurst));
    expect(answers[0]!.headers['x-ratelimit-throws-remaining']).toBe(
      String(LIMITS.throwsBurst - COSTLY_THROWS),
    );
    throwsLeft(answers[1]!.headers['x-ratelimit-throws-remaining'], LIMITS.throwsBurst - 2 * COSTLY_THROWS);
    expect(answers[2]!.headers['x-ratelimit-throws-remaining']).toBe('0');
    const refused = answers[3]!;
    expect(refused.json()).toEqual({ error: { code: 'rate_limited', message: MESSAGES.throwsSpent } });
    // 4,847 throws owed at 1 a second, plus the one throw the bucket must hold.
    waitSeconds(refused.headers['retry-after'], 3 * COSTLY_THROWS - LIMITS.throwsBurst + 1);
    expect(refused.headers['x-ratelimit-throws-remaining']).toBe('0');
    // Cheap rolls of that address are refused too: the bucket is empty whatever the next roll costs.
    expect((await built.inject(from('127.0.0.1', '/v1/roll?formula=1d20'))).statusCode).toBe(429);
    // Another address has its own bucket.
    const other = await built.inject(from('127.0.0.2', '/v1/roll?formula=1d20'));
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-throws-remaining']).toBe(String(LIMITS.throwsBurst - 1));
    // The request limit is another count: both sets of headers on one answer.
    expect(other.headers['x-ratelimit-limit']).toBe('10000');
  });

  it('charges a roll refused at THROWS_PER_REQUEST with the throws it made before it stopped', async () => {
    const built = await make();
    const past = await built.inject(from('127.0.0.1', PAST_BUDGET));
    expect(past.statusCode).toBe(400);
    expect(past.json().error.code).toBe('too_many_dice');
    // Charged at most THROWS_PER_REQUEST, and at least what stopped it.
    const remaining = Number(past.headers['x-ratelimit-throws-remaining']);
    expect(remaining).toBe(LIMITS.throwsBurst - LIMITS.throwsPerRequest);
  });

  it('charges a formula refused before any die is thrown nothing', async () => {
    const built = await make();
    const invalid = await built.inject(from('127.0.0.1', '/v1/roll?formula=2d'));
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['x-ratelimit-throws-remaining']).toBe(String(LIMITS.throwsBurst));
  });

  it('charges a batch with the throws of all its rolls, and POST, tRPC and MCP draw on the same bucket', async () => {
    const built = await make({ throwsBurst: 15_000 });
    const rolls = Array.from({ length: 20 }, () => ({ formula: '2d4294967296r<4294967295' }));
    const batch = await built.inject({ method: 'POST', url: '/v1/roll/batch', payload: { rolls } });
    expect(batch.statusCode).toBe(200);
    expect(batch.headers['x-ratelimit-throws-remaining']).toBe(String(15_000 - 20 * 2 * 101));
    const post = await built.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: COSTLY_FORMULA },
    });
    expect(post.statusCode).toBe(200);
    throwsLeft(post.headers['x-ratelimit-throws-remaining'], 15_000 - 4_040 - COSTLY_THROWS);
    const trpc = await built.inject({
      method: 'GET',
      url: `/trpc/roll?input=${encodeURIComponent(JSON.stringify({ formula: COSTLY_FORMULA }))}`,
    });
    expect(trpc.statusCode).toBe(200);
    // 15,000 - 4,040 - 2 x 4,949 = 1,062 left: one more roll gets in, and then none.
    expect((await built.inject(from('127.0.0.1', COSTLY))).statusCode).toBe(200);
    const trpcRefused = await built.inject({
      method: 'GET',
      url: `/trpc/roll?input=${encodeURIComponent(JSON.stringify({ formula: '1d6' }))}`,
    });
    expect(trpcRefused.statusCode).toBe(429);
    expect(trpcRefused.json().error.data.api).toMatchObject({ code: 'rate_limited' });
    waitSeconds(trpcRefused.json().error.data.api.retryAfter, 3_888);
    expect(trpcRefused.headers['retry-after']).toBe(String(trpcRefused.json().error.data.api.retryAfter));
    const mcp = await callToolOverHttp(built, 'roll', { formula: '1d6' });
    expect(mcp.statusCode).toBe(200);
    const result = mcp.result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('"code":"rate_limited"');
  });

  it('leaves ordinary use alone: a table of 60 1d20 and a 1000d6 within a second', async () => {
    const built = await make({ throwsPerSecond: LIMITS.throwsPerSecond });
    for (let i = 0; i < 60; i++) {
      expect((await built.inject(from('127.0.0.1', '/v1/roll?formula=1d20'))).statusCode).toBe(200);
    }
    const big = await built.inject(from('127.0.0.1', '/v1/roll?formula=1000d6'));
    expect(big.statusCode).toBe(200);
    expect(Number(big.headers['x-ratelimit-throws-remaining'])).toBeGreaterThanOrEqual(
      LIMITS.throwsBurst - 1060,
    );
  });
});

describe('ThrowBuckets', () => {
  const bucketsAt = (clock: { now: number }, addresses = 10) =>
    new ThrowBuckets({ burst: 20_000, perSecond: 10_000, addresses, clock: () => clock.now });

  it('refills continuously: an emptied bucket lets one roll in a second later, and is full two seconds after', () => {
    const clock = { now: 1_000_000 };
    const buckets = bucketsAt(clock);
    buckets.admit('a');
    // Each charge gives the level after it, as level() reads it.
    expect(buckets.charge('a', 10_000)).toBe(10_000);
    expect(buckets.charge('a', 10_000)).toBe(0);
    expect(buckets.charge('a', 10_000)).toBe(-10_000);
    expect(buckets.level('a')).toBe(-10_000);
    expect(buckets.charge('a', 0)).toBe(-10_000);
    expect(() => buckets.admit('a')).toThrow(ThrowsSpentError);
    try {
      buckets.admit('a');
    } catch (error) {
      expect((error as ThrowsSpentError).retryAfterSeconds).toBe(2);
      expect((error as ThrowsSpentError).status).toBe(429);
    }
    clock.now += 1_000;
    expect(buckets.level('a')).toBe(0);
    expect(() => buckets.admit('a')).toThrow(ThrowsSpentError);
    clock.now += 1;
    expect(buckets.level('a')).toBe(10);
    expect(() => buckets.admit('a')).not.toThrow();
    expect(buckets.left('a')).toEqual({ remaining: 10, resetSeconds: 2 });
    clock.now += 2_000;
    expect(buckets.level('a')).toBe(20_000);
    expect(buckets.left('a')).toEqual({ remaining: 20_000, resetSeconds: 0 });
    // At most the burst: a long rest saves nothing beyond it.
    clock.now += 60_000;
    expect(buckets.level('a')).toBe(20_000);
  });

  it('holds a bounded number of addresses, forgetting full buckets first', () => {
    const clock = { now: 1_000_000 };
    const buckets = bucketsAt(clock, 3);
    buckets.charge('full-soon', 1);
    buckets.charge('spent', 30_000);
    buckets.charge('also-spent', 30_000);
    clock.now += 10;
    // 'full-soon' is full again: it goes, the spent ones stay.
    buckets.charge('new', 30_000);
    expect(buckets.size).toBe(3);
    expect(buckets.level('spent')).toBeLessThan(0);
    expect(buckets.level('also-spent')).toBeLessThan(0);
    // Every one owes: the least recently charged goes.
    buckets.charge('newer', 1);
    expect(buckets.size).toBe(3);
    expect(buckets.level('spent')).toBe(20_000);
    expect(buckets.level('also-spent')).toBeLessThan(0);
  });
});
