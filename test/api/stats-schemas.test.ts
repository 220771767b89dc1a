import {
  StatsResponseSchema as DeclaredStatsResponseSchema,
  PERCENTILES,
  type StatsOutcome,
  type StatsResponse,
} from '@fairdice/client/schemas';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { STATS_EXAMPLE_REQUESTS } from '../../src/api/stats-examples.js';
import {
  StatsBatchRequestSchema,
  StatsBatchResponseSchema,
  StatsQuerySchema,
  StatsRequestSchema,
  StatsResponseSchema,
  statsQueryRequest,
} from '../../src/api/stats-schemas.js';
import {
  distribution,
  distributions,
  PERCENTILES as ENGINE_PERCENTILES,
  type StatsOutcome as EngineStatsOutcome,
  type StatsResponse as EngineStatsResponse,
} from '../../src/stats/distribution.js';

describe('stats schemas', () => {
  it.each(['4d6kh3', '1d6!', '1000d6', '1d4294967296', '2d20adv-1d4x3+2'])(
    'a real answer for %s passes',
    (formula) => {
      const answer = distribution({ formula });
      expect(StatsResponseSchema.parse(answer)).toEqual(answer);
    },
  );

  it('the examples are complete real answers of the engine, valid against their schemas', () => {
    const example = StatsResponseSchema.meta()?.example;
    expect(example).toEqual(distribution(STATS_EXAMPLE_REQUESTS.response));
    expect(StatsResponseSchema.parse(example)).toEqual(example);
    const batch = StatsBatchResponseSchema.meta()?.example;
    expect(batch).toEqual(distributions(STATS_EXAMPLE_REQUESTS.batch));
    expect(StatsBatchResponseSchema.parse(batch)).toEqual(batch);
    // Complete: the counts add up to the denominator, and every question's field is there.
    const answer = example as StatsResponse;
    expect(answer.outcomes.reduce((sum, o) => sum + BigInt(o.count!), 0n)).toBe(BigInt(answer.denominator!));
    expect(answer.targets).toHaveLength(2);
    expect(answer.versus!.difference.outcomes).toHaveLength(39);
    // The request examples are what these answers answer.
    expect(StatsRequestSchema.meta()?.example).toEqual(STATS_EXAMPLE_REQUESTS.response);
    expect(StatsBatchRequestSchema.meta()?.example).toEqual({ requests: STATS_EXAMPLE_REQUESTS.batch });
  });

  it('targets and versus: comma-separated text and a formula in a query, a list and a RollRequest in a body', () => {
    const query = StatsQuerySchema.parse({
      formula: '1d20+7',
      targets: '15,-2',
      versus: '1d20+5',
      versusAdvantage: 'advantage',
    });
    expect(statsQueryRequest(query)).toEqual({
      formula: '1d20+7',
      targets: [15, -2],
      versus: { formula: '1d20+5', advantage: 'advantage' },
    });
    expect(StatsQuerySchema.safeParse({ formula: '1d6', targets: '1,,2' }).success).toBe(false);
    expect(
      StatsQuerySchema.safeParse({ formula: '1d6', targets: Array(21).fill('1').join(',') }).success,
    ).toBe(false);
    expect(StatsRequestSchema.safeParse({ formula: '1d6', targets: Array(21).fill(1) }).success).toBe(false);
    expect(StatsRequestSchema.safeParse({ formula: '1d6', targets: [1.5] }).success).toBe(false);
    expect(
      StatsRequestSchema.safeParse({
        formula: '1d6',
        versus: { formula: '1d8 fire', tags: ['fire'], bonuses: [1] },
      }).success,
    ).toBe(true);
    expect(
      StatsRequestSchema.safeParse({ formula: '1d6', versus: { formula: '1d8', receipt: true } }).success,
    ).toBe(false);
    expect(StatsBatchRequestSchema.safeParse({ requests: [] }).success).toBe(false);
    expect(StatsBatchRequestSchema.safeParse({ requests: Array(6).fill({ formula: '1d6' }) }).success).toBe(
      false,
    );
  });

  it('depth: text in a query, a number in a body, 0..100 both', () => {
    expect(StatsQuerySchema.parse({ formula: '1d6!', depth: '3' })).toEqual({ formula: '1d6!', depth: 3 });
    expect(StatsQuerySchema.safeParse({ formula: '1d6!', depth: '101' }).success).toBe(false);
    expect(StatsRequestSchema.safeParse({ formula: '1d6!', depth: '3' }).success).toBe(false);
    expect(StatsRequestSchema.safeParse({ formula: '1d6!', depth: -1 }).success).toBe(false);
    expect(StatsRequestSchema.safeParse({ formula: '1d6!', depth: 100, bonuses: [1] }).success).toBe(true);
    expect(StatsRequestSchema.safeParse({ formula: '1d6!', extra: 1 }).success).toBe(false);
  });

  it('is the one declaration of the answer, which the engine answers in', () => {
    // The service names the declared schema and adds its example: the same fields, the same schemas.
    const fields = (schema: unknown) => (schema as { shape: Record<string, unknown> }).shape;
    expect(Object.keys(fields(StatsResponseSchema))).toEqual(
      Object.keys(fields(DeclaredStatsResponseSchema)),
    );
    for (const [key, field] of Object.entries(fields(StatsResponseSchema)))
      expect(field).toBe(fields(DeclaredStatsResponseSchema)[key]);
    // The engine still writes its own types (src/stats/distribution.ts): they must be the declared ones.
    expectTypeOf<EngineStatsResponse>().toExtend<StatsResponse>();
    expectTypeOf<StatsResponse>().toExtend<EngineStatsResponse>();
    expectTypeOf<EngineStatsOutcome>().toExtend<StatsOutcome>();
    expectTypeOf<StatsOutcome>().toExtend<EngineStatsOutcome>();
    expect(ENGINE_PERCENTILES).toEqual(PERCENTILES);
  });
});
