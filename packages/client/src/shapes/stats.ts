// The answer of /v1/stats (docs/stats.md), declared once: the exact distribution of a roll's
// total.
import { z } from 'zod';
import { AdvantageStateSchema, wholeNumber } from './roll.js';

export { STATS_BATCH_MAX, STATS_TARGETS_MAX } from '../constants.js';

/** The percentiles a StatsResponse lists, in percent. */
export const PERCENTILES = [5, 25, 50, 75, 95] as const;

const outcomeExample = {
  total: 3,
  count: '1',
  probability: 0.0007716049382716049,
  atLeast: 1,
  atMost: 0.0007716049382716049,
} as const;

const statsOutcome = z
  .strictObject({
    total: wholeNumber().meta({ description: 'A total the roll can return.' }),
    count: z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .optional()
      .meta({
        description:
          'Ways to get it over `denominator`, as a decimal string; absent when counts are omitted.',
      }),
    probability: z.number().meta({ description: 'P(total = t), the nearest double of the exact value.' }),
    atLeast: z.number().meta({ description: 'P(total >= t), the nearest double of the exact value.' }),
    atMost: z.number().meta({ description: 'P(total <= t), the nearest double of the exact value.' }),
  })
  .meta({ id: 'StatsOutcome', description: 'One total and its exact probability.', example: outcomeExample });

/** One possible total and its exact probability (docs/stats.md). */
export interface StatsOutcome extends z.output<typeof statsOutcome> {}
export const StatsOutcomeSchema: z.ZodType<StatsOutcome, StatsOutcome> = statsOutcome;

const percentileShape = Object.fromEntries(PERCENTILES.map((q) => [String(q), wholeNumber()])) as Record<
  `${(typeof PERCENTILES)[number]}`,
  z.ZodNumber
>;

const fractionText = (description: string) =>
  z
    .string()
    .regex(/^-?[0-9]+\/[1-9][0-9]*$/)
    .meta({ description });

const truncationShape = z
  .strictObject({
    depth: z.number().int().meta({ description: 'Explosion extras listed per die.' }),
    tailProbability: z.number().meta({ description: 'The nearest double of `tailExact`.' }),
    tailExact: fractionText('The exact mass of the rolls not listed (a counted chain went deeper).'),
  })
  .nullable()
  .meta({ description: 'null, or how explosion chains were cut: never folded into an outcome.' });

/** The fields of one exact distribution: a formula's total, or the difference of two. */
const distributionFields = {
  min: wholeNumber().meta({
    description: 'The least total listed (of the whole distribution for a summary).',
  }),
  max: wholeNumber().meta({
    description: 'The greatest total listed (of the whole distribution for a summary).',
  }),
  mean: z.number().meta({ description: 'The nearest double of `meanExact`.' }),
  meanExact: fractionText(
    'The exact mean, n/d in lowest terms (of the whole roll unless `moments` is `listed`).',
  ),
  variance: z.number().meta({ description: 'The nearest double of `varianceExact`.' }),
  varianceExact: fractionText('The exact variance, n/d in lowest terms (as `meanExact`).'),
  sd: z.number().meta({ description: 'The square root of `variance`.' }),
  moments: z.enum(['roll', 'listed']).meta({
    description:
      "`roll`: mean, variance and sd are those of the whole roll, every explosion chain to its cap of 100, whatever `depth` lists; `listed`: those of the listed outcomes only (the whole roll's would cost more than the budget; see docs/stats.md).",
  }),
  listing: z.enum(['full', 'probabilities', 'summary']).meta({
    description:
      '`full`: counts listed; `probabilities`: counts and denominator omitted (over 256 KB); `summary`: too many totals to list, no outcomes.',
  }),
  denominator: z
    .string()
    .regex(/^[1-9][0-9]*$/)
    .nullable()
    .meta({ description: 'The one denominator of every count; null unless `listing` is `full`.' }),
  outcomes: z.array(StatsOutcomeSchema).meta({ description: 'Every possible total, lowest first.' }),
  percentiles: z.strictObject(percentileShape).nullable().meta({
    description:
      'For q = 5, 25, 50, 75, 95: the least listed total t with P(total <= t) >= q% among the listed outcomes.',
  }),
  truncation: truncationShape,
};

