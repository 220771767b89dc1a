// The zod schemas of the receipt and table operations (docs/trust.md). The receipt itself is in
// schemas.ts, beside the roll it carries.
import { z } from 'zod';
import { LIMITS } from '../limits.js';
import { ReceiptSchema, TableIdSchema } from './schemas.js';

export const TableCreatedSchema = z
  .strictObject({
    id: TableIdSchema,
    createdAt: z.string().meta({ description: 'RFC 3339, UTC.' }),
    maxEntries: z.number().int().meta({ description: 'Entries the table may hold.' }),
    retentionDays: z
      .number()
      .int()
      .meta({ description: 'The table is forgotten this many days after its last roll.' }),
    links: z.strictObject({
      rolls: z.string().meta({ description: "The table's log." }),
      events: z.string().meta({ description: 'Server-Sent Events of new rolls.' }),
    }),
  })
  .meta({
    id: 'TableCreated',
    description: 'A new table. Whoever holds its id may roll and read there.',
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

export const TableRollsSchema = z
  .strictObject({
    table: TableIdSchema,
    entries: z.number().int().meta({ description: 'Entries in the whole log: the last sequence number.' }),
    rolls: z.array(ReceiptSchema).meta({ description: 'The entries asked for, in sequence order.' }),
  })
  .meta({ id: 'TableRolls', description: "A page of a table's log." });

export const RollIdSchema = z.strictObject({
  rollId: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    .meta({ description: "A receipt's id (UUIDv7).", example: '019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d' }),
});

export const VerifyRequestSchema = z
  .strictObject({
    receipt: z.record(z.string(), z.unknown()).meta({ description: 'A receipt, as the service gave it.' }),
  })
  .meta({ id: 'VerifyRequest', description: 'A receipt to check against the keys this service publishes.' });

export const VerifyResultSchema = z
  .strictObject({
    valid: z.boolean(),
    kid: z.string().optional().meta({ description: 'When valid: the key that verified it.' }),
    reason: z.string().optional().meta({ description: 'When invalid: what failed.' }),
  })
  .meta({
    id: 'VerifyResult',
    description: 'Whether the receipt is genuine and unaltered.',
    example: { valid: false, reason: 'signature does not match the receipt' },
  });

export const JwksSchema = z
  .strictObject({
    keys: z.array(
      z.strictObject({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: z.string(),
        kid: z.string().meta({ description: 'RFC 7638 thumbprint; receipts name it.' }),
        alg: z.literal('EdDSA').optional(),
        use: z.literal('sig').optional(),
      }),
    ),
  })
  .meta({
    id: 'Jwks',
    description: 'The public keys that verify receipts: the current one first, then retired ones.',
  });
