// The HTTP contract through inject: every status with every code it may carry, each limit at its
// edge and one past it, every field of every response, the guards, CORS and the index.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { BatchRollResponseSchema, HealthResponseSchema, RollResponseSchema } from '../../src/api/schemas.js';
import { MESSAGES } from '../../src/errors.js';
import { LIMITS } from '../../src/limits.js';
import { VERSION } from '../../src/version.js';
import { expectError, logCollector, makeApp } from '../support/app.js';
import { failingSource, minSource } from '../support/sources.js';

const json = { 'content-type': 'application/json' };

describe('the rolling routes', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('GET /v1/roll answers every field of a RollResponse', async () => {
    const response = await app.inject({ url: '/v1/roll?formula=2d6%2B3' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = RollResponseSchema.parse(response.json());
    expect(body).toEqual({
      formula: '2d6+3',
      dice: [
        {
          sides: 6,
          sign: 1,
          results: [6, 6],
          kept: [6, 6],
          keptFlags: [true, true],
          multiplier: 1,
          total: 12,
          naturalHigh: false,
          naturalLow: false,
        },
      ],
      modifier: 3,
      modifiers: [3],
      total: 15,
      advantageState: 'normal',
    });
    expect('tag' in body).toBe(false);
  });

  it('GET /v1/roll applies the advantage query', async () => {
    const response = await app.inject({ url: '/v1/roll?formula=1d20&advantage=advantage' });
    expect(response.statusCode).toBe(200);
    const body = RollResponseSchema.parse(response.json());
    expect(body.advantageState).toBe('advantage');
    expect(body.dice[0]?.results).toHaveLength(2);
  });

  it('POST /v1/roll takes bonuses and answers the same shape', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '2d6', bonuses: [2, -1] },
    });
    expect(response.statusCode).toBe(200);
    const body = RollResponseSchema.parse(response.json());
    expect(body.modifiers).toEqual([2, -1]);
    expect(body.modifier).toBe(1);
    expect(body.total).toBe(13);
  });

  it('POST /v1/roll/batch answers one result per roll, in order', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '1d20' }, { formula: '3d4' }, { formula: '1d6+1' }] },
    });
    expect(response.statusCode).toBe(200);
    const body = BatchRollResponseSchema.parse(response.json());
    expect(body.rolls.map((roll) => roll.formula)).toEqual(['1d20', '3d4', '1d6+1']);
    expect(body.rolls.map((roll) => roll.total)).toEqual([20, 12, 7]);
  });

  it('GET /v1/health answers status and version', async () => {
    const response = await app.inject({ url: '/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(HealthResponseSchema.parse(response.json())).toEqual({ status: 'ok', version: VERSION });
  });

  it('GET / is an index with name, version and links that resolve', async () => {
    const response = await app.inject({ url: '/' });
    expect(response.statusCode).toBe(200);
    const body = response.json() as { name: string; version: string; links: Record<string, string> };
    expect(body.name).toBe('fairdice');
    expect(body.version).toBe(VERSION);
    const { mcp, ...pages } = body.links;
    expect(pages).toEqual({
      openapi: '/openapi.json',
      health: '/v1/health',
      docs: '/docs',
      language: '/docs/language',
    });
    for (const link of Object.values(pages)) {
      expect((await app.inject({ url: link })).statusCode).toBe(200);
    }
    // The MCP endpoint answers POSTed JSON-RPC (test/mcp has the rest).
    expect(mcp).toBe('/mcp');
    const ping = await app.inject({
      method: 'POST',
      url: mcp,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 7, method: 'ping' },
    });
    expect(ping.statusCode).toBe(200);
    expect(ping.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });
});

