// The procedures called directly (no HTTP): the caller the bridge uses, the tRPC error shape
// the typed client sees, and the safe messages built from schema failures.
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { apiErrorOf, describePath, isApiError, STATUS_OF_CODE } from '../../src/api/errors.js';
import { appRouter } from '../../src/api/router.js';
import { RollRequestSchema } from '../../src/api/schemas.js';
import { createCallerFactory, type DiceContext } from '../../src/api/trpc.js';
import { FormulaError, RandomSourceError, TooManyDiceError } from '../../src/errors.js';
import { maxSource } from '../helpers/sources.js';

const warnings: string[] = [];
const context = (overrides: Partial<DiceContext> = {}): DiceContext => ({
  log: { warn: (_details, message) => warnings.push(message) },
  random: maxSource(),
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  ...overrides,
});
const caller = createCallerFactory(appRouter);

describe('the procedures through a caller', () => {
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
    expect(apiErrorOf(failure)).toMatchObject({ status: 400, code: 'invalid_formula' });

    const broke = await caller(context({ random: { die: () => Number.NaN } }))
      .roll({ formula: '1d6' })
      .catch((error: unknown) => error);
    expect(apiErrorOf(broke)).toMatchObject({ status: 500, code: 'internal_error' });
  });

  it('the batch budget is checked before any die is thrown', async () => {
    let thrown = 0;
    const counting = context({ dicePerBatch: 5, random: { die: () => ++thrown && 1 } });
    const failure = await caller(counting)
      .batch({ rolls: [{ formula: '3d6' }, { formula: '3d6' }] })
      .catch((error: unknown) => error);
    expect(apiErrorOf(failure)).toMatchObject({ code: 'too_many_dice' });
    expect(thrown).toBe(0);
  });
});

describe('the error vocabulary', () => {
  it('maps each engine error to its status', () => {
    expect(apiErrorOf(new FormulaError('Expected a number', 'formula', 3))).toMatchObject({ status: 400 });
    expect(apiErrorOf(new TooManyDiceError(10, 11))).toMatchObject({ status: 400, code: 'too_many_dice' });
    expect(apiErrorOf(new RandomSourceError())).toMatchObject({ status: 500, code: 'internal_error' });
    expect(apiErrorOf(new Error('boom'))).toBeUndefined();
    expect(apiErrorOf(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'x' }))).toBeUndefined();
    for (const [code, status] of Object.entries(STATUS_OF_CODE)) {
      expect(isApiError({ status, code, message: 'm' })).toBe(true);
      expect(isApiError({ status: status + 1, code, message: 'm' })).toBe(false);
    }
  });

  it('describes paths without quoting unsafe keys', () => {
    expect(describePath(['rolls', 3, 'formula'])).toBe('rolls[3].formula');
    expect(describePath(['<b>'])).toBe('(a field)');
    expect(describePath(['tags', 0, 'x y'])).toBe('tags[0].(a field)');
  });

  it('counts the further problems of a schema failure', () => {
    const result = RollRequestSchema.safeParse({ formula: '', tags: ['A'], extra: 1 });
    expect(result.success).toBe(false);
    const message = apiErrorOf(result.error, { value: {} })?.message ?? '';
    expect(message).toMatch(/more problems? in this request/);
  });
});
