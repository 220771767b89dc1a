// Every operation of the service, in one table. The tRPC router (src/api/router.ts), the REST
// routes (src/http/routes.ts), the OpenAPI document (src/http/openapi.ts) and the MCP tools
// (src/mcp/tools.ts) are all built from it: adding an operation is one entry here, and marking it
// with `tool` exposes it to AI clients too. docs/api.md and docs/mcp.md describe them for callers.
import { z } from 'zod';
import type { ApiErrorCode, ErrorStatus } from '../errors.js';
import { LIMITS } from '../limits.js';
import {
  batchLines,
  rollLine,
  statsLine,
  tableCreatedLine,
  tableLogLines,
  verifyLine,
} from '../mcp/lines.js';
import { VERSION } from '../version.js';
import type { DiceContext } from './context.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  HealthResponseSchema,
  ReceiptSchema,
  RollQuerySchema,
  RollRequestSchema,
  RollResponseSchema,
} from './schemas.js';
import { StatsQuerySchema, StatsRequestSchema, StatsResponseSchema } from './stats-schemas.js';
import {
  createTable,
  publishedKeys,
  rollBatchMaybeSigned,
  rollOneMaybeSigned,
  storedRoll,
  tableRolls,
  verify,
} from './tables.js';
import {
  JwksSchema,
  RollIdSchema,
  TableCreatedSchema,
  TableRollsQuerySchema,
  TableRollsSchema,
  VerifyRequestSchema,
  VerifyResultSchema,
} from './trust-schemas.js';

export type { DiceContext } from './context.js';

/**
 * The mark that exposes an operation as an MCP tool (docs/mcp.md): its input schema, output
 * schema and errors are the operation's; the marker adds what only a model reads.
 */
export interface ToolMarker<In = never, Out = never> {
  /** The tool's name: lowercase words joined by `_` (`roll`, `roll_batch`). */
  name: string;
  title: string;
  /** What the tool does and when to call it, for a model; the notation's basics are appended. */
  description: string;
  /** It changes nothing anywhere (the tool's readOnlyHint). */
  readOnly: boolean;
  /** Calling it twice with the same arguments has the effect of calling it once (idempotentHint). */
  idempotent: boolean;
  /**
   * Arguments only the tool takes, added to the operation's input object (the stats tool's
   * `target`): validated with it, given to `line`, never to `run`.
   */
  extraInput?: Readonly<Record<string, z.ZodType>>;
  /**
   * Optional fields of the operation's input that the tool requires: one operation, several
   * tools (`table_roll` is the roll operation with `table` required). A name the input lacks stops start-up.
   */
  requires?: readonly string[];
  /** Fields of the operation's input the tool does not take (`roll` leaves `table` to `table_roll`). */
  omits?: readonly string[];
  /** The one line of text a model reads and quotes, from the output and the validated input. */
  line(output: Out, input: In & Record<string, unknown>): string;
}

type OneOrMore<T> = T | readonly [T, ...T[]];

/**
 * One operation. `run` is transport-free: it gets the input already validated by `input` and
 * throws DiceErrors (src/errors.ts) for the caller's mistakes; anything else it throws is a 500.
 */
export interface Operation<
  I extends z.ZodType | undefined = z.ZodType | undefined,
  O extends z.ZodType = z.ZodType,
  K extends 'query' | 'mutation' = 'query' | 'mutation',