describe('400 invalid_request', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it.each([
    ['a missing formula', '/v1/roll', /formula is required/],
    ['an empty formula', '/v1/roll?formula=', /at least 1 character/],
    ['a bad advantage', '/v1/roll?formula=1d20&advantage=double', /one of: normal, advantage, disadvantage/],
    ['a repeated formula', '/v1/roll?formula=1d20&formula=2d6', /formula was given more than once/],
    ['an unknown query field', '/v1/roll?formula=1d20&dice=3', /Unknown field: dice/],
    ['bonuses on the GET form', '/v1/roll?formula=1d20&bonuses=2', /Unknown field: bonuses/],
  ])('for %s on GET', async (_case, url, message) => {
    expect(expectError(await app.inject({ url }), 400, 'invalid_request')).toMatch(message);
  });

  it.each([
    ['no body', undefined, undefined, /JSON object body/],
    ['an empty JSON body', '', json, /empty/],
    ['malformed JSON', '{"formula": "1d6"', json, /not valid JSON/],
    ['a JSON array', '[]', json, /JSON object/],
    ['a JSON string', '"1d6"', json, /JSON object/],
    ['text/plain', '{"formula":"1d6"}', { 'content-type': 'text/plain' }, /Content-Type: application\/json/],
    [
      'an unknown content type',
      '<roll>1d6</roll>',
      { 'content-type': 'application/xml' },
      /application\/json/,
    ],
    [
      'a form body',
      'formula=1d6',
      { 'content-type': 'application/x-www-form-urlencoded' },
      /application\/json/,
    ],
    ['a missing formula', '{}', json, /formula is required/],
    ['a numeric formula', '{"formula": 12}', json, /formula must be a string/],
    // Only a query repeats a parameter; in a body an array is just the wrong type.
    ['an array formula', '{"formula": ["1d20"]}', json, /^formula must be a string/],
    ['an unknown field', '{"formula": "1d6", "sides": 6}', json, /Unknown field: sides/],
    ['a fractional bonus', '{"formula": "1d6", "bonuses": [1.5]}', json, /bonuses\[0\]/],
    [
      'an empty bonus',
      '{"formula": "1d6", "bonuses": [""]}',
      json,
      /bonuses\[0\] must be at least 1 character/,
    ],
    ['a bonus of the wrong type', '{"formula": "1d6", "bonuses": [true]}', json, /bonuses\[0\]/],
    ['an uppercase tag', '{"formula": "1d6", "tags": ["Fire"]}', json, /tags\[0\] must be lowercase letters/],
    ['an empty tag', '{"formula": "1d6", "tags": [""]}', json, /tags\[0\]/],
    ['a bad advantage', '{"formula": "1d20", "advantage": "yes"}', json, /advantage must be one of/],
  ])('for %s on POST /v1/roll', async (_case, payload, headers, message) => {
    const response = await app.inject({ method: 'POST', url: '/v1/roll', payload, headers });
    expect(expectError(response, 400, 'invalid_request')).toMatch(message);
  });

  it('for an adv term together with a non-normal advantage', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '2d20adv', advantage: 'disadvantage' },
    });
    expectError(response, 400, 'invalid_request');
  });

  it.each([
    ['no rolls field', {}, /rolls is required/],
    ['an empty batch', { rolls: [] }, /at least 1 item/],
    [
      'an item with an unknown field',
      { rolls: [{ formula: '1d6', x: 1 }] },
      /Unknown field in rolls\[0\]: x/,
    ],
    ['an item without a formula', { rolls: [{ formula: '1d6' }, {}] }, /rolls\[1\]\.formula is required/],
  ])('for %s on POST /v1/roll/batch', async (_case, payload, message) => {
    const response = await app.inject({ method: 'POST', url: '/v1/roll/batch', payload });
    expect(expectError(response, 400, 'invalid_request')).toMatch(message);
  });

  it('never echoes markup in a field name', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d6', '<img src=x onerror=alert(1)>': 1 },
    });
    expect(expectError(response, 400, 'invalid_request')).toBe('Unknown field.');
  });

  it.each([
    ['DELETE', '/v1/roll'],
    ['PUT', '/v1/roll'],
    ['PATCH', '/v1/roll'],
    ['GET', '/v1/roll/batch'],
    ['PUT', '/v1/roll/batch'],
    ['DELETE', '/v1/roll/batch'],
    ['POST', '/v1/health'],
    ['DELETE', '/v1/health'],
  ] as const)('for a wrong method: %s %s (never 404 or 405)', async (method, url) => {
    const response = await app.inject({ method, url, payload: method === 'GET' ? undefined : {} });
    expect(expectError(response, 400, 'invalid_request')).toMatch(/answers (GET|POST)/);
  });

  it('HEAD on a POST-only path is a 400 without a body', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/v1/roll/batch' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toBe('');
  });

  it('HEAD on a GET path answers like GET without a body', async () => {
    const response = await app.inject({ method: 'HEAD', url: '/v1/health' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });
});

