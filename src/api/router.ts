// The procedures of fairdice. Each REST procedure's `meta.openapi` is the single declaration of
// its path: the REST bridge and the OpenAPI document are both derived from it.
import { LIMITS } from '../limits.js';
import { VERSION } from '../version.js';
import { CODES_OF_STATUS } from './errors.js';
import { rollBatch, rollOne } from './roll.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  ERROR_DESCRIPTIONS,
  HealthResponseSchema,
  RollQuerySchema,
  RollRequestSchema,
  RollResponseSchema,
} from './schemas.js';
import { publicProcedure, router } from './trpc.js';

/** The error statuses of every rolling operation (docs/api.md "Errors"). */
const rollErrors = {
  400: `${ERROR_DESCRIPTIONS[400]} (${CODES_OF_STATUS[400].join(', ')}).`,
  413: `${ERROR_DESCRIPTIONS[413]} (${LIMITS.bodyBytes} bytes by default).`,
  429: ERROR_DESCRIPTIONS[429],
  500: ERROR_DESCRIPTIONS[500],
};

export const appRouter = router({
  roll: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/roll',
        protect: false,
        tags: ['dice'],
        summary: 'Roll a formula from the query string',
        description:
          'Rolls `formula` (send `+` as `%2B` in a URL) with an optional `advantage`. ' +
          'Takes no bonuses or tags; use POST /v1/roll for those.',
        errorResponses: rollErrors,
      },
    })
    .input(RollQuerySchema)
    .output(RollResponseSchema)
    .query(({ input, ctx }) => rollOne(input, ctx)),

  rollWith: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/roll',
        protect: false,
        tags: ['dice'],
        summary: 'Roll a formula with bonuses and tags',
        description:
          'Rolls a full RollRequest: formula, advantage, bonuses and the tags the formula may end with.',
        errorResponses: rollErrors,
      },
    })
    .input(RollRequestSchema)
    .output(RollResponseSchema)
    .mutation(({ input, ctx }) => rollOne(input, ctx)),

  batch: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/roll/batch',
        protect: false,
        tags: ['dice'],
        summary: 'Roll several formulas at once',
        description: `Rolls up to ${LIMITS.rollsPerBatch} requests in order. The dice of all rolls count against one batch budget (${LIMITS.dicePerBatch} by default); over it the whole batch is refused with too_many_dice.`,
        errorResponses: rollErrors,
      },
    })
    .input(BatchRollRequestSchema)
    .output(BatchRollResponseSchema)
    .mutation(({ input, ctx }) => rollBatch(input.rolls, ctx)),

  health: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/health',
        protect: false,
        tags: ['service'],
        summary: 'Liveness',
        description: 'Answers while the service is up. Rolls nothing.',
        errorResponses: { 429: ERROR_DESCRIPTIONS[429] },
      },
    })
    .output(HealthResponseSchema)
    .query(() => ({ status: 'ok' as const, version: VERSION })),
});

export type AppRouter = typeof appRouter;
