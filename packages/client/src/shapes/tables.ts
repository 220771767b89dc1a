// The answers of the table operations (docs/trust.md), declared once: a new table, and a page of
// a table's log.
import { z } from 'zod';
import { TABLE_ID_PATTERN } from '../constants.js';
import { ReceiptSchema } from './receipt.js';

export const TableIdSchema = z
  .string()
  .regex(TABLE_ID_PATTERN, {
    // Read by the invalid_request message, the same over REST, tRPC and MCP: "table must be a
    // table's id as creating the table gave it: ...".
    error: "must be a table's id as creating the table gave it: 16 to 64 letters, digits, - or _.",
  })
  .meta({ description: 'A table id, as POST /v1/tables returned it.', example: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s' });

const tableCreated = z
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
  // No component id here: the service names it where it adds an example with its own limits.
  .meta({ description: 'A new table. Whoever holds its id may roll and read there.' });

/** The answer of `createTable` (POST /v1/tables): whoever holds its id may roll and read there. */
export interface TableCreated extends z.output<typeof tableCreated> {}
export const TableCreatedSchema: z.ZodType<TableCreated, TableCreated> = tableCreated;

const tableRolls = z
  .strictObject({
    table: TableIdSchema,
    entries: z.number().int().meta({ description: 'Entries in the whole log: the last sequence number.' }),
    rolls: z.array(ReceiptSchema).meta({ description: 'The entries asked for, in sequence order.' }),
  })
  .meta({ id: 'TableRolls', description: "A page of a table's log." });

/** A page of a table's log. */
export interface TableRolls extends z.output<typeof tableRolls> {}
export const TableRollsSchema: z.ZodType<TableRolls, TableRolls> = tableRolls;
