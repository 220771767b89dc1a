// Errors answered on /trpc before tRPC sees the call (the rate limit's 429, the body limit's 413)
// come in tRPC's error shape: @fairdice/client reads their API code (and a 429's retryAfter)
// instead of failing to parse the response. REST keeps its envelope.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiceClient, type DiceError, isDiceError } from '../../packages/client/src/index.js';
import { procedureOfUrl, retryAfterOf } from '../../src/http/trpc-errors.js';
import { expectError, listen, makeApp } from '../support/app.js';

const failureOf = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (error: unknown) => error,
  );

function expectDiceError(failure: unknown, status: number, code: string): DiceError {
  expect(isDiceError(failure), String(failure)).toBe(true);
  const error = failure as DiceError;
  expect(error.data.httpStatus).toBe(status);
  expect(error.data.api.code).toBe(code);
  expect(error.message).toBe(error.data.api.message);
  return error;
}

describe('a 429 over /trpc', () => {
  let app: FastifyInstance;
  let origin: string;
  beforeAll(async () => {
    app = await makeApp({ rateLimitMax: 2 });
    origin = await listen(app);
  });
  afterAll(() => app.close());

  it('is a tRPC error with rate_limited and the seconds to wait', async () => {
    const dice = createDiceClient(origin);
    await dice.roll.query({ formula: '1d6' });
    await dice.health.query();
    const error = expectDiceError(await failureOf(dice.roll.query({ formula: '1d6' })), 429, 'rate_limited');
    expect(error.data.code).toBe('TOO_MANY_REQUESTS');
    expect(error.data.path).toBe('roll');
    const retryAfter = error.data.api.retryAfter;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The same number the header gives, which the browser may read too.
    const response = (error.meta as { response?: Response } | undefined)?.response;
    expect(Number(response?.headers.get('retry-after'))).toBe(retryAfter);
    // A mutation is refused the same way.
    expectDiceError(await failureOf(dice.rollWith.mutate({ formula: '1d6' })), 429, 'rate_limited');
  });

  it('stays the REST envelope on REST paths', async () => {
    expectError(await app.inject({ url: '/v1/roll?formula=1d6' }), 429, 'rate_limited');
  });

  it('has exactly the shape of the error formatter, with the API error in data', async () => {
    const answer = await app.inject({ url: '/trpc/health' });
    expect(answer.statusCode).toBe(429);
    expect(answer.json()).toEqual({
      error: {
        code: -32029,
        message: expect.any(String),
        data: {
          code: 'TOO_MANY_REQUESTS',
          httpStatus: 429,
          path: 'health',
          api: { code: 'rate_limited', message: expect.any(String), retryAfter: expect.any(Number) },
        },
      },
    });
  });
});

describe('a 413 over /trpc', () => {
  let app: FastifyInstance;
  let origin: string;
  beforeAll(async () => {
    app = await makeApp({ bodyLimitBytes: 1024 });
    origin = await listen(app);
  });
  afterAll(() => app.close());

  it('is a tRPC error with payload_too_large', async () => {
    const dice = createDiceClient(origin);
    const rolls = Array.from({ length: 20 }, () => ({ formula: `1d6+${'1+'.repeat(40)}1` }));
    const error = expectDiceError(await failureOf(dice.batch.mutate({ rolls })), 413, 'payload_too_large');
    expect(error.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.data.path).toBe('batch');
    expect(error.data.api.message).toMatch(/1024 bytes/);
    expect(error.data.api.retryAfter).toBeUndefined();
  });
});

describe('reading a /trpc URL', () => {
  it('names the procedure only when it is a plain name', () => {
    expect(procedureOfUrl('/trpc/roll?input=%7B%7D')).toBe('roll');
    expect(procedureOfUrl('/trpc/rollWith')).toBe('rollWith');
    expect(procedureOfUrl('/trpc/<script>')).toBeUndefined();
    expect(procedureOfUrl('/trpc/roll,health')).toBeUndefined();
    expect(procedureOfUrl('/trpc')).toBeUndefined();
  });

  it('reads retry-after as whole seconds only', () => {
    expect(retryAfterOf('42')).toBe(42);
    expect(retryAfterOf(7)).toBe(7);
    expect(retryAfterOf(undefined)).toBeUndefined();
    expect(retryAfterOf('soon')).toBeUndefined();
  });
});
