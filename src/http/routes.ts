// The REST routes: one fastify route per operation of the table (src/api/operations.ts). Each
// builds the input from the query string (GET, DELETE) or the JSON body (the others), plus any
// path parameters, validates it with the operation's one input schema, calls the operation's
// `run` directly, and checks the answer against its output schema. tRPC validates the same
// schema for /trpc: with one input schema per operation (no chained inputs to merge), both
// transports accept and refuse exactly the same inputs.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import { parseInput, type RawInput } from '../api/input.js';
import type { DiceContext, Operation } from '../api/operations.js';
import { operationList } from '../api/operations.js';
import { RequestError } from '../errors.js';
import { replyWithError } from './errors.js';

export interface RestRoutesOptions {
  operations: Readonly<Record<string, Operation>>;
  bodyLimitBytes: number;
  /**
   * Check every answer against the operation's output schema (default: true). Off, the answer
   * still goes through fast-json-stringify with that schema, which writes only its fields.
   */
  checkOutputs?: boolean;
}

/** Fastify's path syntax for a path written with OpenAPI's `{name}` parameters. */
const fastifyPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/** An output that breaks its own schema is a fault of ours: the 500 path, never a 200. */
class OutputError extends Error {
  constructor(cause: unknown) {
    super('An operation answered outside its output schema', { cause });
    this.name = 'OutputError';
  }
}

function checkOutput(schema: z.ZodType, output: unknown): unknown {
  const result = schema.safeParse(output);
  if (!result.success) throw new OutputError(result.error);
  return result.data;
}

/** The raw input of a request: the query or the body, with the path parameters merged in. */
function rawInputOf(request: FastifyRequest, fromQuery: boolean, hasParams: boolean): RawInput {
  const source = fromQuery ? request.query : request.body;
  if (!hasParams) return { value: source, fromQuery };
  const params = request.params as Record<string, string>;
  const base = source !== null && typeof source === 'object' && !Array.isArray(source) ? source : {};
  return { value: { ...base, ...params }, fromQuery };
}

/**
 * Reads the request headers an operation takes as input (Idempotency-Key) into its raw input; the
 * same value given both ways is one, two different ones are refused.
 */
function withHeaderInputs(
  request: FastifyRequest,
  raw: RawInput,
  headerInputs: Readonly<Record<string, string>>,
) {
  const body = raw.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  let merged: Record<string, unknown> | undefined;
  for (const [header, field] of Object.entries(headerInputs)) {
    const value = request.headers[header];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new RequestError(`The ${header} header was given more than once; give it once.`);
    const given = (body as Record<string, unknown>)[field];
    if (given !== undefined && given !== value)
      throw new RequestError(`The ${header} header and ${field} differ; give one of them.`);
    merged ??= { ...(body as Record<string, unknown>) };
    merged[field] = value;
  }
  if (merged !== undefined) raw.value = merged;
}

/** Whether an If-None-Match header names `etag` (a list, weak validators, or `*`). */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });
}

/** The reply, with the cache validator's headers when the operation has one. */
const withValidator = (reply: FastifyReply, validator: Record<string, string> | undefined): FastifyReply =>
  validator === undefined ? reply : reply.headers(validator);

/** A request's context, with the reply, so an operation may add headers (the throws budget's) to the answer. */
type ContextOf = (request: FastifyRequest, reply?: FastifyReply) => DiceContext;

