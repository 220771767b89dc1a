// Receipts and tables with the real server processes: a key file others can read is refused at
// start; an SQLite table survives a crash of the service mid-table; two instances on one Redis
// share a table live and one per-address cap on event streams; Redis down means 503 for tables
// while plain rolls go on.
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain } from '@fairdice/client/verify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Jwks, Receipt, TableHead } from '../../src/trust/receipt.js';
import { openEvents } from '../support/events.js';
import { freePort, send } from '../support/http.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { killServer, type ServerProcess, startServer } from '../support/server-process.js';
import { until } from '../support/wait.js';

// Child processes, started one after another: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 });

const dir = mkdtempSync(join(tmpdir(), 'fairdice-trust-server-'));

function keyFile(mode: number): string {
  const file = join(dir, `key-${mode.toString(8)}-${Date.now()}.pem`);
  const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  writeFileSync(file, pem);
  chmodSync(file, mode);
  return file;
}

const running: ServerProcess[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await killServer(server);
});

async function serve(env: Record<string, string>): Promise<{ server: ServerProcess; base: string }> {
  const port = await freePort();
  const server = startServer({ PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT_MAX: '100000', ...env });
  running.push(server);
  await server.waitForLine((line) => /Server listening at/.test(line.msg ?? ''), 'listening');
  return { server, base: `http://127.0.0.1:${port}` };
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const answer = await send(base, {
    method,
    path,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    chunks: body === undefined ? [] : [JSON.stringify(body)],
  });
  return { status: answer.status, json: JSON.parse(answer.body) as Record<string, unknown> };
}

const rollAt = (base: string, table: string, formula = '1d20') =>
  call(base, 'POST', '/v1/roll', { formula, table });

describe('signing key at start', () => {
  it('refuses a key file readable by group or others, naming the fix', async () => {
    const server = startServer({
      PORT: '0',
      SIGNING_KEY_FILE: keyFile(0o644),
      DATA_DIR: join(dir, 'refused'),
    });
    running.push(server);
    expect(await server.exited()).toBe(1);
    expect(server.stderr()).toMatch(/readable by group or others.*chmod 600/);
  });

  it('warns loudly when it has to generate a key', async () => {
    const { server } = await serve({ DATA_DIR: join(dir, 'generated') });
    const warning = await server.waitForLine(
      (line) => /SIGNING_KEY_FILE is not set/.test(line.msg ?? ''),
      'the warning',
    );
    expect(warning.level).toBe(40);
    expect(JSON.stringify(server.lines)).not.toMatch(/PRIVATE KEY/);
  });
});

describe('SQLite store across a crash of the service', () => {
  it('continues the chain after SIGKILL and a restart on the same DATA_DIR and key', async () => {
    const env = { DATA_DIR: join(dir, 'restart'), SIGNING_KEY_FILE: keyFile(0o600) };
    const first = await serve(env);
    const table = (await call(first.base, 'POST', '/v1/tables')).json.id as string;
    expect((await rollAt(first.base, table, '1d4')).status).toBe(200);
    expect((await rollAt(first.base, table, '1d6')).status).toBe(200);
    first.server.child.kill('SIGKILL');
    await first.server.exited();

    const second = await serve(env);
    expect((await rollAt(second.base, table, '1d8')).status).toBe(200);
    const log = (await call(second.base, 'GET', `/v1/tables/${table}/rolls`)).json as { rolls: Receipt[] };
    expect(log.rolls.map((receipt) => receipt.request.formula)).toEqual(['1d4', '1d6', '1d8']);
    const jwks = (await call(second.base, 'GET', '/.well-known/jwks.json')).json as unknown as Jwks;
    expect(await verifyChain(log.rolls, jwks)).toEqual({ valid: true, entries: 3 });
  });
});

