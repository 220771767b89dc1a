// The answers of the table operations (docs/trust.md), declared once: a new table; the entries of
// a table's log (an open roll's receipt, a sealed roll's public part, the reveal of a sealed roll)
// and the signed head every read of a log carries; what the roller of a sealed roll alone gets;
// and the luck report of a table.
import { z } from 'zod';
import { TABLE_ID_PATTERN } from '../constants.js';
import { ReceiptSchema, signedRequestFields } from './receipt.js';
import { replayedField } from './response.js';
import { ROLL_EXAMPLE, rollFields } from './roll.js';

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

const sha256Hex = (description: string) =>
  z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({ description });

/** The fields every entry of a log has, whatever it holds. */
const entryFields = {
  id: z.string().meta({ description: 'UUIDv7: unique, ordered by time.' }),
  time: z.string().meta({ description: 'When it was signed (RFC 3339, UTC, milliseconds).' }),
  kid: z
    .string()
    .meta({ description: 'Which key of /.well-known/jwks.json verifies it (RFC 7638 thumbprint).' }),
  table: TableIdSchema,
  seq: z.number().int().meta({ description: "This entry's sequence number, from 1." }),
  prev: sha256Hex(
    'SHA-256 (hex) of the canonical JSON of the entry before, signature included; 64 zeros for the first.',
  ),
};

const signatureField = z.string().meta({
  description: 'Ed25519 signature (base64url) over the RFC 8785 canonical JSON of every other field.',
});

const tableHead = z
  .strictObject({
    table: TableIdSchema,
    entries: z.number().int().min(0).meta({ description: 'Entries the log held: its last sequence number.' }),
    lastHash: sha256Hex(
      "SHA-256 (hex) of the canonical JSON of entry number `entries`, signature included (the next entry's `prev`); 64 zeros for an empty log.",
    ),
    time: z.string().meta({ description: 'When the head was signed (RFC 3339, UTC, milliseconds).' }),
    kid: z
      .string()
      .meta({ description: 'Which key of /.well-known/jwks.json verifies it (RFC 7638 thumbprint).' }),
    signature: signatureField,
  })
  .meta({
    id: 'TableHead',
    description:
      "The service's signed statement that, at `time`, the table's log held `entries` entries, the last of which hashes to `lastHash` (docs/trust.md#signed-heads). A log shorter than a head, or whose entry number `entries` hashes otherwise, was cut or forked.",
  });

/** A table's signed head: how many entries its log held and the hash of the last (docs/trust.md). */
export interface TableHead extends z.output<typeof tableHead> {}
export const TableHeadSchema: z.ZodType<TableHead, TableHead> = tableHead;

const { note: _note, ...publicRequestFields } = signedRequestFields;

const sealedRequest = z.strictObject(publicRequestFields).meta({
  id: 'SealedRequest',
  description: 'What a sealed roll asked, as its entry shows it: the signed request without its `note`.',
});

/** What a sealed roll asked, as its entry shows it: the signed request without its note. */
export interface SealedRequest extends z.output<typeof sealedRequest> {}
export const SealedRequestSchema: z.ZodType<SealedRequest, SealedRequest> = sealedRequest;

const sealedEntry = z
  .strictObject({
    ...entryFields,
    request: SealedRequestSchema,
    commitment: sha256Hex(
      "SHA-256 (hex) of the roll's receipt as RFC 8785 canonical JSON (UTF-8) followed by its 32-byte salt (docs/trust.md#sealed-rolls).",
    ),
    signature: signatureField,
  })
  .meta({
    id: 'SealedEntry',
    description:
      'A sealed roll as the log shows it: rolled, signed, numbered and chained like any other, but holding only what was asked (without its note) and a commitment to its receipt. Its reveal, a later entry, publishes the receipt and the salt.',
  });

/** A sealed roll as a table's log shows it: what was asked (no note) and a commitment to its receipt. */
export interface SealedEntry extends z.output<typeof sealedEntry> {}
export const SealedEntrySchema: z.ZodType<SealedEntry, SealedEntry> = sealedEntry;

const saltField = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: "The sealed roll's salt: 32 random bytes, hex." });

