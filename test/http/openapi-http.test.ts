// The OpenAPI document declares what the HTTP layer adds: the rate-limit headers that responses
// really carry (retry-after on a 429), the 404 of an unknown path with the body it really has,
// one ApiError schema every documented error fits, and servers a generator can use.
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { ERROR_CODES } from '../../src/errors.js';
import { expectError, makeApp } from '../support/app.js';

type Json = Record<string, unknown>;
interface Response {
  headers?: Record<string, { $ref: string }>;
  content?: { 'application/json'?: { schema?: { $ref?: string }; example?: { error: { code: string } } } };
}
interface Doc {
  servers: { url: string; variables?: Record<string, { default: string; enum?: string[] }> }[];
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: {
    schemas: Record<string, Json>;
    headers: Record<string, { schema: { type: string } }>;
    responses: Record<string, Response>;
  };
}

const RATE_LIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
/** The throws budget's headers: on the rolling operations' 200, 400 and 429 only. */
const THROWS = ['x-ratelimit-throws-limit', 'x-ratelimit-throws-remaining', 'x-ratelimit-throws-reset'];
const ROLLING = new Set(['/v1/roll', '/v1/roll/batch']);
/** The stats budget's headers: on the stats operations' 200, 429 and 503 only. */
const STATS = ['x-ratelimit-stats-limit', 'x-ratelimit-stats-remaining', 'x-ratelimit-stats-reset'];
/** The validator of an answer that never changes: on GET /v1/stats's 200 and 304. */
const CACHE = ['etag', 'cache-control'];

