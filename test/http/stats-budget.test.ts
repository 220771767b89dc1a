// The /v1/stats budget per address (docs/operations.md#what-one-address-can-cost): a bucket of
// STATS_BURST_MS milliseconds of worker time refilled at STATS_MS_PER_SECOND, charged with each
// computation's measured time; one computation under way per address, a few waiting. Driven by
// inject (no sockets); every loop is bounded.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { MESSAGES, StatsSpentError } from '../../src/errors.js';
import { StatsBudget } from '../../src/http/stats-budget.js';
import { LIMITS } from '../../src/limits.js';
import { callToolOverHttp, expectError, makeApp } from '../support/app.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const make = async (overrides: Partial<Config> = {}) => {
  app = await makeApp(overrides);
  return app;
};

const stats = (formula: string, remoteAddress = '127.0.0.1') => ({
  method: 'GET' as const,
  url: `/v1/stats?formula=${encodeURIComponent(formula)}`,
  remoteAddress,
});

describe('the stats budget of an address', () => {
  it('refuses an address whose computing time is spent with 429 and retry-after, serves its cached answers, and serves another address', async () => {
    // 1 ms at once, refilled at 1 ms a second: the first computation spends it all.
    const built = await make({ statsBurstMs: 1, statsMsPerSecond: 1 });
    const first = await built.inject(stats('4d6kh3'));
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-stats-limit']).toBe('1');
    expect(first.headers['x-ratelimit-stats-remaining']).toBe('0');
    expect(Number(first.headers['x-ratelimit-stats-reset'])).toBeGreaterThanOrEqual(1);

    // Another formula (or the same with another depth or a +1) needs a computation: refused.
    for (const formula of ['4d6kh3+1', '5d10!kh3', '3d6']) {
      const refused = await built.inject(stats(formula));
      expect(expectError(refused, 429, 'rate_limited')).toBe(MESSAGES.statsSpent);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['x-ratelimit-stats-remaining']).toBe('0');
      // The request limit is another count: both sets of headers on one answer.
      expect(refused.headers['x-ratelimit-limit']).toBe('10000');
    }
    const deeper = await built.inject({ ...stats('1d6!'), url: '/v1/stats?formula=1d6!&depth=7' });
    expectError(deeper, 429, 'rate_limited');

    // Its cached answer costs nothing: still served.
    const cached = await built.inject(stats('4d6kh3'));
    expect(cached.statusCode).toBe(200);
    expect(cached.body).toBe(first.body);

    // Another address has its own budget.
    const other = await built.inject(stats('5d10!kh3', '10.9.8.7'));
    expect(other.statusCode).toBe(200);
    expect(other.json().formula).toBe('5d10!kh3');
    expect(other.headers['x-ratelimit-stats-remaining']).toBe('0');
  }, 30_000);

  it('POST, tRPC and the MCP stats tool draw on the same budget', async () => {
    const built = await make({ statsBurstMs: 1, statsMsPerSecond: 1 });
    const post = await built.inject({ method: 'POST', url: '/v1/stats', payload: { formula: '2d8+1' } });
    expect(post.statusCode).toBe(200);
    const trpc = await built.inject({
      method: 'GET',
      url: `/trpc/stats?input=${encodeURIComponent(JSON.stringify({ formula: '2d8+2' }))}`,
    });
    expect(trpc.statusCode).toBe(429);
    expect(trpc.json().error.data.api).toMatchObject({ code: 'rate_limited', message: MESSAGES.statsSpent });
    expect(trpc.json().error.data.api.retryAfter).toBeGreaterThanOrEqual(1);
    // The header says it too, as on REST.
    expect(trpc.headers['retry-after']).toBe(String(trpc.json().error.data.api.retryAfter));
    const mcp = await callToolOverHttp(built, 'stats', { formula: '2d8+3' });
    expect(mcp.statusCode).toBe(200);
    const result = mcp.result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('rate_limited');
  }, 30_000);

  it('one computation under way per address: the next ones wait their turn, a few at most', async () => {
    const built = await make();
    // Distinct computations sent together from one address: one runs, four wait, the sixth is
    // refused at once; from another address, one more runs meanwhile.
    const depths = [20, 21, 22, 23, 24, 25];
    const answers = await Promise.all([
      ...depths.map((depth) =>
        built.inject({ ...stats('6d10!kl3'), url: `/v1/stats?formula=6d10!kl3&depth=${depth}` }),
      ),
      built.inject({ ...stats('6d10!kl3', '10.1.1.1'), url: '/v1/stats?formula=6d10!kl3&depth=30' }),
    ]);
    const codes = answers.map((answer) => answer.statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 200]);
    expect(expectError(answers[5]!, 429, 'rate_limited')).toBe(MESSAGES.statsInFlight);
    expect(answers[5]!.headers['retry-after']).toBe('1');
    expect(answers.slice(0, 5).map((answer) => answer.json().truncation.depth)).toEqual([20, 21, 22, 23, 24]);
  }, 60_000);

  it('at the defaults, ordinary use is never refused: a session of formulas, each a few milliseconds', async () => {
    const built = await make();
    for (const formula of ['4d6kh3', '2d20adv+5', '8d6!', '6d10>=8f1', '10d10kh3', '100d6', '1d20+1d4+3']) {
      const answer = await built.inject(stats(formula));
      expect(answer.statusCode, formula).toBe(200);
      expect(answer.headers['x-ratelimit-stats-limit']).toBe(String(LIMITS.statsBurstMs));
    }
  }, 60_000);
});

