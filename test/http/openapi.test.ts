// The OpenAPI document: a valid 3.1 document generated from the router, with our error schemas
// (exact code enums, examples equal to real responses), the limits, named components and no
// security; and the REST routes, the tRPC procedures and the document list exactly the
// operations of the table.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS, type Operation, operationList } from '../../src/api/operations.js';
import { routerOf } from '../../src/api/router.js';
import { ReceiptSchema } from '../../src/api/schemas.js';
import {
  type ApiErrorCode,
  CODE_SCHEMAS,
  codesOf,
  ERROR_CODES,
  ERROR_STATUSES,
  type ErrorStatus,
  statusDescription,
  statusesOf,
} from '../../src/errors.js';
import { buildOpenApiDocument } from '../../src/http/openapi.js';
import { LIMITS } from '../../src/limits.js';
import { VERSION } from '../../src/version.js';
import { expectError, listen, logCollector, makeApp } from '../support/app.js';
import { type EventStream, openEvents } from '../support/events.js';
import { freePort } from '../support/http.js';
import { failingSource } from '../support/sources.js';

type Json = Record<string, unknown>;
interface Doc {
  openapi: string;
  info: { version: string; title: string };
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes?: unknown };
}

/** The roll operations and their error statuses: a receipt or a table adds the store's (docs/trust.md). */
const SIGNED = [400, 404, 409, 413, 422, 429, 500, 503] as const;
const ROLL_OPERATIONS = [
  // A GET has no body: never 413.
  ['get', '/v1/roll', [400, 429, 500, 503]],
  ['post', '/v1/roll', SIGNED],
  ['post', '/v1/roll/batch', SIGNED],
] as const;

/** The operation at `method path`, failing the test when the document lacks it. */
function operationOf(doc: Doc, method: string, path: string): Json {
  const operation = doc.paths[path]?.[method];
  if (operation === undefined) throw new Error(`the document has no ${method} ${path}`);
  return operation;
}

function findKey(value: unknown, key: string): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (key in value) return true;
  return Object.values(value).some((child) => findKey(child, key));
}

interface Response {
  description: string;
  content: Record<string, { schema: Json; example?: unknown }>;
}

/**
 * The codes an error response documents: those of the component it points at, narrowed by an
 * `allOf` to the operation's own, and those of the codes with a schema of their own beside it.
 */
function documentedCodes(doc: Doc, response: Response): string[] {
  const enumOf = (schema: Json): string[] =>
    (schema as { properties: { error: { properties: { code: { enum: string[] } } } } }).properties.error
      .properties.code.enum;
  const resolve = (schema: Json): string[] => {
    if (typeof schema.$ref === 'string') {
      return enumOf(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!);
    }
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).flatMap(resolve);
    if (Array.isArray(schema.allOf)) {
      const [component, narrowing] = schema.allOf as [Json, Json];
      const narrowed = enumOf(narrowing);
      // A narrowing names only codes the component has.
      for (const code of narrowed) expect(resolve(component)).toContain(code);
      return narrowed;
    }
    throw new Error(`an error schema of no known form: ${JSON.stringify(schema)}`);
  };
  const codes = resolve(response.content['application/json']!.schema);
  return (Object.keys(ERROR_CODES) as string[]).filter((code) => codes.includes(code));
}