describe('400 invalid_formula and too_many_dice', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('a formula that does not parse', async () => {
    const message = expectError(await app.inject({ url: '/v1/roll?formula=2d' }), 400, 'invalid_formula');
    expect(message).toMatch(/formula/);
    expect(message).toMatch(/column/);
  });

  it('describes markup in a formula without quoting it', async () => {
    const url = `/v1/roll?formula=${encodeURIComponent('2d6<script>alert(1)</script>')}`;
    expectError(await app.inject({ url }), 400, 'invalid_formula');
  });

  it('a + sent unencoded in a query gets a hint to send %2B', async () => {
    const message = expectError(await app.inject({ url: '/v1/roll?formula=1d20+5' }), 400, 'invalid_formula');
    expect(message).toMatch(/%2B/);
    const encoded = await app.inject({ url: '/v1/roll?formula=1d20%2B5' });
    expect(encoded.statusCode).toBe(200);
  });

  it('a formula error in a batch names the item', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '1d6' }, { formula: '1d6' }, { formula: '1d6' }, { formula: 'nope' }] },
    });
    expect(expectError(response, 400, 'invalid_formula')).toMatch(/rolls\[3\]\.formula/);
  });

  it('a batch over its dice budget states the budget and the total requested', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '600d6' }, { formula: '401d6' }] },
    });
    const message = expectError(response, 400, 'too_many_dice');
    expect(message).toMatch(/1001/);
    expect(message).toMatch(/1000/);
  });

  it('a batch exactly at its dice budget rolls', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '600d6' }, { formula: '400d6' }] },
    });
    expect(response.statusCode).toBe(200);
    const body = BatchRollResponseSchema.parse(response.json());
    expect(body.rolls.map((roll) => roll.dice[0]?.results.length)).toEqual([600, 400]);
  });
});

describe('configured dice limits', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ dicePerRoll: 10, dicePerBatch: 15 });
  });
  afterAll(() => app.close());

  it('DICE_PER_ROLL: at the limit rolls, one past is invalid_formula stating both numbers', async () => {
    expect((await app.inject({ url: '/v1/roll?formula=10d6' })).statusCode).toBe(200);
    const message = expectError(await app.inject({ url: '/v1/roll?formula=11d6' }), 400, 'invalid_formula');
    expect(message).toMatch(/10/);
    expect(message).toMatch(/11/);
  });

  it('DICE_PER_BATCH: at the budget rolls, one past is too_many_dice', async () => {
    const at = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '10d6' }, { formula: '5d6' }] },
    });
    expect(at.statusCode).toBe(200);
    const past = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '10d6' }, { formula: '6d6' }] },
    });
    const message = expectError(past, 400, 'too_many_dice');
    expect(message).toMatch(/15/);
    expect(message).toMatch(/16/);
  });
});

