// The OpenAPI 3.1 document, generated once at start-up by trpc-to-openapi from the router built
// off the operation table, then post-processed: our error schemas (one per status, built from
// src/errors.ts, exact code enum, a real response as example) replace the library's, request
// bodies point at their named components, and no security appears anywhere.
import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { z } from 'zod';
import { describeIssues } from '../api/input.js';
import { type Operation, operationList } from '../api/operations.js';
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
} from '../errors.js';
import { LIMITS } from '../limits.js';
import { checkDistribution } from '../stats/distribution.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { declareHttpBehaviour } from './openapi-http.js';

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

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface DocumentOperation {
  security?: unknown;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const idOf = (schema: z.ZodType | undefined): string | undefined => schema?.meta()?.id as string | undefined;

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
  const statuses = [...new Set(entries.flatMap((entry) => entry.errors))].sort();
  const named = entries.flatMap((entry) => [entry.input, entry.output]).filter((schema) => idOf(schema));
  const ownCodes = [...new Set(entries.flatMap((entry) => entry.refuses ?? []))];
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
      // A new object: operations declared with the same errors share one response object.
      // A 400 may also be one of the operation's own refusals, each with its own schema.
      const own = status === 400 ? (entry.refuses ?? []).map((code) => ref(CODE_SCHEMAS[code]!.schema)) : [];
      const schema = ref(ERROR_STATUSES[status].schema);
      responses[key] = {
        ...response,
        content: {
          'application/json': {
            schema: own.length === 0 ? schema : { anyOf: [schema, ...own] },
            example: exampleOf(status, bodyLimitBytes, entry.input),
          },
        },
      };
    }
  }
  return declareHttpBehaviour(document, {
    codes: Object.keys(ERROR_CODES),
    notFound: new DiceError('not_found', MESSAGES.notFound).toBody(),
  });
}
