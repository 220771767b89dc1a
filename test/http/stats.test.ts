// /v1/stats over HTTP: GET and POST, ETag and 304, too_complex in the envelope, tRPC, and the
// document. The distribution itself is proved in test/stats/.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distribution } from '../../src/stats/distribution.js';
import { expectError, listen, makeApp } from '../support/app.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await makeApp();
});
afterAll(() => app.close());

describe('GET /v1/stats', () => {
  it('answers the exact distribution, with a validator and public caching', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/stats?formula=4d6kh3' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual(distribution({ formula: '4d6kh3' }));
    expect(body.outcomes.map((o: { count: string }) => o.count).join(',')).toBe(
      '1,4,10,21,38,62,91,122,148,167,172,160,131,94,54,21',
    );
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(response.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('If-None-Match with the ETag: 304 and no body', async () => {
    const first = await app.inject({ method: 'GET', url: '/v1/stats?formula=2d20adv%2B5' });
    const etag = first.headers.etag as string;
    const again = await app.inject({
      method: 'GET',
      url: '/v1/stats?formula=2d20adv%2B5',
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const other = await app.inject({
      method: 'GET',
      url: '/v1/stats?formula=2d20dis%2B5',
      headers: { 'if-none-match': etag },
    });
    expect(other.statusCode).toBe(200);
    expect(other.headers.etag).not.toBe(etag);
  });

  it('advantage and depth from the query', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/stats?formula=1d20%2B1d6!&advantage=advantage&depth=2',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.advantageState).toBe('advantage');
    expect(body.truncation.depth).toBe(2);
    expect(body.truncation.tailExact).toBe('1/216');
  });

  it('refusals in the envelope: too_complex, invalid_formula, invalid_request', async () => {
    const tooComplex = await app.inject({ method: 'GET', url: '/v1/stats?formula=1000d20' });
    expect(expectError(tooComplex, 400, 'too_complex')).toMatch(/units of work/);
    // A refusal is never cached as if it were the answer.
    expect(tooComplex.headers.etag).toBeUndefined();
    expect(tooComplex.headers['cache-control']).toBeUndefined();
    const unlistable = await app.inject({ method: 'GET', url: '/v1/stats?formula=1000d6!kh500' });
    expect(expectError(unlistable, 400, 'too_complex')).toMatch(/could have about 1\.3e5 totals/);
    expectError(await app.inject({ method: 'GET', url: '/v1/stats?formula=2d6%2B' }), 400, 'invalid_formula');
    expectError(
      await app.inject({ method: 'GET', url: '/v1/stats?formula=1d6!&depth=101' }),
      400,
      'invalid_request',
    );
    expectError(await app.inject({ method: 'GET', url: '/v1/stats' }), 400, 'invalid_request');
  });
});

describe('POST /v1/stats', () => {
  it('takes a RollRequest with bonuses and tags', async () => {
    const request = { formula: '1d8+3 fire', bonuses: [2, '1d4!'], tags: ['fire'] };
    const response = await app.inject({ method: 'POST', url: '/v1/stats', payload: request });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(distribution(request));
  });

  it('refuses unknown fields', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/stats',
      payload: { formula: '2d6', x: 1 },
    });
    expectError(response, 400, 'invalid_request');
  });
});

describe('tRPC and the document', () => {
  it('the stats procedure answers the same distribution', async () => {
    const input = encodeURIComponent(JSON.stringify({ formula: '3d6' }));
    const response = await app.inject({ method: 'GET', url: `/trpc/stats?input=${input}` });
    expect(response.statusCode).toBe(200);
    expect(response.json().result.data).toEqual(distribution({ formula: '3d6' }));
  });

  it('the document has both operations, the answer schema and too_complex with its own schema', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/v1/stats']).sort()).toEqual(['get', 'post']);
    expect(document.components.schemas.StatsResponse).toBeDefined();
    const tooComplex = document.components.schemas.TooComplexError;
    expect(tooComplex.properties.error.properties.code.enum).toEqual(['too_complex']);
    expect(tooComplex.example.error.code).toBe('too_complex');
    const get400 = document.paths['/v1/stats'].get.responses['400'].content['application/json'].schema;
    expect(JSON.stringify(get400)).toContain('#/components/schemas/TooComplexError');
  });
});

