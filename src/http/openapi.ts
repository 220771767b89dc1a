// The OpenAPI 3.1 document, generated once at start-up by trpc-to-openapi from the router built
// off the operation table, then post-processed: our error schemas (one per status, built from
// src/errors.ts, exact code enum, a real response as example) replace the library's, request
// bodies point at their named components, and no security appears anywhere.
import type { AnyRouter } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import { describeIssues } from '../api/input.js';
import { type Operation, operationList } from '../api/operations.js';
import { receiptExample } from '../api/schemas.js';
import {
  type ApiErrorCode,
  CODE_SCHEMAS,
  codesOf,
  DiceError,
  ERROR_CODES,
  ERROR_STATUSES,
  type ErrorBody,
  type ErrorStatus,
  MESSAGES,
  RequestError,
  statusDescription,
  statusesOf,
} from '../errors.js';
import { LIMITS } from '../limits.js';
import { checkDistribution } from '../stats/distribution.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { declareHttpBehaviour } from './openapi-http.js';
import { BAD_RESUME_MESSAGE, HEARTBEAT_MS, TABLE_EVENTS_PATH } from './table-events.js';

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

/** The body schema of one error status, whose `code` enum lists exactly the codes it carries. */
function errorSchemaOf(status: ErrorStatus): z.ZodType {
  const [first, ...rest] = codesOf(status).filter((code) => CODE_SCHEMAS[code] === undefined);
  return z
    .strictObject({
      error: z.strictObject({
        code: z.enum([first!, ...rest]).meta({ description: 'Stable code; callers match on it.' }),
        message: z.string().meta({ description: 'Human-readable, may be reworded; safe to show on a page.' }),
      }),
    })
    .meta({ id: ERROR_STATUSES[status].schema, description: statusDescription(status) });
}

/**
 * A real response body for an error status. The 400 is what an operation whose input schema is
 * `input` answers to an empty input; the others are the only body their status ever has.
 */
function exampleOf(status: ErrorStatus, bodyLimitBytes: number, input: z.ZodType | undefined): ErrorBody {
  switch (status) {
    case 400: {
      const empty = input?.safeParse({});
      const issues = empty === undefined || empty.success ? [] : empty.error.issues;
      return new RequestError(describeIssues(issues, { value: {} })).toBody();
    }
    case 403:
      return new DiceError('wrong_reveal_token', MESSAGES.wrongRevealToken).toBody();
    case 404:
      return new DiceError('not_found', MESSAGES.notFound).toBody();
    case 413:
      return new DiceError('payload_too_large', MESSAGES.payloadTooLarge(bodyLimitBytes)).toBody();
    case 429:
      return new DiceError('rate_limited', MESSAGES.rateLimited).toBody();
    case 500:
      return new DiceError('internal_error', MESSAGES.unexpected).toBody();
    case 409:
      return new DiceError('table_full', MESSAGES.tableFull(LIMITS.tableMaxEntries)).toBody();
    case 422:
      return new DiceError('idempotency_key_reused', MESSAGES.idempotencyKeyReused).toBody();
    case 503:
      return new DiceError('unavailable', MESSAGES.unavailable).toBody();
  }
}

/** The body schema of a code with a schema of its own (CODE_SCHEMAS). */
function codeSchemaOf(code: ApiErrorCode): z.ZodType {
  const own = CODE_SCHEMAS[code]!;
  return z
    .strictObject({
      error: z.strictObject({
        code: z.enum([code]).meta({ description: 'Stable code; callers match on it.' }),
        message: z.string().meta({ description: 'Human-readable, may be reworded; safe to show on a page.' }),
      }),
    })
    .meta({ id: own.schema, description: `${own.description}.` });
}

/** A real body of a code with its own schema: what the service answers for a real request. */
function codeExampleOf(code: ApiErrorCode): ErrorBody {
  try {
    // A sum the budget refuses before any work.
    if (code === 'too_complex') checkDistribution({ formula: '1000d20' });
  } catch (error) {
    if (error instanceof DiceError && error.code === code) return error.toBody();
  }
  throw new Error(`no example for ${code}`);
}

