// The zod schemas of /v1/stats (docs/stats.md): its inputs (the GET query, the POST body, the
// batch body), and its answers, declared once in @fairdice/client/schemas and named here with
// examples that are real answers of the engine (src/api/stats-examples.ts). Built on the roll
// schemas, so a stats request accepts what a roll does, except the receipt and table switches
// (nothing is rolled, so nothing is signed), plus the explosion depth to list, the totals to
// reach (`targets`) and an opposing roll (`versus`).
import {
  AdvantageStateSchema,
  StatsBatchResponseSchema as StatsBatchResponseShape,
  StatsResponseSchema as StatsResponseShape,
} from '@fairdice/client/schemas';
import { STATS_BATCH_MAX, STATS_TARGETS_MAX } from '@fairdice/client/types';
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { RollQuerySchema, RollRequestSchema } from './schemas.js';
import { STATS_EXAMPLES } from './stats-examples.js';

const depthDescription =
  'Explosion extras listed per die (0 to 100). Default: the least depth at which the mass left beyond is below 1e-30; 100 is the whole distribution.';

const targetsDescription = `Up to ${STATS_TARGETS_MAX} totals: the answer's \`targets\` gives the exact P(total >= t) and P(total <= t) of each, in the order asked.`;

/** GET /v1/stats: the roll query plus `depth`, `targets` and `versus`, which arrive as text in a URL. */
export const StatsQuerySchema = RollQuerySchema.omit({ receipt: true })
  .extend({
    depth: z.coerce
      .number<number>()
      .int()
      .min(0)
      .max(LIMITS.explodeCap)
      .optional()
      .meta({ description: depthDescription, example: 3 }),
    targets: z
      .string()
      // Read by the invalid_request message: "targets must be up to 20 whole numbers, comma-separated.".
      .regex(new RegExp(`^-?[0-9]{1,15}(,-?[0-9]{1,15}){0,${STATS_TARGETS_MAX - 1}}$`), {
        error: `must be up to ${STATS_TARGETS_MAX} whole numbers, comma-separated (15,20).`,
      })
      .optional()
      .meta({ description: `${targetsDescription} Comma-separated.`, example: '15,20' }),
    versus: z.string().min(LIMITS.formulaMinLength).max(LIMITS.formulaMaxLength).optional().meta({
      description:
        "An opposing formula B: the answer's `versus` gives the exact P(A > B), P(A = B), P(A < B) and the distribution of A - B. Send `+` as `%2B`.",
      example: '1d20+5',
    }),
    versusAdvantage: AdvantageStateSchema.optional().meta({
      description: 'The advantage state of `versus`.',
    }),
  })
  .meta({
    description:
      'A formula, an optional advantage state, an optional explosion depth, totals to reach and an opposing formula.',
  });

/** The StatsRequest the engine reads from a GET query. */
export function statsQueryRequest(query: z.output<typeof StatsQuerySchema>) {
  const { targets, versus, versusAdvantage, ...rest } = query;
  return {
    ...rest,
    ...(targets === undefined ? {} : { targets: targets.split(',').map(Number) }),
    ...(versus === undefined ? {} : { versus: { formula: versus, advantage: versusAdvantage } }),
  };
}

/** The roll a stats request describes, and its opponent: a RollRequest without its switches (receipt, table, by, note, idempotencyKey). */
const StatsRollSchema = RollRequestSchema.omit({
  receipt: true,
  table: true,
  by: true,
  note: true,
  idempotencyKey: true,
});

/** POST /v1/stats: a RollRequest plus `depth`, `targets` and `versus`. */
export const StatsRequestSchema = StatsRollSchema.extend({
  depth: z
    .number()
    .int()
    .min(0)
    .max(LIMITS.explodeCap)
    .optional()
    .meta({ description: depthDescription, example: 3 }),
  targets: z
    .array(z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER))
    .max(STATS_TARGETS_MAX)
    .optional()
    .meta({ description: targetsDescription, example: [15, 20] }),
  versus: StatsRollSchema.optional().meta({
    description:
      "An opposing roll B, with its own advantage, bonuses and tags: the answer's `versus` gives the exact P(A > B), P(A = B), P(A < B) and the distribution of A - B.",
    example: { formula: '1d20+5' },
  }),
}).meta({
  id: 'StatsRequest',
  description:
    'A RollRequest whose distribution is asked for, optionally the explosion depth to list, totals to reach and an opposing roll.',
  example: { formula: '1d20+7', targets: [15, 20], versus: { formula: '1d20+5' } },
});

/** POST /v1/stats/batch: several stats requests, answered in order under one work budget. */
export const StatsBatchRequestSchema = z
  .strictObject({
    requests: z
      .array(StatsRequestSchema)
      .min(1)
      .max(STATS_BATCH_MAX)
      .meta({
        description: `1 to ${STATS_BATCH_MAX} stats requests, answered in order under one work budget.`,
      }),
  })
  .meta({
    id: 'StatsBatchRequest',
    description: 'Several formulas whose distributions are compared side by side.',
    example: { requests: [{ formula: '2d6+3' }, { formula: '1d12+4' }] },
  });

export const StatsResponseSchema = StatsResponseShape.meta({
  id: 'StatsResponse',
  description: 'The exact distribution of the total /v1/roll returns for the same request.',
  example: STATS_EXAMPLES.response,
});

export const StatsBatchResponseSchema = StatsBatchResponseShape.meta({
  id: 'StatsBatchResponse',
  description: 'The exact answers of several requests, in the order asked.',
  example: STATS_EXAMPLES.batch,
});
