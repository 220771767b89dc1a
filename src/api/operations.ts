// Every operation of the service, in one table. The tRPC router (src/api/router.ts), the REST
// routes (src/http/routes.ts), the OpenAPI document (src/http/openapi.ts) and the MCP tools
// (src/mcp/tools.ts) are all built from it: adding an operation is one entry here, and a marker
// in src/mcp/markers.ts exposes it to AI clients too. docs/api.md and docs/mcp.md describe them
// for callers.

import { STATS_BATCH_MAX } from '@fairdice/client/types';
import type { z } from 'zod';
import type { ApiErrorCode } from '../errors.js';
import { LIMITS } from '../limits.js';
import { VERSION } from '../version.js';
import type { DiceContext } from './context.js';
import { idempotent } from './idempotency.js';
import { tableReport } from './report.js';
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
  StatsBatchRequestSchema,
  StatsBatchResponseSchema,
  StatsQuerySchema,
  StatsRequestSchema,
  StatsResponseSchema,
  statsQueryRequest,
} from './stats-schemas.js';
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
  TableReportQuerySchema,
  TableReportSchema,
  TableRollsQuerySchema,
  TableRollsSchema,
  VerifyRequestSchema,
  VerifyResultSchema,
} from './trust-schemas.js';

export type { DiceContext } from './context.js';

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
  /**
   * The error codes the operation may answer (src/errors.ts), and through them its error
   * statuses: the OpenAPI document lists exactly these for it.
   */
  errors: readonly ApiErrorCode[];
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
  /**
   * Request headers the REST route reads into the input, by lower-case header name: the input
   * field each fills (tRPC and MCP callers give the field itself).
   */
  headerInputs?: Readonly<Record<string, string>>;
  /** The REST body of an answer, when it differs from the tRPC one (a field said as a header instead). */
  restBody?(output: z.output<O>): unknown;
}

/** An entry of the table, with its input and output types inferred. */
const operation = <I extends z.ZodType | undefined, O extends z.ZodType, K extends 'query' | 'mutation'>(
  entry: Operation<I, O, K>,
) => entry;

/** What any request may meet: the rate limit, and a fault of ours. */
const ANY_REQUEST = ['rate_limited', 'internal_error'] as const satisfies readonly ApiErrorCode[];
/**
 * A roll from the query string: its input, its formula, its dice and throws budgets, and the store
 * when it asks for a receipt (docs/trust.md). A GET has no body, so never payload_too_large.
 */
const QUERY_ROLL_ERRORS = [
  'invalid_request',
  'invalid_formula',
  'too_many_dice',
  'unavailable',
  ...ANY_REQUEST,
] as const satisfies readonly ApiErrorCode[];
/**
 * A roll from a body, which may also name a table: unknown or full (docs/trust.md), and carry an
 * Idempotency-Key: used for another request, or held by one still being answered.
 */
const SIGNED_ROLL_ERRORS = [
  ...QUERY_ROLL_ERRORS,
  'payload_too_large',
  'not_found',
  'table_full',
  'idempotency_key_in_use',
  'idempotency_key_reused',
] as const satisfies readonly ApiErrorCode[];

/** The Idempotency-Key header, read into the `idempotencyKey` input (docs/api.md#idempotency). */
const IDEMPOTENCY_HEADER = { 'idempotency-key': 'idempotencyKey' } as const;

/** A replay says so in a REST header, and answers the first body unchanged. */
const replayHeaders = (output: { replayed?: true | undefined }): Record<string, string> =>
  output.replayed === true ? { 'idempotent-replayed': 'true' } : {};
const withoutReplayed = <T extends { replayed?: true | undefined }>(output: T) => {
  const { replayed: _replayed, ...first } = output;
  return first;
};
const STORE_READ_ERRORS = [
  'invalid_request',
  'not_found',
  'unavailable',
  ...ANY_REQUEST,
] as const satisfies readonly ApiErrorCode[];
/**
 * /v1/stats from the query string: no dice are thrown, a formula may cost too much, and every
 * worker may be busy (503).
 */
const STATS_QUERY_ERRORS = [
  'invalid_request',
  'invalid_formula',
  'too_complex',
  'unavailable',
  ...ANY_REQUEST,
] as const satisfies readonly ApiErrorCode[];
/** /v1/stats from a body. */
const STATS_ERRORS = [...STATS_QUERY_ERRORS, 'payload_too_large'] as const satisfies readonly ApiErrorCode[];

/** A distribution never changes for a given version: a day of public caching. */
const STATS_MAX_AGE_SECONDS = 86_400;