describe('GET /openapi.json', () => {
  let app: FastifyInstance;
  let doc: Doc;
  beforeAll(async () => {
    app = await makeApp();
    const response = await app.inject({ url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    doc = response.json() as Doc;
  });
  afterAll(() => app.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(doc) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(VERSION);
  });

  it('declares no security anywhere', () => {
    expect(findKey(doc, 'security')).toBe(false);
    expect(findKey(doc, 'securitySchemes')).toBe(false);
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        expect(Object.keys(operation.responses as Json)).not.toContain('401');
        expect(Object.keys(operation.responses as Json)).not.toContain('403');
      }
    }
  });

  it('names the components and drops the library error schemas', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'RollRequest',
      'RollResponse',
      'DieGroup',
      'BatchRollRequest',
      'BatchRollResponse',
      'HealthResponse',
      'AdvantageState',
      'BadRequestError',
      'PayloadTooLargeError',
      'RateLimitedError',
      'InternalError',
    ]) {
      expect(names).toContain(name);
    }
    expect(names.filter((name) => name.startsWith('error.'))).toEqual([]);
  });

  it('shows the limits in the schemas', () => {
    const request = doc.components.schemas.RollRequest as { properties: Record<string, Json> };
    expect(request.properties.formula).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(request.properties.bonuses).toMatchObject({ maxItems: 20 });
    expect(JSON.stringify(request.properties.bonuses)).toContain('"maxLength":200');
    expect(request.properties.tags).toMatchObject({
      maxItems: 20,
      items: { pattern: '^[a-z]+$', maxLength: 32 },
    });
    const batch = doc.components.schemas.BatchRollRequest as { properties: Record<string, Json> };
    expect(batch.properties.rolls).toMatchObject({ minItems: 1, maxItems: 20 });
    const query = doc.paths['/v1/roll']?.get?.parameters as Array<{
      name: string;
      schema: Json;
      required?: boolean;
    }>;
    expect(query.find((p) => p.name === 'formula')).toMatchObject({
      required: true,
      schema: { maxLength: 200 },
    });
  });

  it('points request bodies and results at the named components', () => {
    const body = (method: string, path: string) =>
      (operationOf(doc, method, path).requestBody as { content: Record<string, { schema: Json }> }).content[
        'application/json'
      ]?.schema;
    expect(body('post', '/v1/roll')).toEqual({ $ref: '#/components/schemas/RollRequest' });
    expect(body('post', '/v1/roll/batch')).toEqual({ $ref: '#/components/schemas/BatchRollRequest' });
    const ok = (method: string, path: string) =>
      (
        operationOf(doc, method, path).responses as Record<
          string,
          { content: Record<string, { schema: Json }> }
        >
      )['200']?.content['application/json']?.schema;
    expect(ok('get', '/v1/roll')).toEqual({ $ref: '#/components/schemas/RollResponse' });
    expect(ok('post', '/v1/roll/batch')).toEqual({ $ref: '#/components/schemas/BatchRollResponse' });
    expect(ok('get', '/v1/health')).toEqual({ $ref: '#/components/schemas/HealthResponse' });
  });

  it.each(ROLL_OPERATIONS)(
    '%s %s documents 200 and its error statuses, each error with its own schema',
    (method, path, statuses) => {
      const responses = operationOf(doc, method, path).responses as Record<string, Response>;
      expect(Object.keys(responses).sort()).toEqual(['200', ...statuses.map(String)]);
      for (const status of statuses) {
        const schema = responses[String(status)]?.content['application/json']?.schema;
        // Each points at its status's component (narrowed where the operation answers fewer codes).
        const id = ERROR_STATUSES[status].schema;
        expect(JSON.stringify(schema)).toContain(`"#/components/schemas/${id}"`);
        const component = doc.components.schemas[id] as {
          properties: { error: { properties: { code: { enum: string[] } } } };
        };
        // A code with a schema of its own (too_complex) is documented where it can happen.
        expect(component.properties.error.properties.code.enum).toEqual(
          codesOf(status).filter((code) => CODE_SCHEMAS[code] === undefined),
        );
      }
    },
  );

  it('GET /v1/roll documents exactly the codes it answers: rate_limited alone on its 429', () => {
    const responses = operationOf(doc, 'get', '/v1/roll').responses as Record<string, Response>;
    expect(documentedCodes(doc, responses['429']!)).toEqual(['rate_limited']);
    expect(responses['429']!.description).toBe('Too many requests from this address.');
    expect(documentedCodes(doc, responses['400']!)).toEqual([
      'invalid_request',
      'invalid_formula',
      'too_many_dice',
    ]);
  });

  it("documents, for each operation and status, exactly the operation's codes of the table", () => {
    for (const entry of operationList()) {
      const operation = operationOf(doc, entry.method.toLowerCase(), entry.path);
      const responses = operation.responses as Record<string, Response>;
      const errorStatuses = Object.keys(responses)
        .map(Number)
        .filter((status) => status >= 400);
      expect(errorStatuses, `${entry.method} ${entry.path}`).toEqual(statusesOf(entry.errors));
      for (const status of errorStatuses) {
        const expected = codesOf(status as ErrorStatus).filter((code) => entry.errors.includes(code));
        const response = responses[String(status)]!;
        expect(documentedCodes(doc, response), `${entry.method} ${entry.path} ${status}`).toEqual(expected);
        expect(response.description).toBe(statusDescription(status as ErrorStatus, entry.errors));
        // The example is one of them.
        const example = response.content['application/json']?.example as { error: { code: ApiErrorCode } };
        expect(expected).toContain(example.error.code);
      }
    }
    // The event stream, written by hand: its 429 is the rate limit's or the stream cap's.
    const events = operationOf(doc, 'get', '/v1/tables/{id}/events').responses as Record<string, Response>;
    expect(documentedCodes(doc, events['429']!)).toEqual(['rate_limited', 'too_many_streams']);
    expect(documentedCodes(doc, events['400']!)).toEqual(['invalid_request']);
  });

  it('documents exactly the operations of the table, and the app serves each on REST and tRPC', async () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const table = Object.values(OPERATIONS).map((op) => `${op.method} ${op.path}`);
    // Plus the one hand-written route the document describes: the table event stream.
    expect(documented.sort()).toEqual([...table, 'GET /v1/tables/{id}/events'].sort());
    expect(table.sort()).toEqual([
      'GET /.well-known/jwks.json',
      'GET /v1/health',
      'GET /v1/roll',
      'GET /v1/rolls/{rollId}',
      'GET /v1/stats',
      'GET /v1/tables/{id}/report',
      'GET /v1/tables/{id}/rolls',
      'POST /v1/receipts/verify',
      'POST /v1/roll',
      'POST /v1/roll/batch',
      'POST /v1/stats',
      'POST /v1/stats/batch',
      'POST /v1/tables',
    ]);
    for (const [name, op] of Object.entries(OPERATIONS)) {
      const url = op.path.replace(/\{([^}]+)\}/g, ':$1');
      expect(app.hasRoute({ method: op.method, url }), `${op.method} ${op.path}`).toBe(true);
      // A tRPC call of the wrong kind is refused as such (not 404): the procedure exists, of its kind.
      const wrongKind = await app.inject({
        method: op.kind === 'query' ? 'POST' : 'GET',
        url: `/trpc/${name}`,
        ...(op.kind === 'query' ? { headers: { 'content-type': 'application/json' }, payload: '{}' } : {}),
      });
      expect(wrongKind.statusCode, `${name}: ${wrongKind.body}`).not.toBe(404);
      expect(wrongKind.statusCode).not.toBe(200);
    }
    const unknown = await app.inject({ url: '/trpc/nope' });
    expect(unknown.statusCode).toBe(404);
  });
});