const revealEntry = z
  .strictObject({
    ...entryFields,
    reveal: z
      .strictObject({
        seq: z.number().int().meta({ description: 'The sequence number of the sealed entry it reveals.' }),
        receipt: ReceiptSchema.meta({
          description:
            "The sealed roll's receipt: at the same table, sequence number and `prev` as the sealed entry, with everything asked (its note too) and every die.",
        }),
        salt: saltField,
      })
      .meta({ description: 'What the sealed entry committed to.' }),
    signature: signatureField,
  })
  .meta({
    id: 'RevealEntry',
    description:
      "The reveal of a sealed roll, appended to the log when its roller asks: the receipt and the salt. SHA-256 of the receipt's canonical JSON followed by the salt is the sealed entry's `commitment`.",
  });

/** The reveal of a sealed roll: its receipt and salt, appended to the log as an entry of its own. */
export interface RevealEntry extends z.output<typeof revealEntry> {}
export const RevealEntrySchema: z.ZodType<RevealEntry, RevealEntry> = revealEntry;

const tableEntry = z.union([ReceiptSchema, SealedEntrySchema, RevealEntrySchema]).meta({
  id: 'TableEntry',
  description:
    "One entry of a table's log: an open roll (a receipt with `roll`), a sealed roll (`commitment`) or the reveal of one (`reveal`).",
});

/** One entry of a table's log: a receipt (`roll`), a sealed entry (`commitment`) or a reveal (`reveal`). */
export type TableEntry = z.output<typeof tableEntry>;
export const TableEntrySchema: z.ZodType<TableEntry, TableEntry> = tableEntry;

const tableRolls = z
  .strictObject({
    table: TableIdSchema,
    entries: z.number().int().meta({ description: 'Entries in the whole log: the last sequence number.' }),
    rolls: z.array(TableEntrySchema).meta({ description: 'The entries asked for, in sequence order.' }),
    head: TableHeadSchema.meta({
      description:
        'The signed head of the whole log as it was read: keep the latest one seen; a later read with fewer entries, or another last hash, shows a cut or a fork.',
    }),
  })
  .meta({ id: 'TableRolls', description: "A page of a table's log, with its signed head." });

/** A page of a table's log, with the signed head of the whole log. */
export interface TableRolls extends z.output<typeof tableRolls> {}
export const TableRollsSchema: z.ZodType<TableRolls, TableRolls> = tableRolls;

const sealedRoll = z
  .strictObject({
    entry: SealedEntrySchema.meta({ description: "The entry appended to the table's log." }),
    salt: saltField,
    revealToken: z.string().meta({
      description:
        'Reveals the roll (POST /v1/tables/{id}/rolls/{seq}/reveal). Only its hash is kept: keep it; nobody can reveal without it.',
    }),
  })
  .meta({
    id: 'SealedRoll',
    description:
      "Only in the roller's answer to a sealed roll: the entry the log shows, the salt of its commitment and the token that reveals it.",
  });

/** What the roller of a sealed roll alone gets: the entry, the salt and the reveal token. */
export interface SealedRoll extends z.output<typeof sealedRoll> {}
export const SealedRollSchema: z.ZodType<SealedRoll, SealedRoll> = sealedRoll;

const tableRollResponse = z
  .strictObject({
    ...rollFields,
    receipt: ReceiptSchema.meta({
      description:
        "The roll's receipt, entry `seq` of the table's log. Of a sealed roll: what its sealed entry commits to, shown to nobody else until revealed.",
    }),
    sealed: SealedRollSchema.optional().meta({
      description:
        'Only when the roll was sealed: the entry the log shows instead of the receipt, the salt and the reveal token (docs/trust.md#sealed-rolls).',
    }),
    replayed: replayedField(),
  })
  .meta({
    id: 'TableRollResponse',
    description:
      "A roll at a table: every die, the total and the receipt appended to the log; a sealed roll's answer also carries what reveals it, and only this answer does.",
    example: ROLL_EXAMPLE,
  });

/**
 * The answer of a roll at a table (POST /v1/tables/{id}/roll): the roll and its receipt; a sealed
 * roll's also holds `sealed` (the entry the log shows, the salt, the reveal token).
 */
export interface TableRollResponse extends z.output<typeof tableRollResponse> {}
export const TableRollResponseSchema: z.ZodType<TableRollResponse, TableRollResponse> = tableRollResponse;

const fractionText = (description: string) =>
  z
    .string()
    .regex(/^[0-9]+\/[1-9][0-9]*$/)
    .meta({ description });