const statsDescription =
  'The exact distribution of the `total` that /v1/roll returns for the same request: every possible total ' +
  'with its count over one denominator, the exact mean and variance of the whole roll, percentiles, how explosion chains ' +
  'were truncated, and on request the exact chance of reaching each of `targets` and an opposed roll against `versus`. A formula whose exact answer would cost more than the budget is 400 too_complex. ' +
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
    errors: QUERY_ROLL_ERRORS,
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
      '`"receipt": true` adds a signed receipt; `"table": "<id>"` signs the roll and appends it to that table (docs/trust.md); ' +
      '`by` and `note` say who rolls and why, signed into the receipt. With an `Idempotency-Key` header, the same key and request ' +
      'within 24 hours answers the first answer again, with `Idempotent-Replayed: true` (docs/api.md#idempotency).',
    errors: SIGNED_ROLL_ERRORS,
    headerInputs: IDEMPOTENCY_HEADER,
    headers: replayHeaders,
    restBody: withoutReplayed,
    run: (input, ctx) =>
      idempotent('rollWith', input.idempotencyKey, input, ctx, () => rollOneMaybeSigned(input, ctx)),
  }),

  batch: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/roll/batch',
    input: BatchRollRequestSchema,
    output: BatchRollResponseSchema,
    tags: ['dice'],
    summary: 'Roll several formulas at once',
    description: `Rolls up to ${LIMITS.rollsPerBatch} requests in order. The dice of all rolls count against one batch budget (${LIMITS.dicePerBatch} by default); over it the whole batch is refused with too_many_dice. An \`Idempotency-Key\` header answers a repeated batch as POST /v1/roll does (docs/api.md#idempotency).`,
    errors: SIGNED_ROLL_ERRORS,
    headerInputs: IDEMPOTENCY_HEADER,
    headers: replayHeaders,
    restBody: withoutReplayed,
    run: (input, ctx) =>
      idempotent('batch', input.idempotencyKey, input, ctx, () => rollBatchMaybeSigned(input.rolls, ctx)),
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
    errors: ['too_many_tables', 'unavailable', ...ANY_REQUEST],
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

  tableReport: operation({
    kind: 'query',
    method: 'GET',
    path: '/v1/tables/{id}/report',
    input: TableReportQuerySchema,
    output: TableReportSchema,
    tags: ['tables'],
    summary: 'How lucky the rolls of a table were',
    description:
      `Reads the last ${LIMITS.tableReportEntries} entries of a table's log at most (\`covered\` says which) and rates each roll by its exact mid-P percentile, ` +
      'P(X < total) + P(X = total)/2 under the exact distribution of its own request (as a fraction in lowest terms and a double); ' +
      'gives the mean per roller (`by`) and for the table, and the mid-P z-test of fair dice with its p-value and a sentence. ' +
      'A sealed roll is rated once revealed; a formula the exact engine refuses is `not_rated` with the reason. ' +
      'The distributions are charged to the stats budget like /v1/stats (docs/trust.md#how-lucky-the-night-was).',
    errors: STORE_READ_ERRORS,
    run: tableReport,
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
    errors: ['invalid_request', 'payload_too_large', ...ANY_REQUEST],
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
    errors: ANY_REQUEST,
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
    errors: ['rate_limited'],
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
    errors: STATS_QUERY_ERRORS,
    run: (input, ctx) => ctx.stats.distribution(statsQueryRequest(input), ctx.statsMeter),
    runJson: (input, ctx) => ctx.stats.json(statsQueryRequest(input), ctx.statsMeter),
    cache: {
      etag: (input, ctx) => ctx.stats.etag(statsQueryRequest(input)),
      maxAgeSeconds: STATS_MAX_AGE_SECONDS,
    },
  }),

  statsWith: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/stats',
    input: StatsRequestSchema,
    output: StatsResponseSchema,
    tags: ['stats'],
    summary: 'Exact probabilities of a formula with bonuses and tags',
    description: `${statsDescription} Takes a full RollRequest plus an optional depth, targets and versus (an opposing RollRequest).`,
    errors: STATS_ERRORS,
    run: (input, ctx) => ctx.stats.distribution(input, ctx.statsMeter),
    runJson: (input, ctx) => ctx.stats.json(input, ctx.statsMeter),
  }),

  statsBatch: operation({
    kind: 'mutation',
    method: 'POST',
    path: '/v1/stats/batch',
    input: StatsBatchRequestSchema,
    output: StatsBatchResponseSchema,
    tags: ['stats'],
    summary: 'Exact probabilities of several formulas side by side',
    description: `Answers up to ${STATS_BATCH_MAX} stats requests (each as POST /v1/stats takes it) in order, under one work budget: when together they would cost more than it, the whole batch is 400 too_complex before any work. See docs/stats.md.`,
    errors: STATS_ERRORS,
    run: (input, ctx) => ctx.stats.distributions(input, ctx.statsMeter),
    runJson: (input, ctx) => ctx.stats.json(input, ctx.statsMeter),
  }),
};

/** Each operation with its name, in table order. */
export const operationList = (
  operations: Readonly<Record<string, Operation>> = OPERATIONS,
): Array<Operation & { name: string }> =>
  Object.entries(operations).map(([name, entry]) => ({ ...entry, name }));
