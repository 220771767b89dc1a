// The procedures of fairdice. Each REST procedure's `meta.openapi` is the single declaration of
// its path: the REST bridge and the OpenAPI document are both derived from it.
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { VERSION } from '../version.js';
import { CODES_OF_STATUS } from './errors.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  ERROR_DESCRIPTIONS,
  HealthResponseSchema,
  ReceiptSchema,
  RollQuerySchema,
  RollRequestSchema,
  RollResponseSchema,
} from './schemas.js';
import {
  createTable,
  publishedKeys,
  rollBatchMaybeSigned,
  rollOneMaybeSigned,
  storedRoll,
  tableRolls,
  verify,
} from './tables.js';
import { publicProcedure, router } from './trpc.js';
import {
  JwksSchema,
  RollIdSchema,
  TableCreatedSchema,
  TableRollsQuerySchema,
  TableRollsSchema,
  VerifyRequestSchema,
  VerifyResultSchema,
} from './trust-schemas.js';

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
    .query(({ input, ctx }) => rollOneMaybeSigned(input, ctx)),

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
    .mutation(({ input, ctx }) => rollOneMaybeSigned(input, ctx)),

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
    .mutation(({ input, ctx }) => rollBatchMaybeSigned(input.rolls, ctx)),

  createTable: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/tables',
        protect: false,
        tags: ['tables'],
        summary: 'Create a table',
        description:
          'Creates a shared dice tray. Every roll made with `"table": "<id>"` is signed and appended to its log. ' +
          'Whoever holds the id may roll and read there.',
        errorResponses: {
          429: 'Too many requests, or too many tables created from this address this hour.',
          503: 'The table store is unavailable.',
        },
      },
    })
    .input(z.strictObject({}).optional())
    .output(TableCreatedSchema)
    .mutation(({ ctx }) => createTable(ctx)),

  tableRolls: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/tables/{id}/rolls',
        protect: false,
        tags: ['tables'],
        summary: "A table's log",
        description: `The entries with a sequence number above \`after\`, in order, at most ${LIMITS.tableRollsPerPage} at a time.`,
        errorResponses: {
          400: ERROR_DESCRIPTIONS[400],
          404: 'No such table.',
          429: ERROR_DESCRIPTIONS[429],
          503: 'The table store is unavailable.',
        },
      },
    })
    .input(TableRollsQuerySchema)
    .output(TableRollsSchema)
    .query(({ input, ctx }) => tableRolls(input, ctx, LIMITS.tableRollsPerPage)),

  storedRoll: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/rolls/{rollId}',
        protect: false,
        tags: ['tables'],
        summary: 'A stored receipt',
        description: 'Any receipt the service made and still keeps (at a table or not), by its id.',
        errorResponses: {
          400: ERROR_DESCRIPTIONS[400],
          404: 'No such receipt.',
          429: ERROR_DESCRIPTIONS[429],
          503: 'The table store is unavailable.',
        },
      },
    })
    .input(RollIdSchema)
    .output(ReceiptSchema)
    .query(({ input, ctx }) => storedRoll(input, ctx)),

  verifyReceipt: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/receipts/verify',
        protect: false,
        tags: ['tables'],
        summary: 'Verify a receipt',
        description:
          'Checks a receipt against the keys of /.well-known/jwks.json, for callers that cannot verify Ed25519 themselves. ' +
          'An invalid receipt is a 200 with `valid: false` and the reason.',
        errorResponses: {
          400: ERROR_DESCRIPTIONS[400],
          413: ERROR_DESCRIPTIONS[413],
          429: ERROR_DESCRIPTIONS[429],
        },
      },
    })
    .input(VerifyRequestSchema)
    .output(VerifyResultSchema)
    .mutation(({ input, ctx }) => verify(input, ctx)),

  jwks: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/.well-known/jwks.json',
        protect: false,
        tags: ['tables'],
        summary: 'The public keys that verify receipts',
        description:
          "JWKS (RFC 7517): the current Ed25519 key first, then retired ones; each `kid` is the key's RFC 7638 thumbprint.",
        errorResponses: { 429: ERROR_DESCRIPTIONS[429] },
      },
    })
    .output(JwksSchema)
    .query(({ ctx }) => publishedKeys(ctx)),

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