describe('limits at the edge and one past', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  const post = (payload: unknown, url = '/v1/roll') =>
    app.inject({ method: 'POST', url, payload: payload as object });

  it('formula length', async () => {
    const atLimit = '1d6'.padEnd(LIMITS.formulaMaxLength, ' ');
    expect((await post({ formula: atLimit })).statusCode).toBe(200);
    expect((await app.inject({ url: `/v1/roll?formula=${encodeURIComponent(atLimit)}` })).statusCode).toBe(
      200,
    );
    const past = `${atLimit} `;
    expect(expectError(await post({ formula: past }), 400, 'invalid_request')).toMatch(
      /at most 200 characters/,
    );
    expectError(
      await app.inject({ url: `/v1/roll?formula=${encodeURIComponent(past)}` }),
      400,
      'invalid_request',
    );
    const batch = await post({ rolls: [{ formula: past }] }, '/v1/roll/batch');
    expect(expectError(batch, 400, 'invalid_request')).toMatch(/rolls\[0\]\.formula/);
  });

  it('bonuses per roll', async () => {
    const bonuses = Array.from({ length: LIMITS.bonusesPerRoll }, () => 1);
    expect((await post({ formula: '1d6', bonuses })).statusCode).toBe(200);
    const past = expectError(
      await post({ formula: '1d6', bonuses: [...bonuses, 1] }),
      400,
      'invalid_request',
    );
    expect(past).toMatch(/bonuses must have at most 20 items/);
  });

  it('integer bonus: at most 1,000,000 in absolute value, however large the number sent', async () => {
    expect(
      (await post({ formula: '1d6', bonuses: [LIMITS.flatMaxAbs, -LIMITS.flatMaxAbs] })).statusCode,
    ).toBe(200);
    const answers = await Promise.all(
      [LIMITS.flatMaxAbs + 1, -LIMITS.flatMaxAbs - 1, 1e16, -1e300].map(async (bonus) =>
        expectError(await post({ formula: '1d6', bonuses: [bonus] }), 400, 'invalid_request'),
      ),
    );
    for (const message of answers)
      expect(message).toMatch(/^bonuses\[0\] must be an integer from -1,000,000 to 1,000,000/);
  });

  it('bonus string length', async () => {
    const atLimit = `10${'+1'.repeat((LIMITS.bonusMaxLength - 2) / 2)}`;
    expect(atLimit).toHaveLength(LIMITS.bonusMaxLength);
    expect((await post({ formula: '1d6', bonuses: [atLimit] })).statusCode).toBe(200);
    const past = expectError(
      await post({ formula: '1d6', bonuses: [`${atLimit}0`] }),
      400,
      'invalid_request',
    );
    expect(past).toMatch(/bonuses\[0\] must be at most 200 characters/);
  });

  it('tags per roll and tag length', async () => {
    const tags = Array.from({ length: LIMITS.tagsPerRoll }, (_, i) =>
      'abcdefghijklmnopqrstuvwxyz'.slice(i, i + 1),
    );
    expect((await post({ formula: '1d6', tags })).statusCode).toBe(200);
    expectError(await post({ formula: '1d6', tags: [...tags, 'z'] }), 400, 'invalid_request');
    const longTag = 'a'.repeat(LIMITS.tagMaxLength);
    expect((await post({ formula: '1d6', tags: [longTag] })).statusCode).toBe(200);
    const past = expectError(await post({ formula: '1d6', tags: [`${longTag}a`] }), 400, 'invalid_request');
    expect(past).toMatch(/tags\[0\] must be at most 32 characters/);
  });

  it('rolls per batch', async () => {
    const rolls = Array.from({ length: LIMITS.rollsPerBatch }, () => ({ formula: '1d6' }));
    const at = await post({ rolls }, '/v1/roll/batch');
    expect(at.statusCode).toBe(200);
    expect(BatchRollResponseSchema.parse(at.json()).rolls).toHaveLength(20);
    const past = expectError(
      await post({ rolls: [...rolls, { formula: '1d6' }] }, '/v1/roll/batch'),
      400,
      'invalid_request',
    );
    expect(past).toMatch(/rolls must have at most 20 items/);
  });

  it('request body size with content-length (chunked bodies are tested on a real socket)', async () => {
    const body = (size: number) => {
      const start = '{"formula":"1d6"';
      return `${start}${' '.repeat(size - start.length - 1)}}`;
    };
    expect(Buffer.byteLength(body(LIMITS.bodyBytes))).toBe(8192);
    const at = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: body(LIMITS.bodyBytes),
      headers: json,
    });
    expect(at.statusCode).toBe(200);
    const past = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: body(LIMITS.bodyBytes + 1),
      headers: json,
    });
    expect(expectError(past, 413, 'payload_too_large')).toMatch(/8192 bytes/);
    const batch = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: body(9000),
      headers: json,
    });
    expectError(batch, 413, 'payload_too_large');
  });
});

