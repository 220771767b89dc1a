// The answer of /v1/stats (docs/stats.md), declared once: the exact distribution of a roll's
// total.
import { z } from 'zod';
import { AdvantageStateSchema, wholeNumber } from './roll.js';

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

const statsExample = {
  formula: '4d6kh3',
  advantageState: 'normal',
  min: 3,
  max: 18,
  mean: 12.244598765432098,
  meanExact: '15869/1296',
  variance: 8.104523295800945,
  varianceExact: '13612487/1679616',
  sd: 2.8468444453115005,
  listing: 'full',
  denominator: '1296',
  outcomes: [outcomeExample],
  percentiles: { 5: 7, 25: 10, 50: 12, 75: 14, 95: 17 },
  truncation: null,
} as const;

const statsResponse = z
  .strictObject({
    formula: z.string().meta({ description: 'The formula, whitespace trimmed.' }),
    advantageState: AdvantageStateSchema,
    min: wholeNumber().meta({
      description: 'The least total listed (of the whole distribution for a summary).',
    }),
    max: wholeNumber().meta({
      description: 'The greatest total listed (of the whole distribution for a summary).',
    }),
    mean: z.number().meta({ description: 'The nearest double of `meanExact`.' }),
    meanExact: fractionText('The exact mean, n/d in lowest terms.'),
    variance: z.number().meta({ description: 'The nearest double of `varianceExact`.' }),
    varianceExact: fractionText('The exact variance, n/d in lowest terms.'),
    sd: z.number().meta({ description: 'The square root of `variance`.' }),
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
    percentiles: z
      .strictObject(percentileShape)
      .nullable()
      .meta({ description: 'For q = 5, 25, 50, 75, 95: the least total t with P(total <= t) >= q%.' }),
    truncation: z
      .strictObject({
        depth: z.number().int().meta({ description: 'Explosion extras listed per die.' }),
        tailProbability: z.number().meta({ description: 'The nearest double of `tailExact`.' }),
        tailExact: fractionText('The exact mass of the rolls not listed (a counted chain went deeper).'),
      })
      .nullable()
      .meta({ description: 'null, or how explosion chains were cut: never folded into an outcome.' }),
  })
  .meta({
    id: 'StatsResponse',
    description: 'The exact distribution of the total /v1/roll returns for the same request.',
    example: statsExample,
  });

/** The answer of `stats` and `statsWith`: the exact distribution of the roll's total. */
export interface StatsResponse extends z.output<typeof statsResponse> {}
export const StatsResponseSchema: z.ZodType<StatsResponse, StatsResponse> = statsResponse;
