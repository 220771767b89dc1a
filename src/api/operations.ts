// Every operation of the service, in one table. The tRPC router (src/api/router.ts), the REST
// routes (src/http/routes.ts) and the OpenAPI document (src/http/openapi.ts) are all built from
// it: adding an operation is one entry here. docs/api.md describes them for callers.
import type { z } from 'zod';
import type { ErrorStatus } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { RandomSource } from '../roll/types.js';
import type { Trust } from '../trust/service.js';
import { VERSION } from '../version.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
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
import {
  JwksSchema,
  RollIdSchema,
  TableCreatedSchema,
  TableRollsQuerySchema,
  TableRollsSchema,
  VerifyRequestSchema,
  VerifyResultSchema,
} from './trust-schemas.js';

/** The one logging call operations make (pino-compatible, so a request logger carries its id). */
interface RollLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Everything an operation needs from its caller: made per request by the HTTP layer. */
export interface DiceContext {
  log: RollLog;
  random: RandomSource;
  dicePerRoll: number;
  dicePerBatch: number;
  /** Throws one request may make, rerolls and explosions included (THROWS_PER_REQUEST; default LIMITS.throwsPerRequest). */
  throwsPerRequest?: number;
  /** Receipts and tables (docs/trust.md): the signing key and the store; absent, they answer 503. */
  trust?: Trust | undefined;
  /** The client address (as TRUST_PROXY decides), which table creations count against. */
  address?: string | undefined;
}

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
}

/** An entry of the table, with its input and output types inferred. */
const operation = <I extends z.ZodType | undefined, O extends z.ZodType, K extends 'query' | 'mutation'>(
  entry: Operation<I, O, K>,
) => entry;

const ROLL_ERRORS = [400, 413, 429, 500] as const satisfies readonly ErrorStatus[];
/** A roll that asks for a receipt or names a table also meets the store (docs/trust.md). */
const SIGNED_ROLL_ERRORS = [400, 404, 409, 413, 429, 500, 503] as const satisfies readonly ErrorStatus[];
const STORE_READ_ERRORS = [400, 404, 429, 500, 503] as const satisfies readonly ErrorStatus[];

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
};

/** Each operation with its name, in table order. */
export const operationList = (
  operations: Readonly<Record<string, Operation>> = OPERATIONS,
): Array<Operation & { name: string }> =>
  Object.entries(operations).map(([name, entry]) => ({ ...entry, name }));
