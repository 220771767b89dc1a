// The REST bridge: one fastify route per procedure that carries `meta.openapi`, enumerated from
// the router itself (no second list of paths). Each route builds the input from the query string
// or the parsed body and runs the procedure: from its own definition when it is a plain one, else
// through a caller made from a factory created once; both cost a fraction of trpc-to-openapi's own
// adapter (no fetch Request per call).
import { type AnyRouter, TRPCError } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { apiError } from '../api/errors.js';
import { createCallerFactory, type DiceContext } from '../api/trpc.js';
import { replyWithError } from './errors.js';

/** One REST operation as its procedure declares it. */
export interface RestOperation {
  /** The procedure's path in the router (`roll`, `rollWith`). */
  procedure: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** The procedure's output schema, when it declares one (every REST procedure should). */
  output: z.ZodType | undefined;
  /** The procedure's input schema, when it declares a zod one. */
  input: z.ZodType | undefined;
  /** The id of the input schema (`RollRequest`), when it is a named component. */
  inputId: string | undefined;
}

interface ProcedureDef {
  _def: {
    type: string;
    meta?: OpenApiMeta;
    inputs: unknown[];
    output?: unknown;
    middlewares?: ReadonlyArray<{ name?: string }>;
    resolver?: (opts: ResolverOptions) => unknown;
  };
}

/** What tRPC hands a resolver (the subset a resolver of ours can rely on). */
interface ResolverOptions {
  ctx: unknown;
  input: unknown;
  path: string;
  type: string;
  meta: OpenApiMeta | undefined;
  signal: undefined;
  getRawInput: () => Promise<unknown>;
}

const isZod = (schema: unknown): schema is z.ZodType => schema instanceof z.ZodType;

/** Every procedure of `router` with enabled openapi meta, in router order. */
export function restOperations(router: AnyRouter): RestOperation[] {
  const operations: RestOperation[] = [];
  const procedures = router._def.procedures as Record<string, ProcedureDef>;
  for (const [procedure, { _def }] of Object.entries(procedures)) {
    const openapi = _def.meta?.openapi;
    if (openapi === undefined || openapi.enabled === false) continue;
    const input = _def.inputs[0];
    const inputId = isZod(input) ? (input.meta()?.id as string | undefined) : undefined;
    operations.push({
      procedure,
      method: openapi.method,
      path: openapi.path,
      output: isZod(_def.output) ? _def.output : undefined,
      input: isZod(input) ? input : undefined,
      inputId,
    });
  }
  return operations;
}

type Invoke = (caller: unknown, input: unknown) => Promise<unknown>;

/** The middlewares tRPC itself adds for `.input()`, `.output()` and the resolver. */
const BUILT_IN_MIDDLEWARES = new Set([
  'inputValidatorMiddleware',
  'outputValidatorMiddleware',
  'resolveMiddleware',
]);

/** tRPC's own order: a synchronous parse, and the asynchronous one only for a schema that needs it. */
function parseLikeTrpc(schema: z.ZodType, value: unknown): unknown {
  try {
    return schema.parse(value);
  } catch (error) {
    if (Array.isArray((error as { issues?: unknown } | null)?.issues)) throw error;
    return schema.parseAsync(value);
  }
}

/**
 * The procedure run from its own definition (input schema, resolver, output schema), exactly as
 * tRPC would run it, errors included, but without its per-call middleware chain, which copies
 * the call options at every step, a large share of a REST roll's cost (see `npm run bench`). Only for a procedure whose middlewares are tRPC's built-in ones: one with
 * any middleware of its own (auth, logging) is always called through the caller.
 */
function directProcedure(
  procedure: string,
  def: ProcedureDef['_def'],
): ((ctx: unknown, raw: unknown) => Promise<unknown>) | undefined {
  const { resolver, middlewares, inputs, output } = def;
  if (resolver === undefined || middlewares === undefined || inputs.length > 1) return undefined;
  if (!middlewares.every((middleware) => BUILT_IN_MIDDLEWARES.has(middleware.name ?? ''))) return undefined;
  const input = inputs[0];
  if (input !== undefined && !isZod(input)) return undefined;
  if (output !== undefined && !isZod(output)) return undefined;
  const { type, meta } = def;
  return async (ctx, raw) => {
    let parsed: unknown = raw;
    if (input !== undefined) {
      try {
        parsed = await parseLikeTrpc(input, raw);
      } catch (cause) {
        throw new TRPCError({ code: 'BAD_REQUEST', cause });
      }
    }
    const data = await resolver({
      ctx,
      input: parsed,
      path: procedure,
      type,
      meta,
      signal: undefined,
      getRawInput: async () => raw,
    });
    if (output === undefined) return data;
    try {
      return await parseLikeTrpc(output, data);
    } catch (cause) {
      throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause });
    }
  };
}

/** The call of one procedure on a caller, resolved from its dotted path once at start-up. */
function invokerOf(procedure: string): Invoke {
  const parents = procedure.split('.');
  const name = parents.pop()!;
  return (caller, input) => {
    let target = caller as Record<string, unknown>;
    for (const segment of parents) target = target[segment] as Record<string, unknown>;
    return (target[name] as (input: unknown) => Promise<unknown>)(input);
  };
}

export interface BridgeOptions {
  contextOf(request: FastifyRequest): DiceContext;
  bodyLimitBytes: number;
}

/**
 * Registers the routes of every REST operation of `router`, plus a 400 invalid_request for any
 * other method on those paths (a known path never answers 404/405 for a wrong method).
 */
export function registerRestBridge(
  app: FastifyInstance,
  router: AnyRouter,
  options: BridgeOptions,
): RestOperation[] {
  const createCaller = createCallerFactory(router);
  const { contextOf, bodyLimitBytes } = options;
  const operations = restOperations(router);
  const methodsOfPath = new Map<string, string[]>();

  const procedures = router._def.procedures as Record<string, ProcedureDef>;
  for (const operation of operations) {
    const invoke = invokerOf(operation.procedure);
    const direct = directProcedure(operation.procedure, procedures[operation.procedure]!._def);
    const call = direct
      ? (request: FastifyRequest, input: unknown) => direct(contextOf(request), input)
      : (request: FastifyRequest, input: unknown) => invoke(createCaller(contextOf(request)), input);
    const fromQuery = operation.method === 'GET' || operation.method === 'DELETE';
    methodsOfPath.set(operation.path, [...(methodsOfPath.get(operation.path) ?? []), operation.method]);
    app.route({
      method: operation.method,
      url: operation.path,
      // fast-json-stringify from the procedure's own output schema: the output is already
      // validated by tRPC, so this only makes the reply cheaper to write.
      schema:
        operation.output === undefined
          ? {}
          : {
              response: {
                200: z.toJSONSchema(operation.output, { target: 'draft-7', metadata: z.registry() }),
              },
            },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const input = fromQuery ? request.query : request.body;
        try {
          return await call(request, input);
        } catch (error) {
          return replyWithError(request, reply, error, bodyLimitBytes, { value: input, fromQuery });
        }
      },
    });
  }

  for (const [path, methods] of methodsOfPath) {
    const answered = new Set<string>([...methods, 'OPTIONS', ...(methods.includes('GET') ? ['HEAD'] : [])]);
    const others = app.supportedMethods.filter((method) => !answered.has(method)) as HTTPMethods[];
    const wrongMethod = apiError('invalid_request', `${path} answers ${methods.join(' and ')} only.`);
    app.route({
      method: others,
      url: path,
      handler: (request, reply) => replyWithError(request, reply, wrongMethod, bodyLimitBytes),
    });
  }
  return operations;
}
