// Receipts and tables over HTTP with the embedded SQLite store (a temporary DATA_DIR): signed
// rolls verify against the served JWKS, tables keep an unbroken chain, limits answer in the
// envelope, and the event stream delivers and resumes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain, verifyReceipt } from '@fairdice/client/verify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Jwks, Receipt } from '../../src/trust/receipt.js';
import { expectError, listen, makeApp } from '../support/app.js';
import { openEvents } from '../support/events.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-tables-'));

async function appWith(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  return makeApp({ dataDir: tempDir(), ...overrides });
}

interface Rolled {
  total: number;
  receipt?: Receipt;
}

describe('receipts on rolls', () => {
  let app: FastifyInstance;
  let jwks: Jwks;
  beforeAll(async () => {
    app = await appWith();
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  it('publishes one Ed25519 key, no private part', () => {
    expect(jwks.keys).toHaveLength(1);
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
  });

  it('signs POST, GET and batch rolls when asked, and the receipts verify against the JWKS', async () => {
    const post = (
      await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula: '1d20+2', bonuses: [1], receipt: true },
      })
    ).json() as Rolled;
    const get = (await app.inject({ url: '/v1/roll?formula=2d6&receipt=true' })).json() as Rolled;
    const batch = (
      await app.inject({
        method: 'POST',
        url: '/v1/roll/batch',
        payload: { rolls: [{ formula: '1d4', receipt: true }, { formula: '1d8' }] },
      })
    ).json() as { rolls: Rolled[] };
    for (const rolled of [post, get, batch.rolls[0]!]) {
      expect(rolled.receipt).toBeDefined();
      expect(rolled.receipt!.roll.total).toBe(rolled.total);
      expect(await verifyReceipt(rolled.receipt, jwks)).toEqual({ valid: true, kid: jwks.keys[0]!.kid });
    }
    expect(post.receipt!.request).toEqual({ formula: '1d20+2', bonuses: [1] });
    expect(batch.rolls[1]!.receipt).toBeUndefined();
  });

  it('rolls without a receipt unless asked', async () => {
    for (const response of [
      await app.inject({ url: '/v1/roll?formula=1d6' }),
      await app.inject({ url: '/v1/roll?formula=1d6&receipt=false' }),
      await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '1d6', receipt: false } }),
    ]) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).not.toHaveProperty('receipt');
    }
  });

  it('takes only true or false for receipt (no coercion of "no" into true)', async () => {
    expectError(
      await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '1d6', receipt: 'no' } }),
      400,
      'invalid_request',
    );
    expectError(await app.inject({ url: '/v1/roll?formula=1d6&receipt=yes' }), 400, 'invalid_request');
  });

  it('keeps receipts: GET /v1/rolls/{id} returns one, POST /v1/receipts/verify checks one', async () => {
    const { receipt } = (await app.inject({ url: '/v1/roll?formula=1d6&receipt=true' })).json() as Rolled;
    const stored = await app.inject({ url: `/v1/rolls/${receipt!.id}` });
    expect(stored.json()).toEqual(receipt);
    const good = await app.inject({ method: 'POST', url: '/v1/receipts/verify', payload: { receipt } });
    expect(good.json()).toEqual({ valid: true, kid: receipt!.kid });
    const edited = { ...receipt!, roll: { ...receipt!.roll, total: receipt!.roll.total + 1 } };
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/receipts/verify',
      payload: { receipt: edited },
    });
    expect(bad.json()).toMatchObject({ valid: false, reason: expect.any(String) });
    expectError(
      await app.inject({ url: '/v1/rolls/019ab2c4-5e61-7a3b-9c2d-4f5e6a7b8c9d' }),
      404,
      'not_found',
    );
  });

  it('signs a roll whose expression holds a fraction, and a changed fraction no longer verifies', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/roll',
      payload: { formula: '(2*1d6+1)/2', receipt: true },
    });
    expect(answer.statusCode).toBe(200);
    const { receipt } = answer.json() as Rolled;
    const expression = receipt!.roll.expression!;
    // The root is the quotient; only operation, function and group nodes carry `exact`.
    if (expression.type !== 'operation') throw new Error(`expected an operation, got ${expression.type}`);
    expect(Number.isInteger(expression.value)).toBe(false);
    expect(expression.exact).toMatch(/^\d+\/2$/);
    const good = await app.inject({ method: 'POST', url: '/v1/receipts/verify', payload: { receipt } });
    expect(good.json()).toEqual({ valid: true, kid: receipt!.kid });
    const edited = {
      ...receipt!,
      roll: { ...receipt!.roll, expression: { ...expression, value: expression.value + 0.25 } },
    };
    const bad = await app.inject({
      method: 'POST',
      url: '/v1/receipts/verify',
      payload: { receipt: edited },
    });
    expect(bad.json()).toMatchObject({ valid: false });
  });
});