describe('targets, versus and several formulas (docs/stats.md#opposed-rolls-versus)', () => {
  it('GET takes targets as a comma-separated list and versus as a formula', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/stats?formula=1d20%2B7&versus=1d20%2B5&versusAdvantage=disadvantage&targets=15,20',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual(
      distribution({
        formula: '1d20+7',
        targets: [15, 20],
        versus: { formula: '1d20+5', advantage: 'disadvantage' },
      }),
    );
    expect(body.versus.advantageState).toBe('disadvantage');
    expect(body.targets.map((t: { total: number }) => t.total)).toEqual([15, 20]);
    // Another question of the same formula is another answer, with another validator.
    const plain = await app.inject({ method: 'GET', url: '/v1/stats?formula=1d20%2B7' });
    expect(plain.headers.etag).not.toBe(response.headers.etag);
    expect(plain.json().versus).toBeUndefined();
  });

  it('POST takes an opposing RollRequest with its own bonuses and tags', async () => {
    const request = {
      formula: '1d20+7',
      targets: [15],
      versus: { formula: '1d20+3 fire', bonuses: ['1d4'], tags: ['fire'], advantage: 'advantage' },
    } as const;
    const response = await app.inject({ method: 'POST', url: '/v1/stats', payload: request });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(distribution(request));
  });

  it('POST /v1/stats/batch answers each request in order; over the budget together, too_complex', async () => {
    const requests = [{ formula: '2d6+3' }, { formula: '1d12+4', versus: { formula: '2d6+3' } }];
    const response = await app.inject({ method: 'POST', url: '/v1/stats/batch', payload: { requests } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ results: requests.map((r) => distribution(r)) });
    const heavy = Array.from({ length: 5 }, () => ({ formula: '1000d6', versus: { formula: '1000d6' } }));
    const refused = await app.inject({
      method: 'POST',
      url: '/v1/stats/batch',
      payload: { requests: heavy },
    });
    expectError(refused, 400, 'too_complex');
    const tooMany = await app.inject({
      method: 'POST',
      url: '/v1/stats/batch',
      payload: { requests: Array.from({ length: 6 }, () => ({ formula: '1d6' })) },
    });
    expectError(tooMany, 400, 'invalid_request');
  });

  it('tRPC: statsBatch and stats with versus answer the same', async () => {
    const requests = [{ formula: '3d6' }, { formula: '4d6kh3', targets: [12] }];
    const batch = await app.inject({ method: 'POST', url: '/trpc/statsBatch', payload: { requests } });
    expect(batch.statusCode).toBe(200);
    expect(batch.json().result.data).toEqual({ results: requests.map((r) => distribution(r)) });
    const input = encodeURIComponent(JSON.stringify({ formula: '3d6', versus: '2d8', targets: '10' }));
    const one = await app.inject({ method: 'GET', url: `/trpc/stats?input=${input}` });
    expect(one.json().result.data).toEqual(
      distribution({ formula: '3d6', versus: { formula: '2d8' }, targets: [10] }),
    );
  });

  it('the document has the batch operation and complete examples', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/v1/stats/batch'])).toEqual(['post']);
    const example = document.components.schemas.StatsResponse.example;
    expect(example).toEqual(
      distribution({ formula: '1d20+7', targets: [15, 20], versus: { formula: '1d20+5' } }),
    );
    expect(document.components.schemas.StatsBatchResponse.example.results).toHaveLength(2);
  });
});

describe('off the event loop', () => {
  it('a roll is answered while a distribution is being computed', async () => {
    const base = await listen(await makeApp());
    const order: string[] = [];
    const stats = fetch(`${base}/v1/stats?formula=10d10!kl5`).then(async (r) => {
      order.push(`stats ${r.status}`);
    });
    // Give the stats request time to reach its worker, then roll.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const roll = await fetch(`${base}/v1/roll?formula=1d20`);
    order.push(`roll ${roll.status}`);
    await stats;
    expect(order).toEqual(['roll 200', 'stats 200']);
  });
});

