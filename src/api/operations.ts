// Every operation of the service, in one table. The tRPC router (src/api/router.ts), the REST
// routes (src/http/routes.ts) and the OpenAPI document (src/http/openapi.ts) are all built from
// it: adding an operation is one entry here. docs/api.md describes them for callers.
import type { z } from 'zod';
import type { ErrorStatus } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { RandomSource } from '../roll/types.js';
import { VERSION } from '../version.js';
import { rollBatch, rollOne } from './roll.js';
import {
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  HealthResponseSchema,
  RollQuerySchema,
  RollRequestSchema,
  RollResponseSchema,
} from './schemas.js';

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
      'Takes no bonuses or tags; use POST /v1/roll for those.',
    errors: ROLL_ERRORS,
    run: rollOne,
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
      'Rolls a full RollRequest: formula, advantage, bonuses and the tags the formula may end with.',
    errors: ROLL_ERRORS,
    run: rollOne,
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
    errors: ROLL_ERRORS,
    run: (input, ctx) => rollBatch(input.rolls, ctx),
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