> {
  /** tRPC reads (`query`: safe, cacheable) or writes (`mutation`). */
  kind: K;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /**
   * The REST path. A path parameter is written `{name}` and must be a field of `input`: the REST
   * route merges it into the input, as trpc-to-openapi documents it.
   */
  path: `/${string}`;
  /**
   * The input, for every transport: GET and DELETE read it from the query string, the others from
   * the JSON body. Exactly one schema per operation, so REST and tRPC validate it identically.
   * Absent: the operation takes no input.
   */
  input: I;
  /** The output: every answer is checked against it and serialised with it. */
  output: O;
  tags: readonly string[];
  summary: string;
  description: string;
  /** The error statuses the operation may answer; each is documented from src/errors.ts. */
  errors: readonly ErrorStatus[];
  run(
    input: I extends z.ZodType ? z.output<I> : undefined,
    ctx: DiceContext,
  ): z.input<O> | Promise<z.input<O>>;
  /** Extra response headers of the REST answer (a cache validator, say), read off the output. */
  headers?(output: z.output<O>): Record<string, string>;
  /**
   * An answer that never changes for its input within one version: `etag` names it before any
   * work, the REST route answers a matching If-None-Match with 304, and every answer carries
   * `ETag` and `Cache-Control: public, max-age=maxAgeSeconds`.
   */
  cache?: {
    etag(input: I extends z.ZodType ? z.output<I> : undefined, ctx: DiceContext): string;
    maxAgeSeconds: number;
  };
  /**
   * The REST answer as JSON text, already checked against `output` (off the event loop): when
   * present, the REST route sends it as is, so a large answer costs the event loop no validation
   * and no serialisation. tRPC still calls `run`.
   */
  runJson?(input: I extends z.ZodType ? z.output<I> : undefined, ctx: DiceContext): Promise<string>;
  /** 400 codes with a body schema of their own (src/errors.ts CODE_SCHEMAS) this operation may answer. */
  refuses?: readonly ApiErrorCode[];
  /** Present: the operation is also an MCP tool, or several, one per marker (src/mcp/tools.ts). */
  tool?: OneOrMore<ToolMarker<I extends z.ZodType ? z.output<I> : undefined, z.output<O>>>;
}

/** An entry of the table, with its input and output types inferred. */
const operation = <I extends z.ZodType | undefined, O extends z.ZodType, K extends 'query' | 'mutation'>(
  entry: Operation<I, O, K>,
) => entry;

const ROLL_ERRORS = [400, 413, 429, 500] as const satisfies readonly ErrorStatus[];
/** A roll that asks for a receipt or names a table also meets the store (docs/trust.md). */
const SIGNED_ROLL_ERRORS = [400, 404, 409, 413, 429, 500, 503] as const satisfies readonly ErrorStatus[];
const STORE_READ_ERRORS = [400, 404, 429, 500, 503] as const satisfies readonly ErrorStatus[];
/** /v1/stats also answers 503 when every worker is busy and the queue is full. */
const STATS_ERRORS = [400, 413, 429, 500, 503] as const satisfies readonly ErrorStatus[];

/** A distribution never changes for a given version: a day of public caching. */
const STATS_MAX_AGE_SECONDS = 86_400;

const statsDescription =
  'The exact distribution of the `total` that /v1/roll returns for the same request: every possible total ' +
  'with its count over one denominator, exact mean and variance, percentiles, and how explosion chains ' +
  'were truncated. A formula whose exact answer would cost more than the budget is 400 too_complex. ' +
  'See docs/stats.md.';

