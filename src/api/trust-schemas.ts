// The zod schemas of the receipt and table operations (docs/trust.md): their inputs, and their
// answers, declared once in @fairdice/client/schemas.
import { TableCreatedSchema as TableCreatedShape, TableIdSchema } from '@fairdice/client/schemas';
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { UUIDV7_PATTERN } from '../trust/uuid.js';
import { IdempotencyKeySchema, RollItemSchema } from './schemas.js';

export {
  JwksSchema,
  RevealEntrySchema,
  TableReportSchema,
  TableRollResponseSchema,
  TableRollsSchema,
  VerifyResultSchema,
} from '@fairdice/client/schemas';

/** The answer of POST /v1/tables, with this service's default limits in its example. */
export const TableCreatedSchema = TableCreatedShape.meta({
  id: 'TableCreated',
  example: {
    id: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s',
    createdAt: '2026-11-23T20:00:00.000Z',
    maxEntries: LIMITS.tableMaxEntries,
    retentionDays: LIMITS.tableRetentionDays,
    links: {
      rolls: '/v1/tables/q3Vb0x7TfZ2kWn9YcLr4Aa8s/rolls',
      events: '/v1/tables/q3Vb0x7TfZ2kWn9YcLr4Aa8s/events',
    },
  },
});

export const TableRollsQuerySchema = z.strictObject({
  id: TableIdSchema,
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'List entries with a sequence number above this (default 0: from the first).' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIMITS.tableRollsPerPage)
    .optional()
    .meta({ description: `At most this many entries (default and maximum ${LIMITS.tableRollsPerPage}).` }),
});

/** The table a luck report reads (docs/trust.md#how-lucky-the-night-was). */
export const TableReportQuerySchema = z.strictObject({ id: TableIdSchema });
/** A roll at a table (POST /v1/tables/{id}/roll): a RollRequest whose table is the path's, maybe sealed. */
export const TableRollRequestSchema = RollItemSchema.omit({ receipt: true, table: true })
  .extend({
    id: TableIdSchema,
    sealed: z.literal([true, false]).optional().meta({
      description:
        "true: roll in secret (docs/trust.md#sealed-rolls). The log shows only the entry's number, time, what was asked (without `note`) and a commitment; this answer alone carries the roll, its receipt, the salt and the reveal token.",
    }),
    idempotencyKey: IdempotencyKeySchema.optional(),
  })
  .meta({
    id: 'TableRollRequest',
    description: "A roll at a table: signed and appended to the table's log, open or sealed.",
    example: { formula: '1d20+5', by: 'GM', note: 'ambush check', sealed: true },
  });

/** The reveal of a sealed roll (POST /v1/tables/{id}/rolls/{seq}/reveal). */
export const RevealRequestSchema = z
  .strictObject({
    id: TableIdSchema,
    seq: z.coerce
      .number()
      .int()
      .min(1)
      .meta({ description: 'The sequence number of the sealed entry.', example: 3 }),
    token: z.string().min(1).max(200).meta({
      description: "The reveal token of the sealed roll's answer (`sealed.revealToken`).",
      example: 'q0m1JcX3n0o3VVkqk3mHn1bQk0v8b5dR',
    }),
  })
  .meta({ id: 'RevealRequest', description: 'Which sealed roll to reveal, and its token.' });

export const RollIdSchema = z.strictObject({
  rollId: z
    .string()
    .regex(UUIDV7_PATTERN, {
      // Read by the invalid_request message: "rollId must be a receipt's id: ...".
      error: "must be a receipt's id: a UUIDv7 in lower case, such as 019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d.",
    })
    .meta({ description: "A receipt's id (UUIDv7).", example: '019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d' }),
});

const jsonObject = () => z.record(z.string(), z.unknown());

export const VerifyRequestSchema = z
  .strictObject({
    receipt: jsonObject().optional().meta({ description: 'A receipt, as the service gave it.' }),
    head: jsonObject().optional().meta({
      description: "A table's signed head, as a read of its log gave it (docs/trust.md#signed-heads).",
    }),
    rolls: z.array(jsonObject()).optional().meta({
      description:
        "A table's log from its first entry, in order: checked as one chain, and against `head` when given.",
    }),
  })
  .refine((input) => input.receipt !== undefined || input.head !== undefined || input.rolls !== undefined, {
    // Read by the invalid_request message.
    error: 'needs a receipt, a head or a log (rolls) to check.',
  })
  .meta({
    id: 'VerifyRequest',
    description:
      "A receipt, a table's signed head, or a table's log (with or without a head), to check against the keys this service publishes.",
  });
