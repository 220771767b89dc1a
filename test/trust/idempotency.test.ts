// Trust a table can lean on, over HTTP on the real stores: who and why signed into the receipt,
// one roll per Idempotency-Key (replays, refusals, races, restarts, two instances on one Redis),
// and the signed head every read of a log carries, against which a log cut short fails.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain, verifyHead, verifyReceipt } from '@fairdice/client/verify';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteStore } from '../../src/store/sqlite.js';
import type { Jwks, Receipt, TableHead } from '../../src/trust/receipt.js';
import { expectError, listen, makeApp, twoAppsOnOneRedis } from '../support/app.js';
import { openEvents } from '../support/events.js';
import { describeWithRedis } from '../support/redis.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-idempotency-'));

interface Rolled {
  total: number;
  receipt: Receipt;
  replayed?: true;
}

interface Log {
  entries: number;
  rolls: Receipt[];
  head: TableHead;
}

const createTable = async (app: FastifyInstance) =>
  ((await app.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string }).id;

const rollAt = (app: FastifyInstance, payload: object, key?: string, remoteAddress = '127.0.0.1') =>
  app.inject({
    method: 'POST',
    url: '/v1/roll',
    payload,
    remoteAddress,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

/**
 * Asserts that `again` answered the kept answer of `first` as a replay, and that `table` holds
 * `entries` entries still: nothing was rolled anew.
 */
async function expectReplayOf(
  app: FastifyInstance,
  first: LightMyRequestResponse,
  again: LightMyRequestResponse,
  table: string,
  entries: number,
) {
  expect(again.statusCode, again.body).toBe(200);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.json()).toEqual(first.json());
  expect((await logOf(app, table)).entries).toBe(entries);
}

const logOf = async (app: FastifyInstance, table: string) =>
  (await app.inject({ url: `/v1/tables/${table}/rolls` })).json() as Log;

describe('who and why', () => {
  let app: FastifyInstance;
  let jwks: Jwks;
  beforeAll(async () => {
    app = await makeApp({ dataDir: tempDir() });
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  it('signs by and note into the receipt, shows them in the log, and a changed one fails', async () => {
    const table = await createTable(app);
    const answer = await rollAt(app, { formula: '1d20+5', table, by: 'Mira', note: 'attack on the ogre' });
    expect(answer.statusCode, answer.body).toBe(200);
    const { receipt } = answer.json() as Rolled;
    expect(receipt.request).toEqual({ formula: '1d20+5', by: 'Mira', note: 'attack on the ogre' });
    expect((await verifyReceipt(receipt, jwks)).valid).toBe(true);
    expect(await verifyReceipt({ ...receipt, request: { ...receipt.request, by: 'Brann' } }, jwks)).toEqual({
      valid: false,
      reason: 'signature does not match the receipt',
    });
    const log = await logOf(app, table);
    expect(log.rolls[0]!.request).toMatchObject({ by: 'Mira', note: 'attack on the ogre' });
    // A roll without them signs exactly what it signed before: no empty fields.
    const plain = (await rollAt(app, { formula: '1d6', table })).json() as Rolled;
    expect(Object.keys(plain.receipt.request)).toEqual(['formula']);
  });

  it('refuses a by over 32 characters, a note over 200, an empty one and a line break', async () => {
    expectError(await rollAt(app, { formula: '1d6', by: 'x'.repeat(33) }), 400, 'invalid_request');
    expectError(await rollAt(app, { formula: '1d6', note: 'x'.repeat(201) }), 400, 'invalid_request');
    expectError(await rollAt(app, { formula: '1d6', by: '' }), 400, 'invalid_request');
    const message = expectError(await rollAt(app, { formula: '1d6', note: 'a\nb' }), 400, 'invalid_request');
    expect(message).toBe('note must not contain control characters (line breaks, tabs).');
    expect(
      (await rollAt(app, { formula: '1d6', by: 'x'.repeat(32), note: 'y'.repeat(200) })).statusCode,
    ).toBe(200);
  });
});

describe('one roll per Idempotency-Key (SQLite)', () => {
  const dataDir = tempDir();
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await makeApp({ dataDir });
  });
  afterAll(() => app.close());

  it('answers the same key and request with the first answer, marked a replay, and rolls nothing more', async () => {
    const table = await createTable(app);
    const first = await rollAt(app, { formula: '1d20', table }, 'k-1');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await rollAt(app, { formula: '1d20', table }, 'k-1');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await logOf(app, table)).entries).toBe(1);
    // Another key rolls again.
    const other = (await rollAt(app, { formula: '1d20', table }, 'k-2')).json() as Rolled;
    expect(other.receipt.seq).toBe(2);
  });

  it('refuses the same key with another request with 422 idempotency_key_reused', async () => {
    expect((await rollAt(app, { formula: '1d6' }, 'k-reused')).statusCode).toBe(200);
    expectError(await rollAt(app, { formula: '1d8' }, 'k-reused'), 422, 'idempotency_key_reused');
    // The same key on the batch is another request too.
    const batch = await app.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: [{ formula: '1d6' }] },
      headers: { 'idempotency-key': 'k-reused' },
    });
    expectError(batch, 422, 'idempotency_key_reused');
  });

  it('scopes a key to its caller: another address with the same key rolls anew', async () => {
    const table = await createTable(app);
    const mine = (await rollAt(app, { formula: '1d6', table }, 'shared', '10.0.0.1')).json() as Rolled;
    const theirs = (await rollAt(app, { formula: '1d6', table }, 'shared', '10.0.0.2')).json() as Rolled;
    expect(theirs.receipt.id).not.toBe(mine.receipt.id);
    expect((await logOf(app, table)).entries).toBe(2);
  });

  it('makes one roll of two requests sent at once with one key', async () => {
    const table = await createTable(app);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => rollAt(app, { formula: '3d6', table }, 'k-race')),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers['idempotent-replayed'] === 'true')).toHaveLength(3);
    expect((await logOf(app, table)).entries).toBe(1);
  });

  it('keeps nothing for a refused request: the key may be sent again', async () => {
    const missing = 'AAAAAAAAAAAAAAAAAAAAAAAA';
    expectError(await rollAt(app, { formula: '1d6', table: missing }, 'k-failed'), 404, 'not_found');
    expectError(await rollAt(app, { formula: '1d6', table: missing }, 'k-failed'), 404, 'not_found');
  });

  it('replays a batch, and answers replayed: true over tRPC with the input key', async () => {
    const table = await createTable(app);
    const batch = (key: string) =>
      app.inject({
        method: 'POST',
        url: '/v1/roll/batch',
        payload: {
          rolls: [
            { formula: '1d6', table },
            { formula: '1d8', table, by: 'Mira' },
          ],
        },
        headers: { 'idempotency-key': key },
      });
    const first = await batch('k-batch');
    const again = await batch('k-batch');
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await logOf(app, table)).entries).toBe(2);

    const call = () =>
      app.inject({
        method: 'POST',
        url: '/trpc/rollWith',
        payload: { formula: '1d6', table, idempotencyKey: 'k-trpc' },
      });
    const viaTrpc = (await call()).json() as { result: { data: Rolled } };
    const replayed = (await call()).json() as { result: { data: Rolled } };
    expect(viaTrpc.result.data.replayed).toBeUndefined();
    expect(replayed.result.data).toEqual({ ...viaTrpc.result.data, replayed: true });
    expect((await logOf(app, table)).entries).toBe(3);
  });

  it('keeps its keys and the head across a restart on the same DATA_DIR', async () => {
    const own = await makeApp({ dataDir: tempDir() });
    const dir = (own as unknown as { trust: { store: { file: string } } }).trust.store.file;
    const table = await createTable(own);
    const first = await rollAt(own, { formula: '1d12', table }, 'k-restart');
    const head = (await logOf(own, table)).head;
    await own.close();
    const reopened = await makeApp({ dataDir: join(dir, '..') });
    try {
      const again = await rollAt(reopened, { formula: '1d12', table }, 'k-restart');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      const log = await logOf(reopened, table);
      expect([log.head.entries, log.head.lastHash]).toEqual([head.entries, head.lastHash]);
    } finally {
      await reopened.close();
    }
  });
});

