// The answers of the roll operations, declared once: a roll's result and, when one was asked
// for, its receipt; a batch of them.
import { z } from 'zod';
import { ReceiptSchema } from './receipt.js';
import { ROLL_EXAMPLE, rollFields } from './roll.js';

/** A replay of an idempotent request's first answer, as tRPC and MCP say it (REST: a header). */
export const replayedField = () =>
  z.literal(true).optional().meta({
    description:
      'Over tRPC and MCP only: this is the first answer to the same idempotencyKey given again; nothing was rolled (docs/api.md#idempotency). REST says so with the `Idempotent-Replayed: true` header and answers the first body unchanged.',
  });

const rollResponse = z
  .strictObject({
    ...rollFields,
    receipt: ReceiptSchema.optional().meta({
      description: 'Present when a receipt was asked for, or at a table.',
    }),
    replayed: replayedField(),
  })
  .meta({
    id: 'RollResponse',
    description: 'Every die rolled, which ones counted, and the total.',
    example: ROLL_EXAMPLE,
  });

/** Every die rolled, which ones counted, and the total; the receipt when one was asked for. */
export interface RollResponse extends z.output<typeof rollResponse> {}
export const RollResponseSchema: z.ZodType<RollResponse, RollResponse> = rollResponse;

const batchRollResponse = z
  .strictObject({
    rolls: z
      .array(RollResponseSchema)
      .meta({ description: 'One result per requested roll, in request order.' }),
    replayed: replayedField(),
  })
  .meta({
    id: 'BatchRollResponse',
    description: 'The results of a batch, in request order.',
    example: { rolls: [ROLL_EXAMPLE] },
  });

/** The results of a batch, in request order. */
export interface BatchRollResponse extends z.output<typeof batchRollResponse> {}
export const BatchRollResponseSchema: z.ZodType<BatchRollResponse, BatchRollResponse> = batchRollResponse;