describe('StatsBudget', () => {
  const budgetAt = (clock: { now: number }, waitingMax?: number) =>
    new StatsBudget({ burstMs: 1_000, msPerSecond: 100, addresses: 10, waitingMax, clock: () => clock.now });

  it('refills continuously and charges what was measured; a turn that comes when the bucket is empty is refused', async () => {
    const clock = { now: 1_000_000 };
    const budget = budgetAt(clock);
    await budget.admit('a');
    expect(budget.pending('a')).toBe(1);
    // A second computation of 'a' waits for the first to settle.
    let turn = 'waiting';
    const second = budget.admit('a').then(
      () => {
        turn = 'admitted';
      },
      (error: unknown) => {
        turn = error instanceof StatsSpentError ? `refused ${error.retryAfterSeconds}` : 'other';
      },
    );
    await Promise.resolve();
    expect(turn).toBe('waiting');
    expect(budget.pending('a')).toBe(2);
    // The first one took 2,500 ms: 1,000 - 2,500 leaves -1,500, paid back at 100 a second.
    budget.settle('a', 2_500);
    await second;
    expect(turn).toBe('refused 16');
    expect(budget.pending('a')).toBe(0);
    expect(budget.level('a')).toBe(-1_500);
    // 15 s later the debt is paid, and a little more lets one in.
    clock.now += 15_000;
    await expect(budget.admit('a')).rejects.toBeInstanceOf(StatsSpentError);
    clock.now += 10;
    await expect(budget.admit('a')).resolves.toBeUndefined();
    budget.settle('a', 0.2);
    // Charged whole milliseconds: 1 - 1.
    expect(budget.level('a')).toBe(0);
    // Another address never waited for any of it.
    await expect(budget.admit('b')).resolves.toBeUndefined();
    // At most the burst: a long rest saves nothing beyond it.
    clock.now += 3_600_000;
    expect(budget.level('a')).toBe(1_000);
  });

  it('lets waitingMax computations of an address wait, refuses the next at once, and serves them in order', async () => {
    const clock = { now: 1_000_000 };
    const budget = budgetAt(clock, 2);
    await budget.admit('a');
    const order: number[] = [];
    const waiting = [1, 2].map((n) => budget.admit('a').then(() => order.push(n)));
    await expect(budget.admit('a')).rejects.toMatchObject({
      code: 'rate_limited',
      message: MESSAGES.statsInFlight,
      retryAfterSeconds: 1,
    });
    budget.settle('a', 1);
    await waiting[0];
    budget.settle('a', 1);
    await waiting[1];
    expect(order).toEqual([1, 2]);
    budget.settle('a', 1);
    expect(budget.pending('a')).toBe(0);
  });
});