describe("the operation table's error codes", () => {
  it('are consistent with src/errors.ts: known, distinct, every code somewhere', async () => {
    const answered = new Set<string>();
    for (const entry of operationList()) {
      const where = `${entry.method} ${entry.path}`;
      for (const code of entry.errors) expect(Object.keys(ERROR_CODES), where).toContain(code);
      expect(new Set(entry.errors).size, where).toBe(entry.errors.length);
      // Every route is counted by the rate limit (docs/operations.md#rate-limiting).
      expect(entry.errors, where).toContain('rate_limited');
      // A GET takes no body (fastify does not read one): never 413; a POST with input may be.
      if (entry.method === 'GET') expect(entry.errors, where).not.toContain('payload_too_large');
      else if (entry.input !== undefined) expect(entry.errors, where).toContain('payload_too_large');
      for (const code of entry.errors) answered.add(code);
    }
    // What the table leaves out, the event stream answers (its 429 when it holds too many).
    const app = await makeApp();
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      const events = operationOf(doc, 'get', '/v1/tables/{id}/events').responses as Record<string, Response>;
      for (const [status, response] of Object.entries(events)) {
        if (Number(status) >= 400) for (const code of documentedCodes(doc, response)) answered.add(code);
      }
    } finally {
      await app.close();
    }
    expect([...answered].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('GET /v1/roll answers every code it documents', async () => {
    const app = await makeApp({ rateLimitMax: 8 }, { random: failingSource() });
    const ones = await makeApp({}, { random: { die: () => 1 } });
    // A store that cannot be reached: a Redis nobody listens on (a receipt is 503 unavailable).
    const noStore = await makeApp({
      redisUrl: `redis://127.0.0.1:${await freePort()}`,
      redisStartupWaitMs: 0,
    });
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      const responses = operationOf(doc, 'get', '/v1/roll').responses as Record<string, Response>;
      const documented = Object.entries(responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([, response]) => documentedCodes(doc, response));
      const answers = {
        invalid_request: await app.inject({ url: '/v1/roll' }),
        invalid_formula: await app.inject({ url: '/v1/roll?formula=2d' }),
        // Every die on 1, rerolled while below the largest face: past the throws per request.
        too_many_dice: await ones.inject({ url: '/v1/roll?formula=1000d4294967296r%3C4294967295' }),
        internal_error: await app.inject({ url: '/v1/roll?formula=1d20' }),
        unavailable: await noStore.inject({ url: '/v1/roll?formula=1d20&receipt=true' }),
        rate_limited: await (async () => {
          for (let i = 0; i < 8; i++) await app.inject({ url: '/v1/health' });
          return app.inject({ url: '/v1/roll?formula=1d20' });
        })(),
      };
      expect(Object.keys(answers).sort()).toEqual([...documented].sort());
      for (const [code, answer] of Object.entries(answers)) {
        expectError(answer, ERROR_CODES[code as ApiErrorCode], code);
      }
    } finally {
      await Promise.all([app.close(), ones.close(), noStore.close()]);
    }
  });
});

describe('every documented error example is a real response', () => {
  /** The example of GET /v1/roll's `status`, or of another roll operation's (a GET never answers 413). */
  const exampleOf = (doc: Doc, status: number, method = 'get') =>
    (
      operationOf(doc, method, '/v1/roll').responses as Record<
        string,
        { content: Record<string, { example: unknown }> }
      >
    )[String(status)]?.content['application/json']?.example;

  it('400, 413 and 429 examples equal what the service answers', async () => {
    const app = await makeApp({ rateLimitMax: 3 });
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      const missing = await app.inject({ url: '/v1/roll' });
      expectError(missing, 400, 'invalid_request');
      expect(missing.json()).toEqual(exampleOf(doc, 400));
      const big = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        headers: { 'content-type': 'application/json' },
        payload: `{"formula":"${'1'.repeat(9000)}"}`,
      });
      expectError(big, 413, 'payload_too_large');
      expect(big.json()).toEqual(exampleOf(doc, 413, 'post'));
      const limited = await app.inject({ url: '/v1/health' });
      expectError(limited, 429, 'rate_limited');
      expect(limited.json()).toEqual(exampleOf(doc, 429));
      for (const [status, response] of [
        [400, missing],
        [413, big],
        [429, limited],
      ] as const) {
        expect(
          ERROR_CODES[(response.json() as { error: { code: keyof typeof ERROR_CODES } }).error.code],
        ).toBe(status);
        expect(doc.components.schemas[ERROR_STATUSES[status].schema]?.example).toEqual(response.json());
      }
    } finally {
      await app.close();
    }
  });

  it("each roll operation's 400 example is what that operation answers to an empty input", async () => {
    const app = await makeApp();
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      for (const [method, url] of [
        ['get', '/v1/roll'],
        ['post', '/v1/roll'],
        ['post', '/v1/roll/batch'],
      ] as const) {
        const real =
          method === 'get'
            ? await app.inject({ url })
            : await app.inject({
                method: 'POST',
                url,
                headers: { 'content-type': 'application/json' },
                payload: '{}',
              });
        expectError(real, 400, 'invalid_request');
        const responses = operationOf(doc, method, url).responses as Record<
          string,
          { content: Record<string, { example: unknown }> }
        >;
        expect(responses['400']?.content['application/json']?.example).toEqual(real.json());
      }
    } finally {
      await app.close();
    }
  });

  it('the 500 example is the generic internal_error; a failing random source answers the same code', async () => {
    const app = await makeApp({}, { random: failingSource(), logStream: logCollector() });
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      const failed = await app.inject({ url: '/v1/roll?formula=1d6' });
      expect(expectError(failed, 500, 'internal_error')).toBe('The random source failed; please try again.');
      // The example is the generic message; a failing random source says so instead.
      expect(exampleOf(doc, 500)).toEqual({
        error: { code: 'internal_error', message: 'An unexpected error occurred; it has been logged.' },
      });
    } finally {
      await app.close();
    }
  });

  it('the 413 example follows BODY_LIMIT_BYTES', async () => {
    const app = await makeApp({ bodyLimitBytes: 100 });
    try {
      const doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
      const big = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula: '1'.repeat(120) },
      });
      expect(expectError(big, 413, 'payload_too_large')).toMatch(/100 bytes/);
      expect(big.json()).toEqual(exampleOf(doc, 413, 'post'));
    } finally {
      await app.close();
    }
  });
});

