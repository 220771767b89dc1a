// CORS (src/http/cors.ts), in the app: the headers every answer carries, and the preflight's whole
// answer, header by header, answered before the rate limit counts it (docs/api.md#headers).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPOSED_HEADERS } from '../../src/http/cors.js';
import { makeApp } from '../support/app.js';

/** The headers of an answer that are not about the connection or the date. */
const own = (headers: Record<string, unknown>) => {
  const { date: _date, connection: _connection, ...rest } = headers;
  return rest;
};

describe('CORS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ rateLimitMax: 5 });
  });
  afterAll(() => app.close());

  it('exposes exactly the limits, retry-after and the validator', () => {
    expect(EXPOSED_HEADERS).toBe(
      'retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-ratelimit-throws-limit, x-ratelimit-throws-remaining, x-ratelimit-throws-reset, x-ratelimit-stats-limit, x-ratelimit-stats-remaining, x-ratelimit-stats-reset, etag',
    );
  });

  it('answers a preflight 204 with exactly these headers, and does not count it', async () => {
    const preflight = (headers: Record<string, string>) =>
      app.inject({ method: 'OPTIONS', url: '/v1/roll', remoteAddress: '127.0.0.9', headers });
    const asked = await preflight({
      origin: 'https://example.org',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-client',
    });
    expect(asked.statusCode).toBe(204);
    expect(asked.body).toBe('');
    expect(own(asked.headers)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-expose-headers': EXPOSED_HEADERS,
      'x-content-type-options': 'nosniff',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'content-type, x-client',
      'access-control-max-age': '86400',
    });
    // Nothing asked for: content-type, the one header a JSON call needs.
    const bare = await preflight({});
    expect(bare.statusCode).toBe(204);
    expect(bare.headers['access-control-allow-headers']).toBe('content-type');
    // Many preflights later, the address's first counted request has its whole budget.
    for (let i = 0; i < 10; i++) await preflight({});
    const counted = await app.inject({ url: '/v1/health', remoteAddress: '127.0.0.9' });
    expect(counted.statusCode).toBe(200);
    expect(counted.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('puts the same three headers on every answer, a 404 and a 429 included', async () => {
    for (const url of ['/v1/health', '/nowhere']) {
      const answer = await app.inject({ url, remoteAddress: '127.0.0.10' });
      expect(answer.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-expose-headers': EXPOSED_HEADERS,
        'x-content-type-options': 'nosniff',
      });
    }
    for (let i = 0; i < 5; i++) await app.inject({ url: '/v1/health', remoteAddress: '127.0.0.11' });
    const refused = await app.inject({ url: '/v1/health', remoteAddress: '127.0.0.11' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toBe(EXPOSED_HEADERS);
  });
});