function routeOf(
  app: FastifyInstance,
  entry: Operation,
  options: RestRoutesOptions,
  contextOf: ContextOf,
): void {
  const { bodyLimitBytes } = options;
  const checkOutputs = options.checkOutputs ?? true;
  const fromQuery = entry.method === 'GET' || entry.method === 'DELETE';
  const hasParams = entry.path.includes('{');
  const { input, output, headers, cache, runJson, headerInputs, restBody } = entry;

  const send = (reply: FastifyReply, answer: unknown): FastifyReply => {
    const checked = checkOutputs ? checkOutput(output, answer) : answer;
    if (headers !== undefined) reply.headers(headers(checked));
    return reply.send(restBody === undefined ? checked : restBody(checked));
  };
  // The paths that wait for a promise, each in a function of its own: the handler itself makes no
  // closure, so a synchronous roll allocates none (docs/performance.md#no-closures-per-request).
  const failing = (request: FastifyRequest, reply: FastifyReply, raw: RawInput) => (error: unknown) =>
    replyWithError(request, reply, error, bodyLimitBytes, raw);
  const runAfter = (parsed: Promise<unknown>, ctx: DiceContext) =>
    parsed.then((value) => entry.run(value as never, ctx));
  const runJsonAfter = (parsed: Promise<unknown>, ctx: DiceContext, run: NonNullable<typeof runJson>) =>
    parsed.then((value) => run(value as never, ctx));
  const sendLater = (
    request: FastifyRequest,
    reply: FastifyReply,
    raw: RawInput,
    answer: Promise<unknown>,
    validator: Record<string, string> | undefined,
  ) =>
    answer.then((value) => send(withValidator(reply, validator), value)).catch(failing(request, reply, raw));
  const sendJsonLater = (
    request: FastifyRequest,
    reply: FastifyReply,
    raw: RawInput,
    json: Promise<string>,
    validator: Record<string, string> | undefined,
  ) =>
    json
      .then((text) => withValidator(reply, validator).type('application/json; charset=utf-8').send(text))
      .catch(failing(request, reply, raw));

  app.route({
    method: entry.method,
    url: fastifyPath(entry.path),
    // fast-json-stringify from the operation's output schema: the answer is already checked, so
    // this only makes the reply cheaper to write.
    schema: { response: { 200: z.toJSONSchema(output, { target: 'draft-7', metadata: z.registry() }) } },
    handler(request, reply) {
      const raw = rawInputOf(request, fromQuery, hasParams);
      try {
        if (headerInputs !== undefined) withHeaderInputs(request, raw, headerInputs);
        const parsed = input === undefined ? undefined : parseInput(input, raw);
        const ctx = contextOf(request, reply);
        // Named before any work: a client holding this answer gets 304 and no body. Only a
        // success carries the validator and public caching, never a refusal.
        let validator: Record<string, string> | undefined;
        if (cache !== undefined && !(parsed instanceof Promise)) {
          const etag = cache.etag(parsed as never, ctx);
          validator = { etag, 'cache-control': `public, max-age=${cache.maxAgeSeconds}` };
          if (matchesEtag(request.headers['if-none-match'], etag)) {
            return (reply as FastifyReply).code(304).headers(validator).send();
          }
        }
        if (runJson !== undefined) {
          const json =
            parsed instanceof Promise ? runJsonAfter(parsed, ctx, runJson) : runJson(parsed as never, ctx);
          return sendJsonLater(request, reply, raw, json, validator);
        }
        // Synchronous all the way when the schema and the operation are (every roll is).
        const answer = parsed instanceof Promise ? runAfter(parsed, ctx) : entry.run(parsed as never, ctx);
        if (answer instanceof Promise) return sendLater(request, reply, raw, answer, validator);
        return send(withValidator(reply, validator), answer);
      } catch (error) {
        return replyWithError(request, reply, error, bodyLimitBytes, raw);
      }
    },
  });
}

async function restRoutes(app: FastifyInstance, options: RestRoutesOptions): Promise<void> {
  const contextOf: ContextOf = app.diceContext;
  const methodsOfPath = new Map<string, string[]>();
  for (const entry of operationList(options.operations)) {
    routeOf(app, entry, options, contextOf);
    methodsOfPath.set(entry.path, [...(methodsOfPath.get(entry.path) ?? []), entry.method]);
  }
  for (const [path, methods] of methodsOfPath) {
    const answered = new Set<string>([...methods, 'OPTIONS', ...(methods.includes('GET') ? ['HEAD'] : [])]);
    const others = app.supportedMethods.filter((method) => !answered.has(method)) as HTTPMethods[];
    const wrongMethod = new RequestError(`${path} answers ${methods.join(' and ')} only.`);
    app.route({
      method: others,
      url: fastifyPath(path),
      handler: (request, reply) => replyWithError(request, reply, wrongMethod, options.bodyLimitBytes),
    });
  }
}

/**
 * The route of every operation of `operations`, plus a 400 invalid_request for any other method
 * on those paths (a known path never answers 404/405 for a wrong method). Each request's context
 * is `app.diceContext` (src/http/dice-context.ts).
 */
export const restRoutesPlugin = fp(restRoutes, {
  name: 'fairdice-rest-routes',
  fastify: '5.x',
  encapsulate: true,
  decorators: { fastify: ['diceContext'] },
});
