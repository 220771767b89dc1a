// The OpenAPI 3.1 document, generated once at start-up by trpc-to-openapi from the router's meta
// and zod schemas, then post-processed: our error schemas (one per status, exact code enum, a
// real response as example) replace the library's, request bodies point at their named
// components, and no security appears anywhere.
import type { AnyRouter } from '@trpc/server';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { z } from 'zod';
import {
  type ApiErrorBody,
  apiError,
  describeIssues,
  errorBodyOf,
  INTERNAL_ERROR_MESSAGE,
  payloadTooLargeMessage,
  RATE_LIMITED_MESSAGE,
} from '../api/errors.js';
import {
  AdvantageStateSchema,
  BatchRollRequestSchema,
  BatchRollResponseSchema,
  DieGroupSchema,
  ERROR_SCHEMAS,
  HealthResponseSchema,
  RollQuerySchema,
  RollRequestSchema,
  RollResponseSchema,
} from '../api/schemas.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { restOperations } from './bridge.js';

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

export type ErrorSchemaStatus = keyof typeof ERROR_SCHEMAS;

/**
 * A real response body for each documented error status. The 400 is what the operation whose
 * input schema is `input` answers to an empty input (by default GET /v1/roll without a
 * formula); the others are the only body their status ever has.
 */
export function errorExamples(
  bodyLimitBytes: number,
  input: z.ZodType = RollQuerySchema,
): Record<ErrorSchemaStatus, { error: ApiErrorBody }> {
  const empty = input.safeParse({});
  const issues = empty.success ? [] : empty.error.issues;
  return {
    400: errorBodyOf(apiError('invalid_request', describeIssues(issues, { value: {} }))),
    413: errorBodyOf(apiError('payload_too_large', payloadTooLargeMessage(bodyLimitBytes))),
    429: errorBodyOf(apiError('rate_limited', RATE_LIMITED_MESSAGE)),
    500: errorBodyOf(apiError('internal_error', INTERNAL_ERROR_MESSAGE)),
  };
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
}
interface Operation {
  security?: unknown;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Builds the document for `router`; `bodyLimitBytes` goes into the 413 example. */
export function buildOpenApiDocument(router: AnyRouter, bodyLimitBytes: number): OpenApiDocument {
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
    defs: {
      AdvantageState: AdvantageStateSchema,
      RollRequest: RollRequestSchema,
      RollResponse: RollResponseSchema,
      DieGroup: DieGroupSchema,
      BatchRollRequest: BatchRollRequestSchema,
      BatchRollResponse: BatchRollResponseSchema,
      HealthResponse: HealthResponseSchema,
      ...Object.fromEntries(
        Object.values(ERROR_SCHEMAS).map((schema) => [schema.meta()?.id as string, schema]),
      ),
    },
  });

  const schemas = (document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>;
  const examples = errorExamples(bodyLimitBytes);
  for (const [status, schema] of Object.entries(ERROR_SCHEMAS)) {
    const id = schema.meta()?.id as string;
    const component = schemas[id];
    if (component !== undefined) component.example = examples[Number(status) as ErrorSchemaStatus];
  }
  // The library's own error components describe its body, not ours.
  for (const id of Object.keys(schemas)) if (id.startsWith('error.')) delete schemas[id];
  if (document.components !== undefined) delete document.components.securitySchemes;
  delete (document as { security?: unknown }).security;

  for (const operation of restOperations(router)) {
    const item = document.paths?.[operation.path] as Record<string, Operation> | undefined;
    const op = item?.[operation.method.toLowerCase()];
    if (op === undefined) continue;
    delete op.security;
    const body = op.requestBody?.content?.['application/json'];
    if (body !== undefined && operation.inputId !== undefined) body.schema = ref(operation.inputId);
    const own = operation.input === undefined ? examples : errorExamples(bodyLimitBytes, operation.input);
    const responses = op.responses ?? {};
    for (const [status, response] of Object.entries(responses)) {
      const schema = ERROR_SCHEMAS[Number(status) as ErrorSchemaStatus];
      if (schema === undefined) continue;
      // A new object: operations declared with the same errorResponses share one response object.
      responses[status] = {
        ...response,
        content: {
          'application/json': {
            schema: ref(schema.meta()?.id as string),
            example: own[Number(status) as ErrorSchemaStatus],
          },
        },
      };
    }
  }
  return document;
}