describe('an operation is one entry of the table', () => {
  it('a new entry gets its procedure, its REST route and its place in the document', async () => {
    const echo: Operation = {
      kind: 'query',
      method: 'GET',
      path: '/v1/echo',
      input: z.strictObject({ word: z.string().max(5) }).meta({ id: 'EchoRequest' }),
      output: z.strictObject({ word: z.string() }),
      tags: ['test'],
      summary: 'Echo',
      description: 'Echoes a word.',
      errors: ['invalid_request'],
      run: (input) => input as { word: string },
    };
    const operations = { ...OPERATIONS, echo };
    const doc = buildOpenApiDocument(routerOf(operations), operations, 8192) as unknown as Doc;
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/.well-known/jwks.json',
      '/v1/echo',
      '/v1/health',
      '/v1/receipts/verify',
      '/v1/roll',
      '/v1/roll/batch',
      '/v1/rolls/{rollId}',
      '/v1/stats',
      '/v1/stats/batch',
      '/v1/tables',
      '/v1/tables/{id}/events',
      '/v1/tables/{id}/report',
      '/v1/tables/{id}/rolls',
    ]);
    const responses = doc.paths['/v1/echo']?.get?.responses as Record<string, unknown>;
    expect(Object.keys(responses).sort()).toEqual(['200', '400']);
    expect(doc.components.schemas.EchoRequest).toBeDefined();
  });
});