const reportEntry = z
  .strictObject({
    seq: z.number().int().meta({ description: 'The entry of the roll (a sealed roll: its sealed entry).' }),
    time: z.string().meta({ description: 'When it was rolled.' }),
    formula: z.string().meta({ description: 'The formula asked for.' }),
    by: z.string().optional().meta({ description: 'Who rolled, when the roll named them.' }),
    status: z.enum(['rated', 'sealed', 'not_rated']).meta({
      description:
        '`rated`: its percentile is given; `sealed`: not revealed yet, so not rated; `not_rated`: `reason` says why.',
    }),
    total: z
      .number()
      .optional()
      .meta({ description: 'The total rolled (not for an unrevealed sealed roll).' }),
    midP: z.number().optional().meta({
      description:
        "Rated: the roll's mid-P percentile, P(X < total) + P(X = total)/2 under the exact distribution of its own request, as the nearest double.",
    }),
    midPExact: fractionText('Rated: the same, exactly, in lowest terms.').optional(),
    revealedIn: z
      .number()
      .int()
      .optional()
      .meta({ description: 'A revealed sealed roll: the entry of its reveal.' }),
    reason: z.string().optional().meta({ description: 'Not rated: why.' }),
  })
  .meta({ id: 'ReportEntry', description: 'One roll of the report.' });

/** One roll of a table's report. */
export interface ReportEntry extends z.output<typeof reportEntry> {}
export const ReportEntrySchema: z.ZodType<ReportEntry, ReportEntry> = reportEntry;

const tableReport = z
  .strictObject({
    table: TableIdSchema,
    head: TableHeadSchema.meta({ description: 'The head of the log the report read.' }),
    covered: z
      .strictObject({
        from: z
          .number()
          .int()
          .meta({ description: 'The first entry read (1 when the log is short enough).' }),
        to: z.number().int().meta({ description: "The last entry read: the head's `entries`." }),
        rolls: z.number().int().meta({ description: 'Rolls among them (entries other than reveals).' }),
        rated: z.number().int(),
        sealed: z.number().int().meta({ description: 'Sealed rolls not revealed: not rated.' }),
        notRated: z
          .number()
          .int()
          .meta({ description: 'Rolls not rated for another reason (each says why).' }),
      })
      .meta({ description: 'What the report read and rated.' }),
    rolls: z.array(ReportEntrySchema).meta({ description: 'Every roll read, in sequence order.' }),
    byRoller: z
      .array(
        z.strictObject({
          by: z
            .string()
            .nullable()
            .meta({ description: 'The name rolls gave, or null for rolls that named nobody.' }),
          rated: z.number().int(),
          meanMidP: z.number().meta({ description: "The mean of this roller's rated percentiles." }),
        }),
      )
      .meta({ description: 'Per roller (`by`), those with rated rolls, in order of their first roll.' }),
    overall: z
      .strictObject({
        rated: z.number().int(),
        meanMidP: z
          .number()
          .nullable()
          .meta({ description: 'The mean of every rated percentile; null with none.' }),
      })
      .meta({ description: 'Every rated roll together.' }),
    test: z
      .strictObject({
        name: z
          .literal('mid-P z-test')
          .meta({ description: 'docs/trust.md#how-lucky-the-night-was says how it works.' }),
        z: z.number().nullable().meta({
          description:
            'Σ(midP − ½) / √(Σ Var), each Var = (1 − Σ p³)/12 exactly under fair dice; null when nothing can vary.',
        }),
        pValue: z
          .number()
          .nullable()
          .meta({ description: 'Two-sided, from the normal distribution; null with `z`.' }),
        verdict: z.enum(['consistent', 'unusual', 'very_unusual', 'untested']).meta({
          description:
            '`unusual`: p below 0.05; `very_unusual`: below 0.001; `untested`: no roll could vary.',
        }),
        sentence: z.string().meta({ description: 'The verdict in plain words.' }),
      })
      .meta({ description: 'Whether the rated percentiles look like fair dice.' }),
  })
  .meta({
    id: 'TableReport',
    description:
      "How lucky the rolls of a table were: each roll's exact percentile under its own distribution, the mean per roller and for the table, and a test of fair dice (docs/trust.md#how-lucky-the-night-was).",
  });

/** How lucky a table's rolls were, roll by roll, per roller and together, with a test of fair dice. */
export interface TableReport extends z.output<typeof tableReport> {}
export const TableReportSchema: z.ZodType<TableReport, TableReport> = tableReport;