describe('what the OpenAPI document says about HTTP', () => {
  let app: FastifyInstance;
  let doc: Doc;
  const deref = (ref: string) => doc.components.headers[ref.replace('#/components/headers/', '')];

  beforeAll(async () => {
    app = await makeApp({ rateLimitMax: 3 });
    doc = (await app.inject({ url: '/openapi.json' })).json() as Doc;
  });
  afterAll(() => app.close());

  it('is still a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
  });

  it('declares the rate-limit headers on every response of every operation, and retry-after on 429', () => {
    let responses = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const names = Object.keys(response.headers ?? {}).sort();
          const expected = [
            ...RATE_LIMIT,
            ...(ROLLING.has(path) && ['200', '400', '429'].includes(status) ? THROWS : []),
            ...(path === '/v1/stats' && ['200', '429', '503'].includes(status) ? STATS : []),
            ...(path === '/v1/stats' && method === 'get' && ['200', '304'].includes(status) ? CACHE : []),
            ...(status === '429' ? ['retry-after'] : []),
          ].sort();
          expect(names, `${method} ${path} ${status}`).toEqual(expected);
          for (const [name, header] of Object.entries(response.headers ?? {})) {
            expect(deref(header.$ref)?.schema.type).toBe(CACHE.includes(name) ? 'string' : 'integer');
          }
          responses++;
        }
      }
    }
    expect(responses).toBeGreaterThan(8);
  });

  it('declares the headers a real answer carries, 200 and 429 alike', async () => {
    const declared = (path: string, status: string) =>
      Object.keys(doc.paths[path]?.get?.responses[status]?.headers ?? {});
    const ok = await app.inject({ url: '/v1/health' });
    expect(ok.statusCode).toBe(200);
    for (const name of declared('/v1/health', '200')) expect(ok.headers[name], name).toMatch(/^\d+$/);
    await app.inject({ url: '/v1/health' });
    await app.inject({ url: '/v1/health' });
    const limited = await app.inject({ url: '/v1/health' });
    expectError(limited, 429, 'rate_limited');
    expect(declared('/v1/health', '429')).toContain('retry-after');
    for (const name of declared('/v1/health', '429')) expect(limited.headers[name], name).toMatch(/^\d+$/);
  });

  it('declares the throws budget headers a roll carries', async () => {
    const rolled = await app.inject({ url: '/v1/roll?formula=1d6', remoteAddress: '127.0.0.9' });
    expect(rolled.statusCode).toBe(200);
    const declared = Object.keys(doc.paths['/v1/roll']?.get?.responses['200']?.headers ?? {});
    for (const name of THROWS) expect(declared).toContain(name);
    for (const name of declared) expect(rolled.headers[name], name).toMatch(/^\d+$/);
  });

  it('declares what GET /v1/stats really answers: the validator and the stats budget on its 200, and its 304', async () => {
    const get = doc.paths['/v1/stats']?.get as unknown as {
      parameters: { in: string; name: string; description?: string }[];
      responses: Record<string, Response & { description: string }>;
    };
    const declared = (status: string) => Object.keys(get.responses[status]?.headers ?? {});
    const url = '/v1/stats?formula=4d6kh3';
    const ok = await app.inject({ url, remoteAddress: '127.0.0.10' });
    expect(ok.statusCode).toBe(200);
    for (const name of declared('200')) expect(ok.headers[name], name).toBeDefined();
    const etagSchema = doc.components.headers.ETag as unknown as { schema: { pattern: string } };
    expect(ok.headers.etag).toMatch(new RegExp(etagSchema.schema.pattern));
    expect(get.responses['200']!.description).toContain(`Cache-Control: ${ok.headers['cache-control']}`);
    // The 304: no body, the headers the document lists.
    expect(get.parameters.some((p) => p.in === 'header' && p.name === 'If-None-Match')).toBe(true);
    const again = await app.inject({
      url,
      remoteAddress: '127.0.0.10',
      headers: { 'if-none-match': ok.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(get.responses['304']!.content).toBeUndefined();
    for (const name of declared('304')) expect(again.headers[name], name).toBeDefined();
    expect(again.headers.etag).toBe(ok.headers.etag);
    expect(get.responses['304']!.description).toContain(`Cache-Control: ${again.headers['cache-control']}`);
    // The formula parameter says what the language is and that a query takes no tag.
    const formula = get.parameters.find((p) => p.in === 'query' && p.name === 'formula');
    expect(formula?.description).toMatch(/arithmetic/);
    expect(formula?.description).toMatch(/groups/);
    expect(formula?.description).toMatch(/A query takes no tags/);
    expect(formula?.description).not.toMatch(/signed sum|listed in `tags`/);
    const tagged = await app.inject({ url: '/v1/stats?formula=1d8%20fire', remoteAddress: '127.0.0.10' });
    expectError(tagged, 400, 'invalid_formula');
  });

  it('has one ApiError schema that every documented error example fits, and the 404 as it is answered', async () => {
    const apiError = doc.components.schemas.ApiError as {
      properties: { error: { properties: { code: { enum: string[] } } } };
    };
    const codes = apiError.properties.error.properties.code.enum;
    expect([...codes].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    const examples = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) =>
        Object.entries(operation.responses)
          // Every error; the 304 of a cached answer has no body.
          .filter(([status]) => status !== '200' && status !== '304')
          .map(([, response]) => response.content?.['application/json']?.example),
      ),
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(codes).toContain(example?.error.code);

    const notFound = doc.components.responses.NotFound!;
    expect(notFound.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/ApiError' });
    const fresh = await makeApp();
    try {
      const answer = await fresh.inject({ url: '/no/such/path' });
      expectError(answer, 404, 'not_found');
      expect(answer.json()).toEqual(notFound.content?.['application/json']?.example);
      for (const name of Object.keys(notFound.headers ?? {}))
        expect(answer.headers[name], name).toMatch(/^\d+$/);
    } finally {
      await fresh.close();
    }
  });

  it('names the serving origin first, and any deployment through documented variables', () => {
    expect(doc.servers[0]?.url).toBe('/');
    const any = doc.servers[1]!;
    const filled = any.url.replace(/\{(\w+)\}/g, (_, name: string) => any.variables?.[name]?.default ?? '?');
    const config = defaultConfig();
    expect(filled).toBe(`http://${config.host}:${config.port}`);
    expect(any.variables?.scheme?.enum).toEqual(['http', 'https']);
  });
});
