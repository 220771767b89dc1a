// The zod schemas of /v1/stats (docs/stats.md): its two inputs (the GET query, the POST body),
// and its answer, declared once in @fairdice/client/schemas. Built on the roll schemas, so a
// stats request accepts what a roll does, except the receipt and table switches (nothing is
// rolled, so nothing is signed), plus the explosion depth to list.
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { RollQuerySchema, RollRequestSchema } from './schemas.js';

export { StatsResponseSchema } from '@fairdice/client/schemas';

const depthDescription =
  'Explosion extras listed per die (0 to 100). Default: the least depth at which the mass left beyond is below 1e-30; 100 is the whole distribution.';

/** GET /v1/stats: the roll query plus `depth`, which arrives as text in a URL. */
export const StatsQuerySchema = RollQuerySchema.omit({ receipt: true })
  .extend({
    depth: z.coerce
      .number<number>()
      .int()
      .min(0)
      .max(LIMITS.explodeCap)
      .optional()
      .meta({ description: depthDescription, example: 3 }),
  })
  .meta({ description: 'A formula, an optional advantage state and an optional explosion depth.' });

/** POST /v1/stats: a RollRequest plus `depth`. */
export const StatsRequestSchema = RollRequestSchema.omit({
  receipt: true,
  table: true,
  by: true,
  note: true,
  idempotencyKey: true,
})
  .extend({
    depth: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.explodeCap)
      .optional()
      .meta({ description: depthDescription, example: 3 }),
  })
  .meta({
    id: 'StatsRequest',
    description: 'A RollRequest whose distribution is asked for, and optionally the explosion depth to list.',
    example: { formula: '1d8+3 fire', bonuses: [2, '1d4!'], tags: ['fire'] },
  });