describe('404 not_found', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it.each(['/nope', '/v2/roll', '/v1/roll/', '/v1/rolls', '/v1/roll%', '/v1/%E0%A4%A'])(
    'for %s',
    async (url) => {
      expectError(await app.inject({ url }), 404, 'not_found');
    },
  );

  it('a malformed URL still carries CORS', async () => {
    const response = await app.inject({ url: '/v1/roll%' });
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('500 internal_error', () => {
  it('a failing random source answers the generic 500 and logs it with the request id', async () => {
    const log = logCollector();
    const app = await makeApp({}, { random: failingSource(), logStream: log });
    try {
      for (const request of [
        { url: '/v1/roll?formula=1d6' },
        { method: 'POST' as const, url: '/v1/roll', payload: { formula: '1d6' } },
        { method: 'POST' as const, url: '/v1/roll/batch', payload: { rolls: [{ formula: '1d6' }] } },
      ]) {
        const response = await app.inject(request);
        expect(expectError(response, 500, 'internal_error')).toBe(MESSAGES.randomSource);
      }
      const errors = log.lines.filter((line) => line.level >= 50);
      expect(errors).toHaveLength(3);
      for (const line of errors) expect(line.reqId).toMatch(/\S/);
    } finally {
      await app.close();
    }
  });

  it('a bug in an operation is a 500 with the generic message on REST and tRPC, never a 400, and is logged', async () => {
    const log = logCollector();
    // What a bug in the engine looks like from outside: a non-DiceError thrown mid-roll (say a
    // parser fault), not a mistake of the caller's.
    const bug = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'sides')");
    };
    const operations = { ...OPERATIONS, roll: { ...OPERATIONS.roll, run: bug } };
    const app = await makeApp({}, { logStream: log, operations });
    try {
      const rest = await app.inject({ url: '/v1/roll?formula=1d6' });
      expect(expectError(rest, 500, 'internal_error')).toBe(MESSAGES.unexpected);
      const trpc = await app.inject({ url: '/trpc/roll?input=%7B%22formula%22%3A%221d6%22%7D' });
      expect(trpc.statusCode).toBe(500);
      const body = trpc.json() as {
        error: { message: string; data: { api: { code: string; message: string } } };
      };
      expect(body.error.data.api).toEqual({ code: 'internal_error', message: MESSAGES.unexpected });
      expect(body.error.message).toBe(MESSAGES.unexpected);
      const errors = log.lines.filter((line) => line.level >= 50);
      expect(errors).toHaveLength(2);
      for (const line of errors) {
        expect(line.reqId).toMatch(/\S/);
        expect(JSON.stringify(line.err)).toContain('reading');
      }
      // The other operations are untouched.
      expect(
        (await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '1d6' } })).statusCode,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('the random source is not selectable over HTTP', async () => {
    const app = await makeApp({}, { random: minSource() });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula: '1d6', random: 'max' },
      });
      expectError(response, 400, 'invalid_request');
    } finally {
      await app.close();
    }
  });
});