describe('answers kept by the version before they were encrypted (SQLite)', () => {
  it('replays an answer kept as plain JSON text, rolling nothing, rather than failing', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    const db = openDatabase((app.trust.store as SqliteStore).file);
    try {
      const table = await createTable(app);
      const first = await rollAt(app, { formula: '1d20', table }, 'k-upgrade');
      expect(first.statusCode, first.body).toBe(200);
      const rows = db.prepare('SELECT key, body FROM idempotency').all() as { key: string; body: string }[];
      expect(rows).toHaveLength(1);
      // Kept encrypted now: the answer's JSON is not in the store.
      expect(rows[0]!.body.startsWith('{')).toBe(false);
      // The version before kept the same key and fingerprint, with the answer's JSON as the body.
      db.prepare('UPDATE idempotency SET body = ? WHERE key = ?').run(
        JSON.stringify(first.json()),
        rows[0]!.key,
      );
      await expectReplayOf(app, first, await rollAt(app, { formula: '1d20', table }, 'k-upgrade'), table, 1);
      // And the same key with another request is still refused.
      expectError(await rollAt(app, { formula: '1d12', table }, 'k-upgrade'), 422, 'idempotency_key_reused');
    } finally {
      db.close();
      await app.close();
    }
  });
});

describe('signed heads (SQLite)', () => {
  let app: FastifyInstance;
  let jwks: Jwks;
  beforeAll(async () => {
    app = await makeApp({ dataDir: tempDir() });
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  it('signs a head with every read, and a log cut short fails against it with both counts', async () => {
    const table = await createTable(app);
    const empty = await logOf(app, table);
    expect(empty.head).toMatchObject({ table, entries: 0, lastHash: '0'.repeat(64) });
    expect(await verifyHead(empty.head, jwks)).toEqual({ valid: true, kid: jwks.keys[0]!.kid });
    for (const formula of ['1d4', '1d6']) await rollAt(app, { formula, table });
    const log = await logOf(app, table);
    expect(log.head.entries).toBe(2);
    expect(await verifyChain(log.rolls, jwks, log.head)).toEqual({ valid: true, entries: 2 });
    const cut = log.rolls.slice(0, 1);
    expect(await verifyChain(cut, jwks, log.head)).toEqual({
      valid: false,
      seq: 2,
      reason: 'the head promises 2 entries but the log has 1: entries were cut from its end',
    });
    expect(await verifyHead({ ...log.head, entries: 3 }, jwks)).toEqual({
      valid: false,
      reason: 'signature does not match the head',
    });

    const verify = (body: object) =>
      app.inject({ method: 'POST', url: '/v1/receipts/verify', payload: body }).then((r) => r.json());
    expect(await verify({ rolls: cut, head: log.head })).toEqual({
      valid: false,
      reason: 'entry 2: the head promises 2 entries but the log has 1: entries were cut from its end',
    });
    expect(await verify({ rolls: log.rolls, head: log.head })).toEqual({
      valid: true,
      kid: jwks.keys[0]!.kid,
      entries: 2,
    });
    expect(await verify({ head: log.head })).toEqual({ valid: true, kid: jwks.keys[0]!.kid, entries: 2 });
    expectError(
      await app.inject({ method: 'POST', url: '/v1/receipts/verify', payload: {} }),
      400,
      'invalid_request',
    );
  });
});

describe('signed heads on the event stream', () => {
  it('sends after each entry the signed head of the log up to it, and one on connecting', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    try {
      const base = await listen(app);
      const jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json() as Jwks;
      const table = await createTable(app);
      await rollAt(app, { formula: '1d4', table });
      const stream = await openEvents(base, `/v1/tables/${table}/events`);
      // The catch-up (entry 1), then its head.
      const [caughtUp] = await stream.waitFor(1, undefined, 'head');
      await rollAt(app, { formula: '1d6', table, by: 'Mira' });
      const heads = await stream.waitFor(2, undefined, 'head');
      stream.close();
      expect(stream.events.map((event) => event.event)).toEqual(['roll', 'head', 'roll', 'head']);
      const rolls = stream.events
        .filter((event) => event.event === 'roll')
        .map((event) => JSON.parse(event.data) as Receipt);
      expect(rolls[1]!.request.by).toBe('Mira');
      const last = JSON.parse(heads[1]!.data) as TableHead;
      expect(JSON.parse(caughtUp!.data)).toMatchObject({ table, entries: 1 });
      expect(last).toMatchObject({ table, entries: 2 });
      expect(await verifyChain(rolls, jwks, last)).toEqual({ valid: true, entries: 2 });
      expect(await verifyChain(rolls.slice(0, 1), jwks, last)).toMatchObject({ valid: false, seq: 2 });
    } finally {
      await app.close();
    }
  });
});

describeWithRedis('one roll per Idempotency-Key across two instances on one Redis', (executable) => {
  const apps = twoAppsOnOneRedis(executable, { dataDir: tempDir() });
  let a: FastifyInstance;
  let b: FastifyInstance;
  beforeAll(() => {
    ({ a, b } = apps);
  });

  it('answers a key given on one instance with its first answer on the other', async () => {
    const table = await createTable(a);
    const first = await rollAt(a, { formula: '1d20', table }, 'r-1');
    expect(first.statusCode, first.body).toBe(200);
    const again = await rollAt(b, { formula: '1d20', table }, 'r-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expectError(await rollAt(b, { formula: '1d12', table }, 'r-1'), 422, 'idempotency_key_reused');
    expect((await logOf(b, table)).entries).toBe(1);
  });

  it('makes one roll of requests sent at once with one key to both instances', async () => {
    const table = await createTable(a);
    const answers = await Promise.all(
      [a, b, a, b].map((app) => rollAt(app, { formula: '2d6', table }, 'r-race')),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect((await logOf(a, table)).entries).toBe(1);
    const log = await logOf(b, table);
    expect(log.head).toMatchObject({ table, entries: 1 });
  });

  it('replays an answer kept as plain JSON text by the version before encryption', async () => {
    const client = new Redis(apps.redis.url);
    try {
      const before = new Set(await client.keys('fairdice:idempotency:*'));
      const table = await createTable(a);
      const first = await rollAt(a, { formula: '1d20', table }, 'r-upgrade');
      expect(first.statusCode, first.body).toBe(200);
      const [key, ...others] = (await client.keys('fairdice:idempotency:*')).filter((k) => !before.has(k));
      expect(others).toEqual([]);
      const kept = JSON.parse((await client.get(key!))!) as { f: string; b: string };
      expect(kept.b.startsWith('{')).toBe(false);
      // The version before kept { f, b } under the same key, with the answer's JSON as b.
      await client.set(
        key!,
        JSON.stringify({ f: kept.f, b: JSON.stringify(first.json()) }),
        'PX',
        86_400_000,
      );
      await expectReplayOf(b, first, await rollAt(b, { formula: '1d20', table }, 'r-upgrade'), table, 1);
    } finally {
      client.disconnect();
    }
  });
});