/**
 * The body schema of an error `status` as an operation answers it, with `codes` (the operation's
 * codes, src/api/operations.ts): the status's component, narrowed to the operation's codes when
 * the component lists more (GET /v1/roll's 429 is `rate_limited` only, not the table and stream
 * limits), beside the component of each of its codes with a schema of its own (CODE_SCHEMAS).
 */
function responseSchemaOf(status: ErrorStatus, codes: readonly ApiErrorCode[]): unknown {
  const shared = codesOf(status).filter((code) => CODE_SCHEMAS[code] === undefined);
  const answered = shared.filter((code) => codes.includes(code));
  const schemas: unknown[] = codesOf(status)
    .filter((code) => CODE_SCHEMAS[code] !== undefined && codes.includes(code))
    .map((code) => ref(CODE_SCHEMAS[code]!.schema));
  if (answered.length > 0) {
    const component = ref(ERROR_STATUSES[status].schema);
    schemas.unshift(
      answered.length === shared.length
        ? component
        : {
            allOf: [
              component,
              {
                type: 'object',
                properties: { error: { type: 'object', properties: { code: { enum: answered } } } },
              },
            ],
          },
    );
  }
  return schemas.length === 1 ? schemas[0] : { anyOf: schemas };
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface DocumentOperation {
  security?: unknown;
  parameters?: unknown[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }
  >;
}

/**
 * The validator headers of an operation with `cache` (src/api/operations.ts), as components: what
 * its 200 and its 304 carry (docs/stats.md, "HTTP caching").
 */
const CACHE_HEADERS = {
  ETag: {
    description:
      'A strong validator of this answer (the service version and the normalised request); send it back in If-None-Match.',
    schema: {
      type: 'string',
      pattern: '^"[A-Za-z0-9_-]{27}"$',
      example: '"3q2k0cJ3m0t4Q1uV8Zb6aW9yXe5"',
    },
  },
  CacheControl: {
    description:
      'Public caching: the answer never changes for this request within one version of the service.',
    schema: { type: 'string' },
  },
} as const;
const cacheHeaderRefs = {
  etag: { $ref: '#/components/headers/ETag' },
  'cache-control': { $ref: '#/components/headers/CacheControl' },
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const idOf = (schema: z.ZodType | undefined): string | undefined => schema?.meta()?.id as string | undefined;

/** The path of the table log operation, whose `id` parameter the event stream shares. */
const TABLE_ROLLS_PATH = '/v1/tables/{id}/rolls';

/**
 * An example stream: the opening comment and retry hint, then one entry, whose data is a receipt
 * at a table (the Receipt example with a table, its sequence number and the previous entry's hash).
 */
const EVENTS_EXAMPLE = [
  ': fairdice table events',
  'retry: 2000',
  '',
  'id: 3',
  'event: roll',
  `data: ${JSON.stringify({
    ...receiptExample,
    table: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s',
    seq: 3,
    prev: '5f1e7c2a9b3d4e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f',
  })}`,
  '',
  '',
].join('\n');

/** The codes the event stream answers before it starts (src/http/table-events.ts), and any request's. */
const TABLE_EVENTS_ERRORS: readonly ApiErrorCode[] = [
  'invalid_request',
  'not_found',
  'rate_limited',
  'too_many_streams',
  'internal_error',
  'unavailable',
];

/**
 * The entry of GET /v1/tables/{id}/events, a hand-written fastify route (a stream is no
 * request/response operation of the table): a `text/event-stream` of receipts, resumable with
 * Last-Event-ID, and the errors it answers before the stream starts (docs/trust.md, "Live rolls").
 */
function tableEventsOperation(idParameter: unknown, bodyLimitBytes: number) {
  const error = (status: ErrorStatus, body: ErrorBody) => ({
    description: statusDescription(status, TABLE_EVENTS_ERRORS),
    content: {
      'application/json': { schema: responseSchemaOf(status, TABLE_EVENTS_ERRORS), example: body },
    },
  });
  const resume = 'Answers the entries after this sequence number first, then new ones.';
  return {
    operationId: 'tableEvents',
    summary: "A table's new rolls, live (Server-Sent Events)",
    description:
      'A `text/event-stream`: first the entries after `Last-Event-ID` (the header a browser ' +
      '`EventSource` sends when it reconnects) or after `after` (default 0), then every new entry ' +
      'as it is made, by any instance. Each event is one entry: `id:` its sequence number, ' +
      '`event: roll`, `data:` the receipt as one line of JSON (the Receipt schema, as GET ' +
      `/v1/rolls/{rollId} returns it). A comment line every ${HEARTBEAT_MS / 1000} s keeps a quiet ` +
      'stream open. Event streams open at once per address are capped ' +
      `(${LIMITS.sseConnectionsPerAddress} by default, SSE_CONNECTIONS_PER_ADDRESS).`,
    tags: ['tables'],
    parameters: [
      idParameter,
      {
        in: 'header',
        name: 'Last-Event-ID',
        required: false,
        description: `The \`id:\` of the last event received. ${resume} Takes precedence over \`after\`.`,
        schema: { type: 'string', pattern: '^\\d{1,9}$', example: '3' },
      },
      {
        in: 'query',
        name: 'after',
        required: false,
        description: `A sequence number. ${resume}`,
        schema: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
      },
    ],
    responses: {
      '200': {
        description: 'The stream; it ends when the client or the service closes it.',
        content: {
          'text/event-stream': {
            schema: {
              type: 'string',
              description: 'Server-Sent Events: `id: <seq>`, `event: roll`, `data: <Receipt as JSON>`.',
            },
            example: EVENTS_EXAMPLE,
          },
        },
      },
      '400': error(400, new DiceError('invalid_request', BAD_RESUME_MESSAGE).toBody()),
      '404': error(404, new DiceError('not_found', MESSAGES.tableNotFound).toBody()),
      '429': error(
        429,
        new DiceError('too_many_streams', MESSAGES.tooManyStreams(LIMITS.sseConnectionsPerAddress)).toBody(),
      ),
      '500': error(500, exampleOf(500, bodyLimitBytes, undefined)),
      '503': error(503, exampleOf(503, bodyLimitBytes, undefined)),
    },
  };
}

/**
 * Builds the document of `router`, which must be built from `operations` (src/api/router.ts);
 * `bodyLimitBytes` goes into the 413 example.
 */
export function buildOpenApiDocument(
  router: AnyRouter,
  operations: Readonly<Record<string, Operation>>,
  bodyLimitBytes: number,
): OpenApiDocument {
  const entries = operationList(operations);
  const statuses = statusesOf(entries.flatMap((entry) => entry.errors));
  const named = entries.flatMap((entry) => [entry.input, entry.output]).filter((schema) => idOf(schema));
  // Codes with a schema of their own, where an operation answers them (too_complex).
  const ownCodes = [...new Set(entries.flatMap((entry) => entry.errors))].filter(
    (code) => CODE_SCHEMAS[code] !== undefined,
  );
  const document = generateOpenApiDocument(router, {
    title: PACKAGE_NAME,
    description:
      'Rolls dice from a formula and returns every die rolled, which ones counted, and the total. ' +
      'No key, no signup, no account. AI clients can use the same operations as MCP tools: ' +
      'Streamable HTTP at /mcp (docs/mcp.md).',
    version: VERSION,
    openApiVersion: '3.1.0',
    baseUrl: '/',
    securitySchemes: {},
    defs: Object.fromEntries([
      ...named.map((schema) => [idOf(schema)!, schema!]),
      ...statuses.map((status) => [ERROR_STATUSES[status].schema, errorSchemaOf(status)]),
      ...ownCodes.map((code) => [CODE_SCHEMAS[code]!.schema, codeSchemaOf(code)]),
    ]),
  });

  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  // The component's example: the first operation with an input, refused for an empty one.
  const firstInput = entries.find((entry) => entry.input !== undefined)?.input;
  for (const status of statuses) {
    const component = schemas[ERROR_STATUSES[status].schema];
    if (component !== undefined) component.example = exampleOf(status, bodyLimitBytes, firstInput);
  }
  for (const code of ownCodes) {
    const component = schemas[CODE_SCHEMAS[code]!.schema];
    if (component !== undefined) component.example = codeExampleOf(code);
  }
  // The library's own error components describe its body, not ours.
  for (const id of Object.keys(schemas)) if (id.startsWith('error.')) delete schemas[id];
  if (document.components !== undefined) delete document.components.securitySchemes;
  delete (document as { security?: unknown }).security;

  for (const entry of entries) {
    const item = document.paths?.[entry.path] as Record<string, DocumentOperation> | undefined;
    const op = item?.[entry.method.toLowerCase()];
    if (op === undefined) continue;
    delete op.security;
    const body = op.requestBody?.content?.['application/json'];
    const inputId = idOf(entry.input);
    if (body !== undefined && inputId !== undefined) body.schema = ref(inputId);
    const responses = op.responses ?? {};
    for (const [key, response] of Object.entries(responses)) {
      const status = Number(key) as ErrorStatus;
      if (!(status in ERROR_STATUSES)) continue;
      // A new object: trpc-to-openapi gives every operation the same response object per status.
      responses[key] = {
        ...response,
        description: statusDescription(status, entry.errors),
        content: {
          'application/json': {
            schema: responseSchemaOf(status, entry.errors),
            example: exampleOf(status, bodyLimitBytes, entry.input),
          },
        },
      };
    }
  }
  // Answers that never change for their input: the validator on the 200, and the 304.
  let cached = false;
  for (const entry of entries) {
    if (entry.cache === undefined || entry.method !== 'GET') continue;
    const op = (document.paths?.[entry.path] as Record<string, DocumentOperation> | undefined)?.get;
    if (op === undefined) continue;
    cached = true;
    const maxAge = `public, max-age=${entry.cache.maxAgeSeconds}`;
    op.parameters = [
      ...(op.parameters ?? []),
      {
        in: 'header',
        name: 'If-None-Match',
        required: false,
        description:
          'The ETag of an answer already held: when it still matches, 304 with no body, before any work.',
        schema: { type: 'string' },
      },
    ];
    const ok = op.responses?.['200'];
    if (ok !== undefined) {
      ok.headers = { ...ok.headers, ...cacheHeaderRefs };
      ok.description = `${ok.description ?? 'Successful response'}; carries ETag and \`Cache-Control: ${maxAge}\`.`;
    }
    op.responses = {
      ...op.responses,
      '304': {
        description: `Not Modified: If-None-Match named this answer's ETag. No body; ETag and \`Cache-Control: ${maxAge}\` again.`,
        headers: { ...cacheHeaderRefs },
      },
    };
  }
  if (cached && document.components !== undefined) {
    const components = document.components as { headers?: Record<string, unknown> };
    components.headers = { ...components.headers, ...CACHE_HEADERS };
  }
  // The event stream, next to the table log whose `id` it takes (absent with the log).
  const rolls = document.paths?.[TABLE_ROLLS_PATH]?.get as { parameters?: { in: string; name: string }[] };
  const idParameter = rolls?.parameters?.find(
    (parameter) => parameter.in === 'path' && parameter.name === 'id',
  );
  if (document.paths !== undefined && idParameter !== undefined)
    (document.paths as Record<string, unknown>)[TABLE_EVENTS_PATH] = {
      get: tableEventsOperation(idParameter, bodyLimitBytes),
    };
  return declareHttpBehaviour(document, {
    codes: Object.keys(ERROR_CODES),
    notFound: new DiceError('not_found', MESSAGES.notFound).toBody(),
  });
}

export interface OpenApiRouteOptions {
  /** Where the document is served, e.g. `/openapi.json`. */
  url: string;
  /** The router built from `operations` (src/api/router.ts). */
  router: AnyRouter;
  operations: Readonly<Record<string, Operation>>;
  /** BODY_LIMIT_BYTES, for the 413 example. */
  bodyLimitBytes: number;
}

async function openApiRoute(app: FastifyInstance, options: OpenApiRouteOptions): Promise<void> {
  // Built once, at start-up: the document never changes while the process runs.
  const document = JSON.stringify(
    buildOpenApiDocument(options.router, options.operations, options.bodyLimitBytes),
  );
  app.get(options.url, (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
}

/** The OpenAPI document, served as JSON at `url`. */
export const openApiPlugin = fp(openApiRoute, {
  name: 'fairdice-openapi',
  fastify: '5.x',
  encapsulate: true,
});