describe('tables', () => {
  let app: FastifyInstance;
  let base: string;
  let jwks: Jwks;
  beforeAll(async () => {
    app = await appWith({ tableMaxEntries: 3, tablesPerHour: 4, sseConnectionsPerAddress: 3 });
    base = await listen(app);
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  const createTable = async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/tables' });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { id: string; links: { rolls: string; events: string } };
  };
  const rollAt = (table: string, formula = '1d20') =>
    app.inject({ method: 'POST', url: '/v1/roll', payload: { formula, table } });

  it('makes unguessable ids and chains every roll made at the table', async () => {
    const table = await createTable();
    expect(table.id).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(table.links.rolls).toBe(`/v1/tables/${table.id}/rolls`);
    const answers = [await rollAt(table.id, '1d4'), await rollAt(table.id, '1d6')];
    const receipts = answers.map((answer) => (answer.json() as Rolled).receipt!);
    expect(receipts.map((receipt) => [receipt.table, receipt.seq])).toEqual([
      [table.id, 1],
      [table.id, 2],
    ]);
    const log = (await app.inject({ url: table.links.rolls })).json() as {
      entries: number;
      rolls: Receipt[];
    };
    expect(log.entries).toBe(2);
    expect(log.rolls).toEqual(receipts);
    expect(await verifyChain(log.rolls, jwks)).toEqual({ valid: true, entries: 2 });
    const later = (await app.inject({ url: `${table.links.rolls}?after=1` })).json() as { rolls: Receipt[] };
    expect(later.rolls.map((receipt) => receipt.seq)).toEqual([2]);
  });

  it('answers 404 for an unknown table, 409 when a table is full, in the envelope', async () => {
    expectError(await rollAt('AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    expectError(await app.inject({ url: '/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/rolls' }), 404, 'not_found');
    const table = await createTable();
    for (let i = 0; i < 3; i++) expect((await rollAt(table.id)).statusCode).toBe(200);
    const message = expectError(await rollAt(table.id), 409, 'table_full');
    expect(message).toMatch(/3 entries/);
    expectError(await app.inject({ url: `/v1/tables/${table.id}/rolls?after=-1` }), 400, 'invalid_request');
  });

  it('streams new rolls, resumes after Last-Event-ID, and caps streams per address', async () => {
    const table = await createTable();
    await rollAt(table.id, '1d4');
    const stream = await openEvents(base, table.links.events);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    await stream.waitFor(1, undefined, 'roll');
    await rollAt(table.id, '1d6');
    const events = await stream.waitFor(2, undefined, 'roll');
    expect(events.map((event) => [event.id, event.event])).toEqual([
      ['1', 'roll'],
      ['2', 'roll'],
    ]);
    expect((JSON.parse(events[1]!.data) as Receipt).request.formula).toBe('1d6');

    const resumed = await openEvents(base, table.links.events, { 'last-event-id': '1' });
    const second = await openEvents(base, `${table.links.events}?after=2`);
    expect([resumed.status, second.status]).toEqual([200, 200]);
    const refused = await openEvents(base, table.links.events);
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.body())).toMatchObject({ error: { code: 'too_many_streams' } });
    stream.close();
    await rollAt(table.id, '1d8');
    expect((await resumed.waitFor(2, undefined, 'roll')).map((event) => event.id)).toEqual(['2', '3']);
    expect((await second.waitFor(1, undefined, 'roll')).map((event) => event.id)).toEqual(['3']);
    resumed.close();
    second.close();
  });

  it('ends open streams when the app closes, so a shutdown is not held by them', async () => {
    const own = await appWith();
    const ownBase = await listen(own);
    const table = (await own.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string };
    const stream = await openEvents(ownBase, `/v1/tables/${table.id}/events`);
    expect(stream.status).toBe(200);
    await own.close();
    expect(await stream.body()).toMatch(/^: fairdice table events/);
  });

  it('keeps a quiet stream open past the limit that cuts a client not reading its answers', async () => {
    // That limit is 1.3 s here (src/http/connections.ts); the heartbeat comes every 15 s.
    const own = await appWith({ requestTimeoutMs: 300, headersTimeoutMs: 200, keepAliveTimeoutMs: 300 });
    try {
      const ownBase = await listen(own);
      const table = (await own.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string };
      const stream = await openEvents(ownBase, `/v1/tables/${table.id}/events`);
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await own.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '1d6', table: table.id } });
      expect((await stream.waitFor(1, undefined, 'roll')).map((event) => event.id)).toEqual(['1']);
      stream.close();
    } finally {
      await own.close();
    }
  });

  it('refuses a stream for an unknown table with 404', async () => {
    const missing = await openEvents(base, '/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/events');
    expect(missing.status).toBe(404);
    expect(JSON.parse(await missing.body())).toMatchObject({ error: { code: 'not_found' } });
  });

  it('limits tables created per address per hour with 429 too_many_tables', async () => {
    const fresh = await appWith({ tablesPerHour: 2 });
    try {
      for (let i = 0; i < 2; i++)
        expect((await fresh.inject({ method: 'POST', url: '/v1/tables' })).statusCode).toBe(200);
      expectError(await fresh.inject({ method: 'POST', url: '/v1/tables' }), 429, 'too_many_tables');
    } finally {
      await fresh.close();
    }
  });
});