export const OPERATIONS = {
  roll: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/roll',
    input: RollQuerySchema,
    output: RollResponseSchema,
    tags: ['dice'],
    summary: 'Roll a formula from the query string',
    description:
      'Rolls `formula` (send `+` as `%2B` in a URL) with an optional `advantage`. ' +
      'Takes no bonuses or tags; use POST /v1/roll for those. `receipt=true` adds a signed receipt (docs/trust.md).',
    errors: [400, 413, 429, 500, 503],
    run: rollOneMaybeSigned,
  }),

  rollWith: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/roll',
    input: RollRequestSchema,
    output: RollResponseSchema,
    tags: ['dice'],
    summary: 'Roll a formula with bonuses and tags',
    description:
      'Rolls a full RollRequest: formula, advantage, bonuses and the tags the formula may end with. ' +
      '`"receipt": true` adds a signed receipt; `"table": "<id>"` signs the roll and appends it to that table (docs/trust.md).',
    errors: SIGNED_ROLL_ERRORS,
    run: rollOneMaybeSigned,
    tool: [
      {
        name: 'roll',
        title: 'Roll dice',
        description:
          'Rolls a dice formula with a fair random source and returns every die, which counted, and the total. ' +
          'Call it whenever a game needs a roll: never make a result up. Optional: advantage ' +
          '(advantage or disadvantage), bonuses (integers or formula fragments), tags (the words a formula may end with), ' +
          'receipt (true: a signed receipt anyone can verify). To roll where players can check every roll, use table_roll.',
        readOnly: true,
        idempotent: false,
        omits: ['table'],
        line: rollLine,
      },
      {
        name: 'table_roll',
        title: 'Roll dice at a table',
        description:
          "Rolls a dice formula at a table made by table_create: the roll is signed and appended to the table's log, " +
          'which the players can read (table_log) and check, so every roll is seen, including any reroll. ' +
          'Takes the same arguments as roll, with table (the id) required.',
        readOnly: false,
        idempotent: false,
        requires: ['table'],
        omits: ['receipt'],
        line: rollLine,
      },
    ],
  }),

  batch: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/roll/batch',
    input: BatchRollRequestSchema,
    output: BatchRollResponseSchema,
    tags: ['dice'],
    summary: 'Roll several formulas at once',
    description: `Rolls up to ${LIMITS.rollsPerBatch} requests in order. The dice of all rolls count against one batch budget (${LIMITS.dicePerBatch} by default); over it the whole batch is refused with too_many_dice.`,
    errors: SIGNED_ROLL_ERRORS,
    run: (input, ctx) => rollBatchMaybeSigned(input.rolls, ctx),
    tool: {
      name: 'roll_batch',
      title: 'Roll several formulas',
      description:
        `Rolls up to ${LIMITS.rollsPerBatch} formulas at once, in order, one line per roll; their dice share one budget (${LIMITS.dicePerBatch} by default). ` +
        "Each item takes roll's arguments; an item naming a table (from table_create) is signed and appended to that table's log, as with table_roll.",
      // Not read-only: an item naming a table appends to that table's log.
      readOnly: false,
      idempotent: false,
      line: batchLines,
    },
  }),

  createTable: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/tables',
    input: undefined,
    output: TableCreatedSchema,
    tags: ['tables'],
    summary: 'Create a table',
    description:
      'Creates a shared dice tray. Every roll made with `"table": "<id>"` is signed and appended to its log. ' +
      `Whoever holds the id may roll and read there. At most ${LIMITS.tablesPerHour} per address per hour by default.`,
    errors: [429, 500, 503],
    run: (_input, ctx) => createTable(ctx),
    tool: {
      name: 'table_create',
      title: 'Create a dice table',
      description:
        'Creates a table: a shared log of signed rolls for one game, so the players can check afterwards that ' +
        'no roll was made again until it suited. Returns its id; roll there with table_roll and read it with table_log. ' +
        'Create one per game and reuse it.',
      readOnly: false,
      idempotent: false,
      line: tableCreatedLine,
    },
  }),

  tableRolls: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/tables/{id}/rolls',
    input: TableRollsQuerySchema,
    output: TableRollsSchema,
    tags: ['tables'],
    summary: "A table's log",
    description: `The entries with a sequence number above \`after\`, in order, at most ${LIMITS.tableRollsPerPage} at a time. New entries as they happen: GET /v1/tables/{id}/events (Server-Sent Events).`,
    errors: STORE_READ_ERRORS,
    run: (input, ctx) => tableRolls(input, ctx, LIMITS.tableRollsPerPage),
    tool: {
      name: 'table_log',
      title: "Read a table's log",
      description:
        `The rolls made at a table, in order, at most ${LIMITS.tableRollsPerPage} at a time (after: the last sequence number already read). ` +
        'Each entry is a signed receipt holding the hash of the one before, so a removed or altered roll shows. ' +
        'One line per roll for the players.',
      readOnly: true,
      idempotent: true,
      line: tableLogLines,
    },
  }),

  storedRoll: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/rolls/{rollId}',
    input: RollIdSchema,
    output: ReceiptSchema,
    tags: ['tables'],
    summary: 'A stored receipt',
    description: 'Any receipt the service made and still keeps (at a table or not), by its id.',
    errors: STORE_READ_ERRORS,
    run: storedRoll,
  }),

  verifyReceipt: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/receipts/verify',
    input: VerifyRequestSchema,
    output: VerifyResultSchema,
    tags: ['tables'],
    summary: 'Verify a receipt',
    description:
      'Checks a receipt against the keys of /.well-known/jwks.json, for callers that cannot verify Ed25519 themselves. ' +
      'An invalid receipt is a 200 with `valid: false` and the reason.',
    errors: ROLL_ERRORS,
    run: verify,
    tool: {
      name: 'verify_receipt',
      title: 'Verify a receipt',
      description:
        "Checks that a receipt (from roll with receipt true, table_roll or table_log) was signed by this fairdice's key " +
        'and that no field was altered since: a die, the total, the formula, the time, the table entry. ' +
        'A receipt that fails is no error: the answer says valid false and why.',
      readOnly: true,
      idempotent: true,
      line: verifyLine,
    },
  }),

  jwks: operation({
    kind: 'query',
    method: 'GET',
    path: '/.well-known/jwks.json',
    input: undefined,
    output: JwksSchema,
    tags: ['tables'],
    summary: 'The public keys that verify receipts',
    description:
      "JWKS (RFC 7517): the current Ed25519 key first, then retired ones; each `kid` is the key's RFC 7638 thumbprint.",
    errors: [429, 500],
    run: (_input, ctx) => publishedKeys(ctx),
  }),

  health: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/health',
    input: undefined,
    output: HealthResponseSchema,
    tags: ['service'],
    summary: 'Liveness',
    description: 'Answers while the service is up. Rolls nothing.',
    errors: [429],
    run: () => ({ status: 'ok' as const, version: VERSION }),
  }),

  stats: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/stats',
    input: StatsQuerySchema,
    output: StatsResponseSchema,
    tags: ['stats'],
    summary: 'Exact probabilities of a formula, from the query string',
    description: `${statsDescription} Answers carry an ETag and public caching; If-None-Match gives 304.`,
    errors: STATS_ERRORS,
    refuses: ['too_complex'],
    run: (input, ctx) => ctx.stats.distribution(input, ctx.statsMeter),
    runJson: (input, ctx) => ctx.stats.json(input, ctx.statsMeter),
    cache: { etag: (input, ctx) => ctx.stats.etag(input), maxAgeSeconds: STATS_MAX_AGE_SECONDS },
  }),

  statsWith: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/stats',
    input: StatsRequestSchema,
    output: StatsResponseSchema,
    tags: ['stats'],
    summary: 'Exact probabilities of a formula with bonuses and tags',
    description: `${statsDescription} Takes a full RollRequest plus an optional depth.`,
    errors: STATS_ERRORS,
    refuses: ['too_complex'],
    run: (input, ctx) => ctx.stats.distribution(input, ctx.statsMeter),
    runJson: (input, ctx) => ctx.stats.json(input, ctx.statsMeter),
    tool: {
      name: 'stats',
      title: 'Exact odds of a formula',
      description:
        'The exact probability distribution of the total a roll of this formula would give: min, max, mean, ' +
        'percentiles and every outcome with its chance. Call it before narrating a risk. Optional: target ' +
        '(a total): the line then gives the chance of rolling at least it.',
      readOnly: true,
      idempotent: true,
      extraInput: { target: z.number().int().optional() },
      line: (output, input) => statsLine(output, input as { target?: unknown }),
    },
  }),
};

/** Each operation with its name, in table order. */
export const operationList = (
  operations: Readonly<Record<string, Operation>> = OPERATIONS,
): Array<Operation & { name: string }> =>
  Object.entries(operations).map(([name, entry]) => ({ ...entry, name }));
