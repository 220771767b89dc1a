// Through a real socket: the body limit for content-length and chunked bodies, the rate limit
// (61st request, 404s counted, headers, retry-after, 429 before 413, TRUST_PROXY), and the typed
// client against a listening server.
import { createConnection } from 'node:net';
import { TRPCClientError } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiceClient, errorOf } from '../../packages/client/src/index.js';
import { LIMITS } from '../../src/limits.js';
import { VERSION } from '../../src/version.js';
import { listen, makeApp } from '../support/app.js';
import { type Answer, send } from '../support/http.js';

const envelope = (answer: Answer) => JSON.parse(answer.body) as { error: { code: string; message: string } };

/** A default app listening on a loopback port for the tests of the enclosing describe block. */
function listeningApp(): { readonly base: string; readonly port: number } {
  let app: FastifyInstance | undefined;
  let base = '';
  beforeAll(async () => {
    app = await makeApp();
    base = await listen(app);
  });
  afterAll(() => app?.close());
  return {
    get base() {
      return base;
    },
    get port() {
      return Number(new URL(base).port);
    },
  };
}

/** A JSON body of exactly `size` bytes, padded with whitespace. */
const paddedBody = (size: number) => {
  const start = '{"formula":"1d6"';
  return `${start}${' '.repeat(size - start.length - 1)}}`;
};

describe('the body limit on a real socket', () => {
  const server = listeningApp();

  it('with content-length: 8192 bytes roll, 8193 are 413 payload_too_large', async () => {
    const at = paddedBody(LIMITS.bodyBytes);
    const ok = await send(server.base, {
      method: 'POST',
      path: '/v1/roll',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(at)) },
      chunks: [at],
    });
    expect(ok.status).toBe(200);
    const past = paddedBody(LIMITS.bodyBytes + 1);
    const tooBig = await send(server.base, {
      method: 'POST',
      path: '/v1/roll',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(past)) },
      chunks: [past],
    });
    expect(tooBig.status).toBe(413);
    expect(envelope(tooBig).error.code).toBe('payload_too_large');
  });

  it('chunked: 8192 bytes roll, 8193 are 413 payload_too_large', async () => {
    const chunked = (body: string) => [body.slice(0, 4000), body.slice(4000)];
    const ok = await send(server.base, {
      method: 'POST',
      path: '/v1/roll',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: chunked(paddedBody(LIMITS.bodyBytes)),
    });
    expect(ok.status).toBe(200);
    for (const path of ['/v1/roll', '/v1/roll/batch']) {
      const tooBig = await send(server.base, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: chunked(paddedBody(LIMITS.bodyBytes + 1)),
      });
      expect(tooBig.status).toBe(413);
      expect(envelope(tooBig)).toEqual({
        error: { code: 'payload_too_large', message: 'The request body is larger than 8192 bytes.' },
      });
    }
  });
});

