import {
  StatsResponseSchema as DeclaredStatsResponseSchema,
  PERCENTILES,
  type StatsOutcome,
  type StatsResponse,
} from '@fairdice/client/schemas';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { StatsQuerySchema, StatsRequestSchema, StatsResponseSchema } from '../../src/api/stats-schemas.js';
import {
  distribution,
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

  it('the documented example is a real answer (cut to its first outcome)', () => {
    const answer = distribution({ formula: '4d6kh3' });
    expect(StatsResponseSchema.meta()?.example).toEqual({ ...answer, outcomes: answer.outcomes.slice(0, 1) });
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
    expect(StatsResponseSchema).toBe(DeclaredStatsResponseSchema);
    // The engine still writes its own types (src/stats/distribution.ts): they must be the declared ones.
    expectTypeOf<EngineStatsResponse>().toExtend<StatsResponse>();
    expectTypeOf<StatsResponse>().toExtend<EngineStatsResponse>();
    expectTypeOf<EngineStatsOutcome>().toExtend<StatsOutcome>();
    expectTypeOf<StatsOutcome>().toExtend<EngineStatsOutcome>();
    expect(ENGINE_PERCENTILES).toEqual(PERCENTILES);
  });
});