describe('SQLite store: heads and idempotency keys across SIGKILL', () => {
  it('after 200 rolls and a kill right after an acknowledged one, the log verifies against the last head and the key replays', async () => {
    const env = { DATA_DIR: join(dir, 'durable'), SIGNING_KEY_FILE: keyFile(0o600) };
    const first = await serve(env);
    const table = (await call(first.base, 'POST', '/v1/tables')).json.id as string;
    const rollWithKey = (base: string, key: string) =>
      send(base, {
        method: 'POST',
        path: '/v1/roll',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        chunks: [JSON.stringify({ formula: '1d20', table, by: 'Mira' })],
      });
    // Bounded: 200 rolls, 8 at a time.
    for (let start = 0; start < 200; start += 8) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => rollWithKey(first.base, `roll-${start + i}`)),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    }
    const held = (await call(first.base, 'GET', `/v1/tables/${table}/rolls?limit=1`)).json.head as TableHead;
    expect(held.entries).toBe(200);
    const last = await rollWithKey(first.base, 'the-last');
    expect(last.status).toBe(200);
    first.server.child.kill('SIGKILL');
    await first.server.exited();

    const second = await serve(env);
    const rolls: Receipt[] = [];
    let head: TableHead | undefined;
    for (let after = 0; ; after += 100) {
      const page = (await call(second.base, 'GET', `/v1/tables/${table}/rolls?after=${after}`)).json as {
        rolls: Receipt[];
        head: TableHead;
      };
      rolls.push(...page.rolls);
      head = page.head;
      if (page.rolls.length < 100) break;
    }
    const jwks = (await call(second.base, 'GET', '/.well-known/jwks.json')).json as unknown as Jwks;
    // The acknowledged roll made it, and the log holds to the head held before the kill and to the new one.
    expect(rolls.at(-1)).toEqual((JSON.parse(last.body) as { receipt: Receipt }).receipt);
    expect(await verifyChain(rolls, jwks, held)).toEqual({ valid: true, entries: 201 });
    expect(await verifyChain(rolls, jwks, head)).toEqual({ valid: true, entries: 201 });
    // Its key survived too: the same request answers the same roll, and no entry is added.
    const replayed = await rollWithKey(second.base, 'the-last');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(last.body);
    expect((await call(second.base, 'GET', `/v1/tables/${table}/rolls?limit=1`)).json.entries).toBe(201);
  }, 120_000);
});

describeWithRedis('Redis store with real instances', (executable) => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis(executable);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('an event stream on one instance sees rolls made on the other, in one chain', async () => {
    const env = { REDIS_URL: redis.url, SIGNING_KEY_FILE: keyFile(0o600), SSE_CONNECTIONS_PER_ADDRESS: '2' };
    const [a, b] = await Promise.all([serve(env), serve(env)]);
    const table = (await call(a.base, 'POST', '/v1/tables')).json.id as string;
    const stream = await openEvents(a.base, `/v1/tables/${table}/events`);
    expect(stream.status).toBe(200);
    // The per-address stream cap holds across the instances.
    const onB = await openEvents(b.base, `/v1/tables/${table}/events`);
    expect(onB.status).toBe(200);
    const third = await openEvents(a.base, `/v1/tables/${table}/events`);
    expect(third.status).toBe(429);
    expect(JSON.parse(await third.body())).toMatchObject({ error: { code: 'too_many_streams' } });
    onB.close();
    await until(async () => {
      const again = await openEvents(a.base, `/v1/tables/${table}/events`);
      again.close();
      return again.status === 200;
    }, 'the place b gave back');
    expect((await rollAt(b.base, table, '1d4')).status).toBe(200);
    expect((await rollAt(a.base, table, '1d6')).status).toBe(200);
    expect((await rollAt(b.base, table, '1d8')).status).toBe(200);
    const events = await stream.waitFor(3, undefined, 'roll');
    stream.close();
    const receipts = events.map((event) => JSON.parse(event.data) as Receipt);
    expect(receipts.map((receipt) => [receipt.seq, receipt.request.formula])).toEqual([
      [1, '1d4'],
      [2, '1d6'],
      [3, '1d8'],
    ]);
    const jwks = (await call(b.base, 'GET', '/.well-known/jwks.json')).json as unknown as Jwks;
    expect(await verifyChain(receipts, jwks)).toEqual({ valid: true, entries: 3 });
    const stored = await call(a.base, 'GET', `/v1/rolls/${receipts[0]!.id}`);
    expect(stored.json).toEqual(receipts[0]);
  });

  it('answers 503 for table operations while Redis is down, and plain rolls go on', async () => {
    const { base } = await serve({ REDIS_URL: redis.url, SIGNING_KEY_FILE: keyFile(0o600) });
    const table = (await call(base, 'POST', '/v1/tables')).json.id as string;
    await redis.kill();
    try {
      for (const answer of [
        await call(base, 'POST', '/v1/tables'),
        await rollAt(base, table),
        await call(base, 'GET', `/v1/tables/${table}/rolls`),
        await call(base, 'GET', '/v1/roll?formula=1d6&receipt=true'),
      ]) {
        expect(answer.status).toBe(503);
        expect(answer.json).toMatchObject({ error: { code: 'unavailable' } });
      }
      const events = await openEvents(base, `/v1/tables/${table}/events`);
      expect(events.status).toBe(503);
      const plain = await call(base, 'GET', '/v1/roll?formula=1d20');
      expect(plain.status).toBe(200);
      expect(plain.json).toHaveProperty('total');
    } finally {
      await redis.restart();
    }
  });
});
