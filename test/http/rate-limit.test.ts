// The rate-limit plugin (src/http/rate-limit.ts) on a bare fastify, through its own store interface
// (src/http/rate-limit-store.ts `RateStores`): what it counts, in which budget, what it answers,
// whether the store answers at once (memory) or later (Redis), and when a store fails.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { requestKeys } from '../../src/http/connections.js';
import { errorHandlingPlugin } from '../../src/http/errors.js';
import { countingItself, rateLimitPlugin } from '../../src/http/rate-limit.js';
import {
  MemoryRateStore,
  type RateStore,
  type RateStores,
  type WindowCount,
} from '../../src/http/rate-limit-store.js';
import { expectError } from '../support/app.js';

const WINDOW_MS = 60_000;

/** Stores that answer through a promise, as the Redis one does, and record every budget made. */
function laterStores(): RateStores & { budgets: string[] } {
  const budgets: string[] = [];
  return {
    budgets,
    storeOf(budget, windowMs) {
      budgets.push(budget);
      const memory = new MemoryRateStore(windowMs);
      return { hit: (key) => Promise.resolve({ ...memory.hit(key) }) };
    },
  };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function serve(max: number, stores?: RateStores): Promise<FastifyInstance> {
  app = Fastify();
  await app.register(rateLimitPlugin, {
    max,
    windowMs: WINDOW_MS,
    log: app.log,
    keyOf: requestKeys(app, 64),
    stores,
  });
  await app.register(errorHandlingPlugin, { bodyLimitBytes: 8192 });
  app.get('/counted', () => 'x');
  await countingItself(app, (scope) => {
    scope.get('/own', { config: { rateLimit: { max: 2 } } }, () => 'own');
    scope.get('/free', { config: { rateLimit: false } }, () => 'free');
    scope.post('/charged', { config: { rateLimitInHandler: true } }, (request) =>
      scope.rateLimit.charge(request),
    );
  });
  return app;
}

describe.each([
  ['memory: answered at once', undefined],
  ['a store that answers later (as Redis does)', 'later'],
] as const)('the request limit counting in %s', (_name, kind) => {
  const stores = () => (kind === 'later' ? laterStores() : undefined);

  it('counts every route, 404s included, with the headers, then answers 429 with retry-after', async () => {
    const served = await serve(3, stores());
    const first = await served.inject('/counted');
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': '60',
    });
    expect(first.headers['retry-after']).toBeUndefined();
    expectError(await served.inject('/nowhere'), 404, 'not_found');
    expect((await served.inject('/counted')).headers['x-ratelimit-remaining']).toBe('0');
    const refused = await served.inject('/counted');
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers).toMatchObject({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
      'retry-after': '60',
    });
    // Another address has a budget of its own.
    expect((await served.inject({ url: '/counted', remoteAddress: '127.0.0.2' })).statusCode).toBe(200);
  });

  it('counts a route with a budget of its own apart; an uncounted route and a charged one carry no headers', async () => {
    const given = stores();
    const served = await serve(3, given);
    for (const remaining of ['1', '0']) {
      expect((await served.inject('/own')).headers).toMatchObject({
        'x-ratelimit-limit': '2',
        'x-ratelimit-remaining': remaining,
      });
    }
    expectError(await served.inject('/own'), 429, 'rate_limited');
    // The API's own budget is untouched by those.
    expect((await served.inject('/counted')).headers['x-ratelimit-remaining']).toBe('2');
    const free = await served.inject('/free');
    expect(free.statusCode).toBe(200);
    expect(free.headers['x-ratelimit-limit']).toBeUndefined();
    // The charged route counts in the API's budget, from its handler, without headers.
    const charged = await served.inject({ method: 'POST', url: '/charged' });
    expect(charged.json()).toEqual({ exceeded: false, retryAfterSeconds: 60 });
    expect(charged.headers['x-ratelimit-limit']).toBeUndefined();
    expect((await served.inject('/counted')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await served.inject({ method: 'POST', url: '/charged' })).json()).toEqual({
      exceeded: true,
      retryAfterSeconds: 60,
    });
    if (given !== undefined) {
      // One store for the API, one per route with its own budget (HEAD has its own route).
      expect(given.budgets.sort()).toEqual(['', 'GET/own-', 'HEAD/own-']);
    }
  });
});

describe('a store that fails', () => {
  it('lets the request through uncounted rather than failing it', async () => {
    const failing: RateStores = {
      storeOf: (): RateStore => ({ hit: (): Promise<WindowCount> => Promise.reject(new Error('down')) }),
    };
    const served = await serve(1, failing);
    for (let i = 0; i < 3; i++) {
      const answer = await served.inject('/counted');
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});