describe('GET /v1/tables/{id}/events (Server-Sent Events) in the document', () => {
  interface Parameter {
    in: string;
    name: string;
    schema: Json;
  }
  interface Response {
    content: Record<string, { schema: Json; example: unknown }>;
  }
  let app: FastifyInstance;
  let base: string;
  let doc: Doc;
  let events: Json & { parameters: Parameter[]; responses: Record<string, Response> };
  const exampleOf = (status: number) =>
    events.responses[String(status)]!.content['application/json']!.example;
  const createTable = async () =>
    (await app.inject({ method: 'POST', url: '/v1/tables' })).json().id as string;

  beforeAll(async () => {
    app = await makeApp({ dataDir: mkdtempSync(join(tmpdir(), 'fairdice-openapi-')), rateLimitMax: 1000 });
    base = await listen(app);
    doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
    events = operationOf(doc, 'get', '/v1/tables/{id}/events') as typeof events;
  });
  afterAll(() => app.close());

  it('describes a text/event-stream with Last-Event-ID resume, its id parameter and its errors', () => {
    expect(events.operationId).toBe('tableEvents');
    expect(events.tags).toEqual(['tables']);
    const [id, lastEventId, after] = events.parameters;
    const rolls = operationOf(doc, 'get', '/v1/tables/{id}/rolls') as { parameters: Parameter[] };
    expect(id).toEqual(rolls.parameters.find((parameter) => parameter.in === 'path'));
    expect(lastEventId).toMatchObject({ in: 'header', name: 'Last-Event-ID', required: false });
    expect(after).toMatchObject({ in: 'query', name: 'after', schema: { type: 'integer', minimum: 0 } });
    expect(Object.keys(events.responses).sort()).toEqual(['200', '400', '404', '429', '500', '503']);
    const ok = events.responses['200']!.content;
    expect(Object.keys(ok)).toEqual(['text/event-stream']);
    const example = ok['text/event-stream']!.example as string;
    expect(example).toMatch(/^: fairdice table events\n[\s\S]*\nevent: roll\ndata: \{/);
    // The example's data is a whole receipt at a table, as a real event carries.
    const data = JSON.parse(
      example
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    );
    expect(ReceiptSchema.safeParse(data).success).toBe(true);
    expect(data).toMatchObject({
      table: expect.any(String),
      seq: 3,
      prev: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    for (const status of [400, 404, 429, 500, 503] as const)
      expect(JSON.stringify(events.responses[String(status)]!.content['application/json']!.schema)).toContain(
        `"#/components/schemas/${ERROR_STATUSES[status].schema}"`,
      );
    expect(JSON.stringify(events.responses['429'])).toContain('#/components/headers/RetryAfter');
  });

  it('its error examples are what the route answers', async () => {
    const table = await createTable();
    const badResume = await app.inject({
      url: `/v1/tables/${table}/events`,
      headers: { 'last-event-id': 'x' },
    });
    expect(badResume.statusCode).toBe(400);
    expect(badResume.json()).toEqual(exampleOf(400));
    const unknown = await app.inject({ url: '/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/events' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual(exampleOf(404));
    const open: EventStream[] = [];
    try {
      for (let i = 0; i < LIMITS.sseConnectionsPerAddress; i++) {
        const stream = await openEvents(base, `/v1/tables/${table}/events`);
        open.push(stream);
        expect(stream.status).toBe(200);
      }
      const refused = await openEvents(base, `/v1/tables/${table}/events`);
      expect(refused.status).toBe(429);
      expect(JSON.parse(await refused.body())).toEqual(exampleOf(429));
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('a real event has the documented form: id, event: roll, and a receipt as data', async () => {
    const table = await createTable();
    const stream = await openEvents(base, `/v1/tables/${table}/events`, { 'last-event-id': '0' });
    try {
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      // The stream is answered by hand, yet carries what every answer carries.
      expect(stream.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'access-control-allow-origin': '*',
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': expect.stringMatching(/^\d+$/),
      });
      await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '1d6', table } });
      const [event] = await stream.waitFor(1, undefined, 'roll');
      expect([event!.id, event!.event]).toEqual(['1', 'roll']);
      const receipt = JSON.parse(event!.data) as Json;
      const required = (doc.components.schemas.Receipt as { required: string[] }).required;
      expect(required.length).toBeGreaterThan(0);
      for (const key of required) expect(receipt, key).toHaveProperty(key);
    } finally {
      stream.close();
    }
  });
});