describe('the deprecated 1d20adv', () => {
  it('rolls two dice and logs exactly one warning line with the request id', async () => {
    const log = logCollector();
    const app = await makeApp({}, { logStream: log });
    try {
      const response = await app.inject({ url: '/v1/roll?formula=1d20adv' });
      expect(response.statusCode).toBe(200);
      const body = RollResponseSchema.parse(response.json());
      expect(body.dice[0]?.results).toHaveLength(2);
      expect(JSON.stringify(body)).not.toMatch(/deprecat/i);
      const warnings = log.lines.filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.reqId).toMatch(/\S/);
      expect(warnings[0]?.msg).toMatch(/2d20adv/);
      expect((await app.inject({ url: '/v1/roll?formula=2d20adv' })).statusCode).toBe(200);
      expect(log.lines.filter((line) => line.level === 40)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

describe('the /trpc endpoint', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  const inputOf = (value: unknown) => encodeURIComponent(JSON.stringify(value));

  it('answers one call per request', async () => {
    const response = await app.inject(`/trpc/roll?input=${inputOf({ formula: '2d6' })}`);
    expect(response.statusCode).toBe(200);
    const data = response.json().result.data;
    expect(RollResponseSchema.parse(data).dice[0]?.results).toHaveLength(2);
  });

  it('refuses the same inputs as REST, with the same code and message', async () => {
    for (const [input, body] of [
      [{}, '{}'],
      [{ formula: 7 }, '{"formula":7}'],
      [{ formula: '2d' }, '{"formula":"2d"}'],
      [{ formula: '1d6', extra: 1 }, '{"formula":"1d6","extra":1}'],
      [{ formula: '1d6', tags: ['A'] }, '{"formula":"1d6","tags":["A"]}'],
    ] as const) {
      const rest = await app.inject({ method: 'POST', url: '/v1/roll', headers: json, payload: body });
      const trpc = await app.inject({ method: 'POST', url: '/trpc/rollWith', headers: json, payload: body });
      expect(trpc.statusCode, JSON.stringify(input)).toBe(rest.statusCode);
      expect(trpc.statusCode).toBe(400);
      expect((trpc.json() as { error: { data: { api: unknown } } }).error.data.api).toEqual(
        rest.json().error,
      );
    }
  });

  it('refuses a batched call: one counted request must not roll many budgets of dice', async () => {
    const calls = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [i, { formula: '1000d6' }]));
    const response = await app.inject(`/trpc/roll,roll,roll,roll,roll?batch=1&input=${inputOf(calls)}`);
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain('"results"');
    expect(JSON.stringify(response.json())).toContain('"api":{"code":"invalid_request"');
  });
});

describe('CORS', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it.each([
    ['GET', '/v1/roll?formula=1d6'],
    ['GET', '/v1/roll'],
    ['GET', '/nope'],
    ['GET', '/openapi.json'],
    ['DELETE', '/v1/roll'],
  ] as const)('allows any origin on %s %s', async (method, url) => {
    const response = await app.inject({ method, url, headers: { origin: 'https://example.org' } });
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it.each(['/v1/roll', '/v1/roll/batch', '/v1/health', '/nope'])(
    'answers a preflight on %s with 204',
    async (url) => {
      const response = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: 'https://example.org',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(response.headers['access-control-allow-headers']).toMatch(/content-type/);
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    },
  );
});

describe('the engine through HTTP', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp();
  });
  afterAll(() => app.close());

  it('answers tag only when the formula ends with a listed one', async () => {
    const tagged = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d8+3 fire', tags: ['fire'] },
    });
    expect(tagged.statusCode).toBe(200);
    expect(RollResponseSchema.parse(tagged.json()).tag).toBe('fire');
    const unlisted = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d8+3 fire' },
    });
    expectError(unlisted, 400, 'invalid_formula');
    expectError(await app.inject({ url: '/v1/roll?formula=2d6%20fire' }), 400, 'invalid_formula');
  });

  it('keep-highest flags every die', async () => {
    const response = await app.inject({ url: '/v1/roll?formula=4d6kh3' });
    const group = RollResponseSchema.parse(response.json()).dice[0];
    expect(group?.results).toHaveLength(4);
    expect(group?.keptFlags).toEqual([true, true, true, false]);
    expect(group?.kept).toEqual([6, 6, 6]);
    expect(group?.total).toBe(18);
  });

  it('a string bonus adds its dice group and its flat terms', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d20', bonuses: ['1d4+1', 2] },
    });
    const body = RollResponseSchema.parse(response.json());
    expect(body.dice.map((group) => group.sides)).toEqual([20, 4]);
    expect(body.modifiers).toEqual([1, 2]);
    expect(body.total).toBe(27);
    const broken = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '1d20', bonuses: [1, '1d'] },
    });
    expect(expectError(broken, 400, 'invalid_formula')).toMatch(/bonuses\[1\]/);
  });

  it('the per-roll dice limit counts every term', async () => {
    expect((await app.inject({ url: '/v1/roll?formula=500d6%2B500d6' })).statusCode).toBe(200);
    const message = expectError(
      await app.inject({ url: '/v1/roll?formula=500d6%2B501d6' }),
      400,
      'invalid_formula',
    );
    expect(message).toMatch(/\b1,?000\b/);
    expect(message).toMatch(/\b1,?001\b/);
  });

  it('an adv term plus advantage inside a batch names the item', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '1d6' }, { formula: '2d20adv', advantage: 'advantage' }] },
    });
    expect(expectError(response, 400, 'invalid_request')).toMatch(/rolls\[1\]/);
  });

  it('markup in a formula is described, never echoed', async () => {
    for (const formula of ['2d6<script>', '<b>1d6</b>', '1d6>']) {
      const response = await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula } });
      expectError(response, 400, 'invalid_formula');
    }
  });
});
