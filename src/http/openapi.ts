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
import { PACKAGE_NAME, VERSION } from '../version.js';
import { declareHttpBehaviour } from './openapi-http.js';

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

/** The body schema of one error status, whose `code` enum lists exactly the codes it carries. */
function errorSchemaOf(status: ErrorStatus): z.ZodType {
  const [first, ...rest] = codesOf(status);
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
  }
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
  const document = generateOpenApiDocument(router, {
    title: PACKAGE_NAME,
    description:
      'Rolls dice from a formula and returns every die rolled, which ones counted, and the total. ' +
      'No key, no signup, no account.',
    version: VERSION,
    openApiVersion: '3.1.0',
    baseUrl: '/',
    securitySchemes: {},
    defs: Object.fromEntries([
      ...named.map((schema) => [idOf(schema)!, schema!]),
      ...statuses.map((status) => [ERROR_STATUSES[status].schema, errorSchemaOf(status)]),
    ]),
  });

  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  // The component's example: the first operation with an input, refused for an empty one.
  const firstInput = entries.find((entry) => entry.input !== undefined)?.input;
  for (const status of statuses) {
    const component = schemas[ERROR_STATUSES[status].schema];
    if (component !== undefined) component.example = exampleOf(status, bodyLimitBytes, firstInput);
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
      responses[key] = {
        ...response,
        content: {
          'application/json': {
            schema: ref(ERROR_STATUSES[status].schema),
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