describe('the rate limit on a real socket', () => {
  it('60 requests pass, the 61st is 429 with retry-after; 404s count; headers on every response', async () => {
    const app = await makeApp({ rateLimitMax: LIMITS.rateLimitMax });
    const base = await listen(app);
    try {
      for (let i = 1; i <= 60; i++) {
        const answer = await send(base, { path: i % 2 === 0 ? '/no-such-path' : '/v1/health' });
        expect(answer.status).toBe(i % 2 === 0 ? 404 : 200);
        expect(answer.headers['x-ratelimit-limit']).toBe('60');
        expect(answer.headers['x-ratelimit-remaining']).toBe(String(60 - i));
        expect(Number(answer.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
        expect(answer.headers['retry-after']).toBeUndefined();
      }
      const limited = await send(base, { path: '/v1/roll?formula=1d6' });
      expect(limited.status).toBe(429);
      expect(envelope(limited).error.code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      const preflight = await send(base, { method: 'OPTIONS', path: '/v1/roll' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['x-ratelimit-limit']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('a 429 wins over a 413: the limit is counted before the body is read', async () => {
    const app = await makeApp({ rateLimitMax: 1 });
    const base = await listen(app);
    try {
      expect((await send(base, { path: '/v1/health' })).status).toBe(200);
      const past = paddedBody(LIMITS.bodyBytes + 100);
      const answer = await send(base, {
        method: 'POST',
        path: '/v1/roll',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [past],
      });
      expect(answer.status).toBe(429);
      expect(envelope(answer).error.code).toBe('rate_limited');
    } finally {
      await app.close();
    }
  });
});

describe('TRUST_PROXY', () => {
  const forwardedFrom = (address: string) => ({ 'x-forwarded-for': address });

  it('unset: a forged X-Forwarded-For changes nothing', async () => {
    const app = await makeApp({ rateLimitMax: 2 });
    try {
      const statuses = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        statuses.push((await app.inject({ url: '/v1/health', headers: forwardedFrom(address) })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('true: each forwarded address has its own count', async () => {
    const app = await makeApp({ rateLimitMax: 2, trustProxy: true });
    try {
      const statuses = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '203.0.113.1', '203.0.113.1']) {
        statuses.push((await app.inject({ url: '/v1/health', headers: forwardedFrom(address) })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('a hop count or an address list trusts only those proxies', async () => {
    for (const trustProxy of [1, '127.0.0.1']) {
      const app = await makeApp({ rateLimitMax: 1, trustProxy });
      try {
        const first = await app.inject({ url: '/v1/health', headers: forwardedFrom('198.51.100.7') });
        const second = await app.inject({ url: '/v1/health', headers: forwardedFrom('198.51.100.8') });
        expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
        const untrusted = await app.inject({
          url: '/v1/health',
          remoteAddress: '192.0.2.50',
          headers: forwardedFrom('198.51.100.7'),
        });
        const again = await app.inject({
          url: '/v1/health',
          remoteAddress: '192.0.2.50',
          headers: forwardedFrom('198.51.100.9'),
        });
        expect([untrusted.statusCode, again.statusCode]).toEqual(
          typeof trustProxy === 'number' ? [429, 200] : [200, 429],
        );
      } finally {
        await app.close();
      }
    }
  });
});

describe('requests the HTTP parser refuses', () => {
  const server = listeningApp();

  /** Writes `raw` on a fresh connection and reads everything until the server closes it. */
  const rawExchange = (raw: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: '127.0.0.1', port: server.port }, () => socket.end(raw));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n', /could not be read as HTTP/],
    [
      'a non-numeric content-length',
      'POST /v1/roll HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      /could not be read/,
    ],
    [
      'oversized headers',
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      /headers are too large/,
    ],
  ])('%s gets 400 invalid_request in the envelope, with CORS', async (_case, raw, message) => {
    const text = await rawExchange(raw);
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head.toLowerCase()).toContain('access-control-allow-origin: *');
    const parsed = JSON.parse(body) as { error: { code: string; message: string } };
    expect(Object.keys(parsed)).toEqual(['error']);
    expect(parsed.error.code).toBe('invalid_request');
    expect(parsed.error.message).toMatch(message);
  });
});

describe('the typed client', () => {
  const server = listeningApp();

  it('calls roll, rollWith, batch and health', async () => {
    const client = createDiceClient(server.base);
    const single = await client.roll.query({ formula: '2d6+3' });
    expect(single.total).toBe(15);
    expect(single.dice[0]?.results).toEqual([6, 6]);
    const withBonuses = await client.rollWith.mutate({ formula: '1d4', bonuses: [1] });
    expect(withBonuses.formula).toBe('1d4');
    const batch = await client.batch.mutate({ rolls: [{ formula: '1d20' }, { formula: '1d8' }] });
    expect(batch.rolls.map((roll) => roll.total)).toEqual([20, 8]);
    const health = await client.health.query();
    expect(health).toEqual({ status: 'ok', version: VERSION });
    const trailingSlash = createDiceClient(`${server.base}/`);
    expect((await trailingSlash.health.query()).status).toBe('ok');
  });

  it('carries the REST code in a typed error', async () => {
    const client = createDiceClient(server.base);
    const failure = await client.roll.query({ formula: '2d' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TRPCClientError);
    if (!(failure instanceof TRPCClientError)) return;
    const typed = failure as TRPCClientError<import('../../packages/client/src/index.js').AppRouter>;
    expect(typed.data?.api.code).toBe('invalid_formula');
    expect(typed.data?.httpStatus).toBe(400);
    expect(typed.message).toMatch(/column/);
    expect(errorOf(failure)?.code).toBe('invalid_formula');

    const budget = await client.batch
      .mutate({ rolls: [{ formula: '600d6' }, { formula: '600d6' }] })
      .catch(errorOf);
    expect(budget).toMatchObject({ code: 'too_many_dice' });
    const schema = await client.rollWith.mutate({ formula: '1d6', tags: ['NOPE'] }).catch(errorOf);
    expect(schema).toMatchObject({ code: 'invalid_request' });
    expect(errorOf(new Error('network down'))).toBeUndefined();
  });
});
