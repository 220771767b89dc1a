// The operations called through tRPC (no HTTP): the tRPC error shape the typed client sees, the
// error vocabulary, and the safe messages built from schema failures.
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describePath, parseInput } from '../../src/api/input.js';
import { type DiceContext, OPERATIONS } from '../../src/api/operations.js';
import { appRouter, routerOf } from '../../src/api/router.js';
import { RollRequestSchema } from '../../src/api/schemas.js';
import { StatsService } from '../../src/api/stats-service.js';
import { createCallerFactory, fromTrpcError } from '../../src/api/trpc.js';
import {
  codesOf,
  DiceError,
  ERROR_CODES,
  ERROR_STATUSES,
  type ErrorStatus,
  FormulaError,
  MESSAGES,
  RandomSourceError,
  RequestError,
  TooManyDiceError,
} from '../../src/errors.js';
import { maxSource } from '../support/sources.js';

const warnings: string[] = [];
// Its worker pool starts only if a test asks for a distribution.
const stats = new StatsService();
const context = (overrides: Partial<DiceContext> = {}): DiceContext => ({
  log: { warn: (_details, message) => warnings.push(message) },
  random: maxSource(),
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  stats,
  ...overrides,
});
const caller = createCallerFactory(appRouter);

describe('the operations through a tRPC caller', () => {
  it('roll, rollWith, batch and health answer their schemas', async () => {
    const dice = caller(context());
    expect((await dice.roll({ formula: '2d6+1' })).total).toBe(13);
    expect((await dice.rollWith({ formula: '1d4', bonuses: [3] })).total).toBe(7);
    expect(
      (await dice.batch({ rolls: [{ formula: '1d6' }, { formula: '1d8' }] })).rolls.map((r) => r.total),
    ).toEqual([6, 8]);
    expect((await dice.health()).status).toBe('ok');
  });

  it('a deprecated form in a batch warns once per item through the context log', async () => {
    warnings.length = 0;
    await caller(context()).batch({
      rolls: [{ formula: '1d20adv' }, { formula: '2d20adv' }, { formula: '1d20adv' }],
    });
    expect(warnings).toHaveLength(2);
  });

  it('raises tRPC errors whose cause carries the API code and status', async () => {
    const failure = await caller(context())
      .roll({ formula: '2d' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect((failure as TRPCError).code).toBe('BAD_REQUEST');
    expect(fromTrpcError(failure as TRPCError)).toMatchObject({ status: 400, code: 'invalid_formula' });

    const broke = await caller(context({ random: { die: () => Number.NaN } }))
      .roll({ formula: '1d6' })
      .catch((error: unknown) => error);
    expect(fromTrpcError(broke as TRPCError)).toMatchObject({
      status: 500,
      code: 'internal_error',
      message: MESSAGES.randomSource,
    });
  });

  it('the batch budget is checked before any die is thrown', async () => {
    let thrown = 0;
    const counting = context({ dicePerBatch: 5, random: { die: () => ++thrown && 1 } });
    const failure = await caller(counting)
      .batch({ rolls: [{ formula: '3d6' }, { formula: '3d6' }] })
      .catch((error: unknown) => error);
    expect(fromTrpcError(failure as TRPCError)).toMatchObject({ code: 'too_many_dice' });
    expect(thrown).toBe(0);
  });
});

describe('the error vocabulary', () => {
  it('gives every code a documented status, and each status at least one code', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      expect(ERROR_STATUSES[status as ErrorStatus]).toBeDefined();
      expect(codesOf(status as ErrorStatus)).toContain(code);
    }
    for (const status of Object.keys(ERROR_STATUSES).map(Number) as ErrorStatus[]) {
      expect(codesOf(status).length).toBeGreaterThan(0);
    }
  });

  it('gives each engine error its code and status', () => {
    expect(new FormulaError('Expected a number', 'formula', 3)).toMatchObject({
      status: 400,
      code: 'invalid_formula',
    });
    expect(new TooManyDiceError(10, 11)).toMatchObject({ status: 400, code: 'too_many_dice' });
    expect(new RequestError('no')).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(new RandomSourceError()).toMatchObject({
      status: 500,
      code: 'internal_error',
      message: MESSAGES.randomSource,
    });
    expect(new DiceError('not_found', MESSAGES.notFound).toBody()).toEqual({
      error: { code: 'not_found', message: MESSAGES.notFound },
    });
  });

  it('maps tRPC errors back: a DiceError cause keeps its code, anything unplanned is undefined', () => {
    const wrapped = new TRPCError({ code: 'BAD_REQUEST', cause: new TooManyDiceError(1, 2) });
    expect(fromTrpcError(wrapped)).toMatchObject({ status: 400, code: 'too_many_dice' });
    expect(fromTrpcError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'x' }))).toBeUndefined();
    expect(
      fromTrpcError(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new Error('boom') })),
    ).toBeUndefined();
  });

  it('describes paths without quoting unsafe keys', () => {
    expect(describePath(['rolls', 3, 'formula'])).toBe('rolls[3].formula');
    expect(describePath(['<b>'])).toBe('(a field)');
    expect(describePath(['tags', 0, 'x y'])).toBe('tags[0].(a field)');
  });

  it('counts the further problems of a schema failure', () => {
    let failure: unknown;
    try {
      parseInput(RollRequestSchema, { value: { formula: '', tags: ['A'], extra: 1 } });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(RequestError);
    expect((failure as RequestError).message).toMatch(/more problems? in this request/);
  });

  it('parses an asynchronous schema asynchronously, with the same refusal', async () => {
    const slow = z.strictObject({ word: z.string() }).refine(async (value) => value.word !== 'no');
    await expect(parseInput(slow, { value: { word: 'yes' } })).resolves.toEqual({ word: 'yes' });
    await expect(parseInput(slow, { value: { word: 'no' } })).rejects.toBeInstanceOf(RequestError);
  });
});

describe('the router built from the table', () => {
  it('has exactly one procedure per operation, of its kind', async () => {
    const dice = createCallerFactory(appRouter)(context());
    const names = Object.keys(OPERATIONS);
    expect(names).toEqual([
      'roll',
      'rollWith',
      'batch',
      'createTable',
      'tableRolls',
      'tableReport',
      'storedRoll',
      'verifyReceipt',
      'jwks',
      'health',
      'stats',
      'statsWith',
      'statsBatch',
    ]);
    // Public surface only: every operation answers through the caller, an unknown name does not.
    expect(typeof (await dice.health()).version).toBe('string');
    const unknown = (dice as unknown as Record<string, () => Promise<unknown>>).nope!;
    const failure = await unknown().catch((error: unknown) => error);
    expect((failure as TRPCError).code).toBe('NOT_FOUND');
  });

  it('an unexpected exception in an operation is an internal_error with the generic message', async () => {
    const cause = new TypeError("Cannot read properties of undefined (reading 'sides')");
    const broken = routerOf({
      ...OPERATIONS,
      roll: {
        ...OPERATIONS.roll,
        run: () => {
          throw cause;
        },
      },
    });
    const failure = await createCallerFactory(broken)(context())
      .roll({ formula: '1d6' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect((failure as TRPCError).code).toBe('INTERNAL_SERVER_ERROR');
    expect((failure as TRPCError).cause).toBe(cause);
    expect(fromTrpcError(failure as TRPCError)).toBeUndefined();
  });
});