const statsDistribution = z.strictObject(distributionFields).meta({
  id: 'StatsDistribution',
  description:
    'An exact distribution: every listed total with its count over one denominator, and its moments.',
});

/** An exact distribution (the difference of an opposed roll, docs/stats.md#opposed-rolls-versus). */
export interface StatsDistribution extends z.output<typeof statsDistribution> {}
export const StatsDistributionSchema: z.ZodType<StatsDistribution, StatsDistribution> = statsDistribution;

const statsTarget = z
  .strictObject({
    total: wholeNumber().meta({ description: 'The total asked for.' }),
    atLeast: z.number().meta({ description: 'P(total >= it), the nearest double of `atLeastExact`.' }),
    atLeastExact: fractionText('P(total >= it), exactly, in lowest terms.'),
    atMost: z.number().meta({ description: 'P(total <= it), the nearest double of `atMostExact`.' }),
    atMostExact: fractionText('P(total <= it), exactly, in lowest terms.'),
  })
  .meta({
    id: 'StatsTarget',
    description: 'The exact chance of reaching a total, and of staying at or under it.',
  });

/** One asked total with its exact P(total >= t) and P(total <= t) (docs/stats.md#targets). */
export interface StatsTarget extends z.output<typeof statsTarget> {}
export const StatsTargetSchema: z.ZodType<StatsTarget, StatsTarget> = statsTarget;

const statsVersus = z
  .strictObject({
    formula: z.string().meta({ description: 'The opposing formula, whitespace trimmed.' }),
    advantageState: AdvantageStateSchema,
    greater: z.number().meta({ description: 'P(A > B), the nearest double of `greaterExact`.' }),
    greaterExact: fractionText("P(A > B) exactly: this request's total beats the opposing one."),
    equal: z.number().meta({ description: 'P(A = B), the nearest double of `equalExact`.' }),
    equalExact: fractionText('P(A = B) exactly: a tie.'),
    less: z.number().meta({ description: 'P(A < B), the nearest double of `lessExact`.' }),
    lessExact: fractionText('P(A < B) exactly: the opposing total is higher.'),
    difference: StatsDistributionSchema.meta({ description: 'The exact distribution of A - B.' }),
  })
  .meta({
    id: 'StatsVersus',
    description:
      'An opposed roll: the chances that this total (A) is above, equal to or below the opposing one (B), and the distribution of A - B.',
  });

/** The answer of an opposed roll (docs/stats.md#opposed-rolls-versus). */
export interface StatsVersus extends z.output<typeof statsVersus> {}
export const StatsVersusSchema: z.ZodType<StatsVersus, StatsVersus> = statsVersus;

const statsResponse = z
  .strictObject({
    formula: z.string().meta({ description: 'The formula, whitespace trimmed.' }),
    advantageState: AdvantageStateSchema,
    ...distributionFields,
    targets: z.array(StatsTargetSchema).optional().meta({
      description: 'Present when `targets` was asked: one entry per total asked, in the order asked.',
    }),
    versus: StatsVersusSchema.optional().meta({ description: 'Present when `versus` was asked.' }),
  })
  // No component id here: the service names it where it adds an example from its own engine.
  .meta({ description: 'The exact distribution of the total /v1/roll returns for the same request.' });

/** The answer of `stats` and `statsWith`: the exact distribution of the roll's total. */
export interface StatsResponse extends z.output<typeof statsResponse> {}
export const StatsResponseSchema: z.ZodType<StatsResponse, StatsResponse> = statsResponse;

const statsBatchResponse = z
  .strictObject({
    results: z
      .array(StatsResponseSchema)
      .meta({ description: 'One answer per request, in the order asked.' }),
  })
  // Named by the service, with an example from its own engine (as StatsResponse).
  .meta({ description: 'The exact answers of several requests, in order.' });

/** The answer of `statsBatch` (POST /v1/stats/batch): one StatsResponse per request. */
export interface StatsBatchResponse extends z.output<typeof statsBatchResponse> {}
export const StatsBatchResponseSchema: z.ZodType<StatsBatchResponse, StatsBatchResponse> = statsBatchResponse;
