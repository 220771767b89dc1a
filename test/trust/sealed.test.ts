// Sealed rolls over HTTP on the real stores (docs/trust.md#sealed-rolls): a roll at a table made
// in secret shows only its commitment in the log and the stream, its roller alone gets the roll,
// the receipt, the salt and the token; a reveal with the token publishes the receipt and salt,
// once, checked against the commitment by the client's verifier. Across a restart on SQLite and
// across two instances on one real Redis, sealed entries, reveals and the one-reveal rule hold.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  RevealEntry,
  SealedEntry,
  TableEntry,
  TableHead,
  TableRollResponse,
} from '@fairdice/client/types';
import { verifyChain, verifyReveal } from '@fairdice/client/verify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Jwks } from '../../src/trust/receipt.js';
import { expectError, listen, makeApp, twoAppsOnOneRedis } from '../support/app.js';
import { openEvents } from '../support/events.js';
import { describeWithRedis } from '../support/redis.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-sealed-'));

interface Log {
  entries: number;
  rolls: TableEntry[];
  head: TableHead;
}

const createTable = async (app: FastifyInstance) =>
  ((await app.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string }).id;

const rollAt = (
  app: FastifyInstance,
  table: string,
  payload: object,
  key?: string,
  remoteAddress = '127.0.0.1',
) =>
  app.inject({
    method: 'POST',
    url: `/v1/tables/${table}/roll`,
    payload,
    remoteAddress,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

const sealedRoll = async (app: FastifyInstance, table: string, payload: object = {}) => {
  const answer = await rollAt(app, table, { formula: '1d20+5', sealed: true, ...payload });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json() as TableRollResponse & { sealed: NonNullable<TableRollResponse['sealed']> };
};

const reveal = (app: FastifyInstance, table: string, seq: number | string, token: string) =>
  app.inject({ method: 'POST', url: `/v1/tables/${table}/rolls/${seq}/reveal`, payload: { token } });

const logOf = async (app: FastifyInstance, table: string) =>
  (await app.inject({ url: `/v1/tables/${table}/rolls` })).json() as Log;

describe('sealed rolls (SQLite)', () => {
  let app: FastifyInstance;
  let jwks: Jwks;
  beforeAll(async () => {
    app = await makeApp({ dataDir: tempDir() });
    jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
  });
  afterAll(() => app.close());

  it('logs only the commitment; the roller alone gets the roll, receipt, salt and token', async () => {
    const table = await createTable(app);
    await rollAt(app, table, { formula: '1d6' });
    const rolled = await sealedRoll(app, table, { by: 'GM', note: 'ambush check' });
    const { entry, salt, revealToken } = rolled.sealed;
    expect(rolled.total).toBe(rolled.receipt.roll.total);
    expect(rolled.receipt).toMatchObject({
      table,
      seq: 2,
      request: { formula: '1d20+5', by: 'GM', note: 'ambush check', sealed: true },
    });
    expect(entry).toMatchObject({
      table,
      seq: 2,
      prev: rolled.receipt.prev,
      request: { formula: '1d20+5', by: 'GM', sealed: true },
    });
    expect(revealToken.length).toBeGreaterThan(20);
    expect(await verifyReveal(entry, rolled.receipt, salt)).toEqual({ valid: true });

    const log = await logOf(app, table);
    expect(log.entries).toBe(2);
    const shown = log.rolls[1] as SealedEntry;
    expect(shown).toEqual(entry);
    const text = JSON.stringify(log);
    for (const secret of [salt, revealToken, 'ambush check', rolled.receipt.signature])
      expect(text).not.toContain(secret);
    expect(await verifyChain(log.rolls, jwks, log.head)).toEqual({
      valid: true,
      entries: 2,
      sealed: 1,
      revealed: 0,
    });
  });

  it('reveals with the token once, into the log, verifiable against the commitment', async () => {
    const table = await createTable(app);
    const rolled = await sealedRoll(app, table);
    const { entry, revealToken } = rolled.sealed;
    expectError(await reveal(app, table, entry.seq, 'not-the-token'), 403, 'wrong_reveal_token');
    expectError(await reveal(app, table, 7, revealToken), 404, 'not_sealed');
    expectError(await reveal(app, 'AAAAAAAAAAAAAAAAAAAAAAAA', entry.seq, revealToken), 404, 'not_found');

    const answer = await reveal(app, table, entry.seq, revealToken);
    expect(answer.statusCode, answer.body).toBe(200);
    const revealed = answer.json() as RevealEntry;
    expect(revealed).toMatchObject({
      table,
      seq: 2,
      reveal: { seq: 1, receipt: rolled.receipt, salt: rolled.sealed.salt },
    });
    expectError(await reveal(app, table, entry.seq, revealToken), 409, 'already_revealed');

    const log = await logOf(app, table);
    expect(log.rolls).toEqual([entry, revealed]);
    expect(await verifyChain(log.rolls, jwks, log.head)).toEqual({
      valid: true,
      entries: 2,
      sealed: 1,
      revealed: 1,
    });
    const verified = await app.inject({
      method: 'POST',
      url: '/v1/receipts/verify',
      payload: { rolls: log.rolls, head: log.head },
    });
    expect(verified.json()).toMatchObject({ valid: true, entries: 2 });
    // An open entry is no sealed one.
    await rollAt(app, table, { formula: '1d4' });
    expectError(await reveal(app, table, 3, revealToken), 404, 'not_sealed');
  });

  it('reveals once under concurrent reveals', async () => {
    const table = await createTable(app);
    const { sealed } = await sealedRoll(app, table);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => reveal(app, table, sealed.entry.seq, sealed.revealToken)),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await logOf(app, table)).entries).toBe(2);
  });

  it('publishes the sealed entry and the reveal on the event stream, never the secret', async () => {
    const base = await listen(app);
    const table = await createTable(app);
    const stream = await openEvents(base, `/v1/tables/${table}/events`);
    try {
      await stream.waitFor(1, undefined, 'head');
      const rolled = await sealedRoll(app, table, { note: 'trap' });
      await reveal(app, table, 1, rolled.sealed.revealToken);
      const events = await stream.waitFor(2, undefined, 'roll');
      const [first, second] = events.map((event) => JSON.parse(event.data) as TableEntry);
      expect(first).toEqual(rolled.sealed.entry);
      expect(events[0]!.data).not.toContain(rolled.sealed.salt);
      expect(events[0]!.data).not.toContain('trap');
      expect((second as RevealEntry).reveal.seq).toBe(1);
    } finally {
      stream.close();
    }
  });

  it('takes sealed over tRPC, refuses a sealed roll at no table with not_found', async () => {
    const table = await createTable(app);
    const answer = await app.inject({
      method: 'POST',
      url: '/trpc/tableRoll',
      payload: { id: table, formula: '2d6', sealed: true },
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const data = (answer.json() as { result: { data: TableRollResponse } }).result.data;
    expect(data.sealed?.entry.seq).toBe(1);
    const revealed = await app.inject({
      method: 'POST',
      url: '/trpc/revealRoll',
      payload: { id: table, seq: 1, token: data.sealed!.revealToken },
    });
    expect(revealed.statusCode, revealed.body).toBe(200);
    expectError(
      await rollAt(app, 'AAAAAAAAAAAAAAAAAAAAAAAA', { formula: '1d6', sealed: true }),
      404,
      'not_found',
    );
  });

  it('keeps the token out of the store; the same caller and key replay the answer, another caller cannot', async () => {
    const dataDir = tempDir();
    const own = await makeApp({ dataDir });
    try {
      const table = await createTable(own);
      const first = await rollAt(own, table, { formula: '1d20', sealed: true }, 'gm-secret-1');
      expect(first.statusCode, first.body).toBe(200);
      const { sealed } = first.json() as TableRollResponse;
      const again = await rollAt(own, table, { formula: '1d20', sealed: true }, 'gm-secret-1');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      const other = await rollAt(own, table, { formula: '1d20', sealed: true }, 'gm-secret-1', '10.9.9.9');
      expect(other.body).not.toContain(sealed!.revealToken);
      const file = (own as unknown as { trust: { store: { file: string } } }).trust.store.file;
      await own.close();
      const bytes = readFileSync(file).toString('latin1');
      expect(bytes).not.toContain(sealed!.revealToken);
      expect(bytes).toContain(sealed!.entry.commitment);
    } finally {
      await own.close();
    }
  });

  it('keeps sealed entries, reveals and the one-reveal rule across a restart', async () => {
    const own = await makeApp({ dataDir: tempDir() });
    const file = (own as unknown as { trust: { store: { file: string } } }).trust.store.file;
    const table = await createTable(own);
    const kept = await sealedRoll(own, table);
    const revealedBefore = await sealedRoll(own, table);
    expect((await reveal(own, table, 2, revealedBefore.sealed.revealToken)).statusCode).toBe(200);
    const before = ((await own.inject({ url: '/.well-known/jwks.json' })).json() as Jwks).keys;
    await own.close();
    const reopened = await makeApp({ dataDir: join(file, '..') });
    try {
      expectError(
        await reveal(reopened, table, 2, revealedBefore.sealed.revealToken),
        409,
        'already_revealed',
      );
      expectError(await reveal(reopened, table, 1, 'wrong'), 403, 'wrong_reveal_token');
      const answer = await reveal(reopened, table, 1, kept.sealed.revealToken);
      expect(answer.statusCode, answer.body).toBe(200);
      const log = await logOf(reopened, table);
      // The test apps sign with a new key after a restart: the log verifies against both.
      const after = ((await reopened.inject({ url: '/.well-known/jwks.json' })).json() as Jwks).keys;
      expect(await verifyChain(log.rolls, { keys: [...before, ...after] }, log.head)).toEqual({
        valid: true,
        entries: 4,
        sealed: 2,
        revealed: 2,
      });
    } finally {
      await reopened.close();
    }
  });
});

describeWithRedis('sealed rolls across two instances on one Redis', (executable) => {
  const apps = twoAppsOnOneRedis(executable, { dataDir: tempDir() });
  let a: FastifyInstance;
  let b: FastifyInstance;
  let jwks: Jwks;
  beforeAll(async () => {
    ({ a, b } = apps);
    // Each instance signs with its own key here: the log verifies against both.
    const keysOf = async (app: FastifyInstance) =>
      ((await app.inject({ url: '/.well-known/jwks.json' })).json() as Jwks).keys;
    jwks = { keys: [...(await keysOf(a)), ...(await keysOf(b))] };
  });

  it('seals on one instance, reveals on the other, once, under racing reveals on both', async () => {
    const table = await createTable(a);
    const rolled = await sealedRoll(a, table);
    expectError(await reveal(b, table, 1, 'wrong'), 403, 'wrong_reveal_token');
    const answers = await Promise.all(
      [a, b, a, b, a, b].map((app) => reveal(app, table, 1, rolled.sealed.revealToken)),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const log = await logOf(b, table);
    expect(log.entries).toBe(2);
    expect(await verifyChain(log.rolls, jwks, log.head)).toEqual({
      valid: true,
      entries: 2,
      sealed: 1,
      revealed: 1,
    });
    expectError(await reveal(a, table, 1, rolled.sealed.revealToken), 409, 'already_revealed');
    expectError(await reveal(b, table, 2, rolled.sealed.revealToken), 404, 'not_sealed');
  });

  it('keeps them when both instances restart on the same Redis', async () => {
    const table = await createTable(a);
    const rolled = await sealedRoll(b, table);
    await a.close();
    await b.close();
    // The suite closes the instances it holds: the restarted ones.
    const config: Partial<Config> = { redisUrl: apps.redis.url, dataDir: tempDir() };
    a = apps.a = await makeApp(config);
    b = apps.b = await makeApp(config);
    const answer = await reveal(a, table, 1, rolled.sealed.revealToken);
    expect(answer.statusCode, answer.body).toBe(200);
    expectError(await reveal(b, table, 1, rolled.sealed.revealToken), 409, 'already_revealed');
  });
});
