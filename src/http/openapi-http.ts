// What the HTTP layer adds to every answer, declared in the OpenAPI document: the rate-limit
// headers on every response of an operation (and retry-after on a 429), the 404 of a path that
// is no operation, one ApiError schema that every error body fits, and where the service is.
// Applied to the document trpc-to-openapi generates (src/http/openapi.ts); see docs/api.md.

/** The parts of the document this module reads and writes. */
interface Document {
  servers?: unknown[];
  paths?: Record<
    string,
    Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>
  >;
  components?: {
    schemas?: Record<string, unknown>;
    headers?: Record<string, unknown>;
    responses?: Record<string, unknown>;
  };
}

export interface HttpDeclarations {
  /** Every error code the service answers with. */
  codes: readonly string[];
  /** The body of the 404 a path that is no operation gets. */
  notFound: { error: { code: string; message: string } };
}

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** The headers of the rate limit, by the name every response declares them under. */
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': integerHeader('Requests allowed per window for the caller’s address.'),
  'x-ratelimit-remaining': integerHeader('Requests left in the current window.'),
  'x-ratelimit-reset': integerHeader('Seconds until the current window restarts.'),
} as const;

/**
 * The headers of the throws budget per address (docs/operations.md#what-one-address-can-cost), on
 * the answers of the rolling operations once their roll was let in or refused by it.
 */
export const THROWS_HEADERS = {
  'x-ratelimit-throws-limit': integerHeader(
    'Throws the caller’s address may make at once (its throws budget).',
  ),
  'x-ratelimit-throws-remaining': integerHeader('Throws left in that budget after this request.'),
  'x-ratelimit-throws-reset': integerHeader('Seconds until that budget is full again.'),
} as const;

/**
 * The headers of the /v1/stats budget per address (docs/operations.md#what-one-address-can-cost),
 * in milliseconds of worker computing time, on the answers of the stats operations.
 */
export const STATS_HEADERS = {
  'x-ratelimit-stats-limit': integerHeader(
    'Milliseconds of exact-distribution computing the caller’s address may use at once (its stats budget).',
  ),
  'x-ratelimit-stats-remaining': integerHeader('Milliseconds left in that budget after this request.'),
  'x-ratelimit-stats-reset': integerHeader('Seconds until that budget is full again.'),
} as const;

/** The paths of the stats operations, whose 200, 429 and 503 carry STATS_HEADERS. */
const STATS_PATHS = new Set(['/v1/stats']);

/** The paths of the rolling operations, whose answers carry THROWS_HEADERS. */
const ROLLING_PATHS = new Set(['/v1/roll', '/v1/roll/batch']);

export const RETRY_AFTER_HEADER = integerHeader('Seconds to wait before the next request is counted again.');

/** Component names, so a response refers to a header instead of repeating it. */
const HEADER_COMPONENTS: Readonly<Record<string, string>> = {
  'x-ratelimit-limit': 'RateLimitLimit',
  'x-ratelimit-remaining': 'RateLimitRemaining',
  'x-ratelimit-reset': 'RateLimitReset',
  'x-ratelimit-throws-limit': 'RateLimitThrowsLimit',
  'x-ratelimit-throws-remaining': 'RateLimitThrowsRemaining',
  'x-ratelimit-throws-reset': 'RateLimitThrowsReset',
  'x-ratelimit-stats-limit': 'RateLimitStatsLimit',
  'x-ratelimit-stats-remaining': 'RateLimitStatsRemaining',
  'x-ratelimit-stats-reset': 'RateLimitStatsReset',
  'retry-after': 'RetryAfter',
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${HEADER_COMPONENTS[name]}` });

/**
 * The servers: the first, relative, is the server that serves the document (what /docs tries
 * requests against); the second names any deployment with its scheme and host as variables.
 */
export const SERVERS = [
  { url: '/', description: 'The server that serves this document.' },
  {
    url: '{scheme}://{host}',
    description: 'A fairdice deployment: its scheme and its host with the port.',
    variables: {
      scheme: { enum: ['http', 'https'], default: 'http' },
      host: {
        default: '127.0.0.1:3000',
        description: 'Host and port; the service listens on 127.0.0.1:3000 by default.',
      },
    },
  },
];

/** Adds the declarations to `document`, in place; returns it. */
export function declareHttpBehaviour<T>(document: T, declarations: HttpDeclarations): T {
  const doc = document as Document;
  doc.servers = SERVERS;
  doc.components ??= {};
  const components = doc.components;
  components.headers = {
    ...components.headers,
    ...Object.fromEntries(
      Object.entries({
        ...RATE_LIMIT_HEADERS,
        ...THROWS_HEADERS,
        ...STATS_HEADERS,
        'retry-after': RETRY_AFTER_HEADER,
      }).map(([name, header]) => [HEADER_COMPONENTS[name], header]),
    ),
  };
  components.schemas = {
    ...components.schemas,
    ApiError: {
      type: 'object',
      description:
        'The body of every error response. Each status has its own schema listing exactly the codes it carries.',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: {
              type: 'string',
              enum: [...declarations.codes],
              description: 'Stable code; callers match on it.',
            },
            message: {
              type: 'string',
              description: 'Human-readable, may be reworded; safe to show on a page.',
            },
          },
          required: ['code', 'message'],
          additionalProperties: false,
        },
      },
      required: ['error'],
      additionalProperties: false,
      example: declarations.notFound,
    },
  };
  components.responses = {
    ...components.responses,
    NotFound: {
      description: 'A path that is no operation of this document (any method): 404 not_found.',
      headers: Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, headerRef(name)])),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ApiError' },
          example: declarations.notFound,
        },
      },
    },
  };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const throws = ROLLING_PATHS.has(path) ? Object.keys(THROWS_HEADERS) : [];
    const stats = STATS_PATHS.has(path) ? Object.keys(STATS_HEADERS) : [];
    for (const operation of Object.values(item)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const names = [
          ...Object.keys(RATE_LIMIT_HEADERS),
          ...(status === '200' || status === '400' || status === '429' ? throws : []),
          ...(status === '200' || status === '429' || status === '503' ? stats : []),
          ...(status === '429' ? ['retry-after'] : []),
        ];
        response.headers = {
          ...response.headers,
          ...Object.fromEntries(names.map((name) => [name, headerRef(name)])),
        };
      }
    }
  }
  return document;
}