describe('arithmetic and groups over HTTP (docs/stats.md)', () => {
  it('GET and POST answer formulas with arithmetic, groups and arithmetic bonuses exactly', async () => {
    const get = await app.inject({ method: 'GET', url: '/v1/stats?formula=(1d8%2B4)*2' });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual(distribution({ formula: '(1d8+4)*2' }));
    expect(get.json().outcomes.map((o: { total: number }) => o.total)).toEqual([
      10, 12, 14, 16, 18, 20, 22, 24,
    ]);
    const request = { formula: '{1d20+5, 1d20+3}kh1', bonuses: [1, '1d4/2'] };
    const post = await app.inject({ method: 'POST', url: '/v1/stats', payload: request });
    expect(post.statusCode).toBe(200);
    expect(post.json()).toEqual(distribution(request));
    expect(post.json().denominator).toBe('1600');
  });

  it('an expression over the budget is too_complex before any work', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/v1/stats?formula=${encodeURIComponent('(1d1000)*(1d1000)*(1d1000)')}`,
    });
    expect(expectError(response, 400, 'too_complex')).toMatch(/units of work/);
  });
});

describe('every stats worker busy', () => {
  it('a request past the full queue is 503 unavailable with retry-after, the others are answered', async () => {
    const { StatsService } = await import('../../src/api/stats-service.js');
    // One worker, one waiting computation: distinct heavy requests sent together (from distinct
    // addresses, each allowed one computation under way) overflow it.
    const busy = await makeApp({}, { stats: new StatsService({ threads: 1, queueMax: 1 }) });
    try {
      const responses = await Promise.all(
        [20, 21, 22, 23, 24, 25].map((depth) =>
          busy.inject({
            method: 'GET',
            url: `/v1/stats?formula=${encodeURIComponent('6d10!kl3')}&depth=${depth}`,
            remoteAddress: `10.0.0.${depth}`,
          }),
        ),
      );
      const refused = responses.filter((r) => r.statusCode === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const response of refused) {
        expectError(response, 503, 'unavailable');
        expect(response.headers['retry-after']).toBe('1');
        expect(response.json().error.message).toMatch(/stats worker is busy and its queue is full/);
      }
      const answered = responses.filter((r) => r.statusCode === 200);
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.length + refused.length).toBe(responses.length);
    } finally {
      await busy.close();
    }
  }, 30_000);
});

describe('totals past 2^53 (a power reaches up to 10^100: docs/language.md)', () => {
  it('a roll and its distribution answer 200 with whole totals beyond Number.MAX_SAFE_INTEGER', async () => {
    // makeApp checks every answer against its output schema, as development does.
    const rolled = await app.inject({ method: 'GET', url: '/v1/roll?formula=10d6%5E20' });
    expect(rolled.statusCode).toBe(200);
    const total = rolled.json().total as number;
    expect(total).toBeGreaterThan(Number.MAX_SAFE_INTEGER);
    expect(Number.isInteger(total)).toBe(true);
    const stats = await app.inject({ method: 'GET', url: '/v1/stats?formula=2d6%5E20' });
    expect(stats.statusCode).toBe(200);
    const body = stats.json();
    expect(body.max).toBe(12 ** 20);
    expect(body.outcomes.at(-1).total).toBe(12 ** 20);
  });
});

describe('nothing is rolled, so nothing is signed', () => {
  it('refuses the receipt and table switches with invalid_request, on GET and POST', async () => {
    const get = await app.inject({ method: 'GET', url: '/v1/stats?formula=1d6&receipt=true' });
    expect(get.statusCode).toBe(400);
    expect(get.json().error.code).toBe('invalid_request');
    for (const extra of [{ receipt: true }, { table: 'q3Vb0x7TfZ2kWn9YcLr4Aa8s' }]) {
      const post = await app.inject({
        method: 'POST',
        url: '/v1/stats',
        payload: { formula: '1d6', ...extra },
      });
      expect(post.statusCode).toBe(400);
      expect(post.json().error.code).toBe('invalid_request');
    }
    const plain = await app.inject({ method: 'POST', url: '/v1/stats', payload: { formula: '1d6' } });
    expect(plain.statusCode).toBe(200);
  });
});
