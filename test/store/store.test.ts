// Both stores against the same expectations, for real: an SQLite file in a temporary directory
// and a redis-server child process.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyChain, verifyReceipt } from '@fairdice/client/verify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_PREV } from '../../src/store/chain.js';
import { RedisStore } from '../../src/store/redis.js';
import { openDatabase, SQLITE_DRIVER, SQLITE_FILE_NAME, SqliteStore } from '../../src/store/sqlite.js';
import {
  AlreadyRevealedError,
  NotSealedError,
  type Store,
  type StoreLimits,
  StoreUnavailableError,
  TableFullError,
  TableNotFoundError,
  TooManyTablesError,
} from '../../src/store/store.js';
import { loadSigningKeys, type SigningKeys } from '../../src/trust/keys.js';
import type { Receipt, RevealEntry, SealedEntry, TableEntry } from '../../src/trust/receipt.js';
import { sealCommitment, signEntry, signReceipt } from '../../src/trust/sign.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { until } from '../support/wait.js';

const LIMITS: StoreLimits = { retentionMs: 3_600_000, maxEntries: 5, tablesPerHour: 3 };
const roll = {
  formula: '1d20',
  dice: [],
  modifier: 4,
  modifiers: [4],
  total: 4,
  advantageState: 'normal' as const,
};

let keys: SigningKeys;
beforeAll(async () => {
  keys = await loadSigningKeys();
});

let tableCount = 0;
const newTableId = () => `t${process.pid}x${Date.now()}x${++tableCount}`;

const entry =
  (tableId: string, formula = '1d20') =>
  (seq: number, prev: string) =>
    signReceipt(keys, { request: { formula }, roll, table: tableId, seq, prev });

const SALT = 'cd'.repeat(32);

/**
 * A sealed roll's entry as the service builds one (src/trust/service.ts): what was asked and the
 * commitment to the receipt it hides; `hidden` gets that receipt once the entry is built.
 */
function sealedEntry(tableId: string) {
  const hidden: { receipt?: Receipt } = {};
  const build = (seq: number, prev: string): SealedEntry => {
    const request = { formula: '1d20', sealed: true as const };
    const receipt = signReceipt(keys, { request, roll, table: tableId, seq, prev });
    hidden.receipt = receipt;
    const commitment = sealCommitment(receipt, SALT);
    return signEntry(keys, { table: tableId, seq, prev, request, commitment });
  };
  return { build, hidden };
}

/** The reveal of sealed entry `sealedSeq`, which hid `receipt`. */
const revealEntry =
  (tableId: string, sealedSeq: number, receipt: Receipt) =>
  (seq: number, prev: string): RevealEntry =>
    signEntry(keys, { table: tableId, seq, prev, reveal: { seq: sealedSeq, receipt, salt: SALT } });

/** Appends a sealed roll to `tableId`, keeping `secret` for it; answers its seq and hidden receipt. */
async function appendSealed(store: Store, tableId: string, secret: string, now: number) {
  const sealed = sealedEntry(tableId);
  const entry = await store.append(tableId, sealed.build, now, { keep: () => secret });
  return { seq: entry.seq!, receipt: sealed.hidden.receipt! };
}

/** Two reveals of one sealed entry at once, on `stores` (one store twice, or two): exactly one is appended. */
async function expectOneOfTwoReveals(stores: [Store, Store], now: number) {
  const [store, other] = stores;
  const id = newTableId();
  await store.createTable(id, '10.0.0.6', now);
  const sealed = await appendSealed(store, id, 'secret-1', now);
  const outcomes = await Promise.allSettled(
    [store, other].map((each) =>
      each.append(id, revealEntry(id, sealed.seq, sealed.receipt), now, { reveals: 1 }),
    ),
  );
  const appended = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
  expect(appended.map((entry) => entry.seq)).toEqual([2]);
  expect(refused).toHaveLength(1);
  expect(refused[0]).toBeInstanceOf(AlreadyRevealedError);
  expect((refused[0] as AlreadyRevealedError).revealedIn).toBe(2);
  // And a third, later, too.
  await expect(
    store.append(id, revealEntry(id, sealed.seq, sealed.receipt), now, { reveals: 1 }),
  ).rejects.toBeInstanceOf(AlreadyRevealedError);
  const log = (await store.rolls(id, 0, 100, now))!;
  expect(log.map((entry) => ('reveal' in entry ? `reveal of ${entry.reveal.seq}` : entry.seq))).toEqual([
    1,
    'reveal of 1',
  ]);
  expect(await verifyChain(log, keys.jwks)).toEqual({ valid: true, entries: 2, sealed: 1, revealed: 1 });
  expect(await other.sealed(id, 1, now)).toEqual({ secret: 'secret-1', revealedIn: 2 });
}

function storeContract(name: string, open: () => Store | Promise<Store>) {
  describe(name, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it('appends a hash chain of signed entries that verifies, and lists it after N', async () => {
      const now = Date.now();
      const id = newTableId();
      expect(await store.createTable(id, '10.0.0.1', now)).toEqual({
        id,
        createdAt: now,
        entries: 0,
        lastHash: GENESIS_PREV,
      });
      for (let i = 0; i < 3; i++) await store.append(id, entry(id, `1d${6 + i}`), now);
      const all = await store.rolls(id, 0, 100, now);
      expect(all?.map((receipt) => receipt.seq)).toEqual([1, 2, 3]);
      expect(await verifyChain(all!, keys.jwks)).toEqual({ valid: true, entries: 3 });
      expect(
        (await store.rolls(id, 2, 100, now))?.map((receipt) => (receipt as Receipt).request.formula),
      ).toEqual(['1d8']);
      expect((await store.rolls(id, 0, 2, now))?.length).toBe(2);
      expect((await store.table(id, now))?.entries).toBe(3);
      expect(await store.receipt(all![1]!.id, now)).toEqual(all![1]);
    });

    it('gives concurrent appends distinct sequence numbers in one unbroken chain', async () => {
      const now = Date.now();
      const id = newTableId();
      await store.createTable(id, '10.0.0.2', now);
      const made = await Promise.all(Array.from({ length: 5 }, () => store.append(id, entry(id), now)));
      expect(made.map((receipt) => receipt.seq).sort()).toEqual([1, 2, 3, 4, 5]);
      expect(await verifyChain((await store.rolls(id, 0, 100, now))!, keys.jwks)).toMatchObject({
        valid: true,
      });
    });

    it('refuses an entry over the table maximum, and appends to an unknown table', async () => {
      const now = Date.now();
      const id = newTableId();
      await store.createTable(id, '10.0.0.3', now);
      for (let i = 0; i < LIMITS.maxEntries; i++) await store.append(id, entry(id), now);
      await expect(store.append(id, entry(id), now)).rejects.toBeInstanceOf(TableFullError);
      await expect(store.append('nope', entry('nope'), now)).rejects.toBeInstanceOf(TableNotFoundError);
      expect(await store.rolls('nope', 0, 10, now)).toBeUndefined();
      expect(await store.table('nope', now)).toBeUndefined();
    });

    it('chains a sealed entry like any other, keeping its secret, and it is no receipt', async () => {
      const now = Date.now();
      const id = newTableId();
      await store.createTable(id, '10.0.0.5', now);
      await store.append(id, entry(id), now);
      const sealed = await appendSealed(store, id, 'secret-2', now);
      expect(sealed.seq).toBe(2);
      await store.append(id, entry(id, '1d8'), now);
      const log = (await store.rolls(id, 0, 100, now))!;
      expect(log.map((each) => ('commitment' in each ? 'sealed' : 'roll'))).toEqual([
        'roll',
        'sealed',
        'roll',
      ]);
      expect(await verifyChain(log, keys.jwks)).toEqual({ valid: true, entries: 3, sealed: 1, revealed: 0 });
      expect(await store.sealed(id, 2, now)).toEqual({ secret: 'secret-2', revealedIn: undefined });
      expect(await store.sealed(id, 1, now)).toBeUndefined();
      expect(await store.receipt(log[1]!.id, now)).toBeUndefined();
      // Revealed later, the log still verifies: the reveal opens the commitment.
      await store.append(id, revealEntry(id, 2, sealed.receipt), now, { reveals: 2 });
      expect(await verifyChain((await store.rolls(id, 0, 100, now))!, keys.jwks)).toEqual({
        valid: true,
        entries: 4,
        sealed: 1,
        revealed: 1,
      });
    });

    it('appends exactly one of two reveals of one sealed entry sent at once', async () => {
      await expectOneOfTwoReveals([store, store], Date.now());
    });

    it('refuses a reveal of an open roll or of an entry that does not exist, appending nothing', async () => {
      const now = Date.now();
      const id = newTableId();
      await store.createTable(id, '10.0.0.7', now);
      const open = await store.append(id, entry(id), now);
      for (const seq of [1, 2, 9]) {
        await expect(
          store.append(id, revealEntry(id, seq, open), now, { reveals: seq }),
        ).rejects.toBeInstanceOf(NotSealedError);
      }
      expect((await store.table(id, now))?.entries).toBe(1);
      expect((await store.rolls(id, 0, 100, now))?.length).toBe(1);
      expect(await store.sealed(id, 1, now)).toBeUndefined();
    });

    it('counts table creations per address per hour', async () => {
      const now = Date.now();
      const address = `10.1.${tableCount}.9`;
      for (let i = 0; i < LIMITS.tablesPerHour; i++) await store.createTable(newTableId(), address, now);
      await expect(store.createTable(newTableId(), address, now)).rejects.toBeInstanceOf(TooManyTablesError);
      await store.createTable(newTableId(), `${address}1`, now);
    });

    it('keeps receipts made outside tables', async () => {
      const now = Date.now();
      const receipt = signReceipt(keys, { request: { formula: '1d4' }, roll });
      await store.saveReceipt(receipt, now);
      const back = await store.receipt(receipt.id, now);
      expect(back).toEqual(receipt);
      expect(await verifyReceipt(back, keys.jwks)).toMatchObject({ valid: true });
      expect(await store.receipt('0190a000-0000-7000-8000-000000000000', now)).toBeUndefined();
    });

    it('holds at most the limit of event-stream places per address, and gives them back', async () => {
      const address = `10.6.${process.pid % 250}.${++tableCount % 250}`;
      const first = await store.holdStream(address, 2);
      const second = await store.holdStream(address, 2);
      expect([typeof first, typeof second]).toEqual(['function', 'function']);
      expect(await store.holdStream(address, 2)).toBeUndefined();
      const other = await store.holdStream(`${address}9`, 2);
      expect(other).toBeTypeOf('function');
      first!();
      first!(); // twice: still one place given back
      const third = await store.holdStream(address, 2);
      expect(third).toBeTypeOf('function');
      expect(await store.holdStream(address, 2)).toBeUndefined();
      for (const release of [second, third, other]) release!();
    });

    it("keeps a chat channel's table, replaced by the next one, and none for another channel", async () => {
      const now = Date.now();
      const channel = `discord:${process.pid}${++tableCount}`;
      expect(await store.channelTable(channel, now)).toBeUndefined();
      const first = newTableId();
      await store.createTable(first, '10.8.0.1', now);
      await store.setChannelTable(channel, first, now);
      expect(await store.channelTable(channel, now)).toBe(first);
      const second = newTableId();
      await store.createTable(second, '10.8.0.1', now);
      await store.setChannelTable(channel, second, now);
      expect(await store.channelTable(channel, now)).toBe(second);
      expect(await store.channelTable(`${channel}0`, now)).toBeUndefined();
      // A mapping to a table that does not exist (expired) reads as none.
      await store.setChannelTable(`${channel}x`, 'no-such-table', now);
      expect(await store.channelTable(`${channel}x`, now)).toBeUndefined();
    });

    it('delivers appended entries to subscribers until they unsubscribe', async () => {
      const now = Date.now();
      const id = newTableId();
      await store.createTable(id, '10.0.0.4', now);
      const seen: TableEntry[] = [];
      const stop = await store.subscribe(id, (receipt) => seen.push(receipt));
      await store.append(id, entry(id), now);
      await store.append(id, entry(id), now);
      await until(() => seen.length === 2, 'two live entries');
      stop();
      await store.append(id, entry(id), now);
      const after = (await store.rolls(id, 0, 10, now))!;
      expect(after.length).toBe(3);
      expect(seen.map((receipt) => receipt.seq)).toEqual([1, 2]);
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'fairdice-store-'));
storeContract('SqliteStore', () => new SqliteStore(dataDir, LIMITS));

describe('SqliteStore across restarts', () => {
  it('continues a table chain in a new store on the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-restart-'));
    const now = Date.now();
    const id = newTableId();
    const first = new SqliteStore(dir, LIMITS);
    await first.createTable(id, '10.2.0.1', now);
    await first.append(id, entry(id), now);
    await first.append(id, entry(id), now);
    await first.close();
    const second = new SqliteStore(dir, LIMITS);
    await second.append(id, entry(id), now);
    const all = (await second.rolls(id, 0, 10, now))!;
    expect(all.map((receipt) => receipt.seq)).toEqual([1, 2, 3]);
    expect(await verifyChain(all, keys.jwks)).toMatchObject({ valid: true });
    await second.close();
  });

  it("uses Node's own node:sqlite from Node 22.13 on, better-sqlite3 before", async () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const builtIn = major > 22 || (major === 22 && minor >= 13);
    expect(SQLITE_DRIVER).toBe(builtIn ? 'node:sqlite' : 'better-sqlite3');
    const store = new SqliteStore(mkdtempSync(join(tmpdir(), 'fairdice-driver-')), LIMITS);
    expect(store.driver).toBe(SQLITE_DRIVER);
    await store.close();
  });

  it('opens a file another process holds locked once the lock is let go, not "database is locked"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-locked-'));
    const holder = openDatabase(join(dir, SQLITE_FILE_NAME));
    // A lock on an empty file does not stop a reader: the file holds a table first.
    holder.exec('CREATE TABLE held (x INTEGER); BEGIN EXCLUSIVE');
    // Another process, as a second instance or the verifier would be: it opens the store (which
    // switches the file to WAL, needing the lock) while this one still holds it, and this one lets
    // go 300 ms after the other says it is opening.
    const sqlite = fileURLToPath(new URL('../../src/store/sqlite.ts', import.meta.url));
    const opener = `const { SqliteStore } = await import(${JSON.stringify(sqlite)});
      console.log('opening');
      const store = new SqliteStore(${JSON.stringify(dir)}, { retentionMs: 1000, maxEntries: 1, tablesPerHour: 1 });
      await store.close(); console.log('opened');`;
    // Node 22 and early 24 warn on stderr that node:sqlite is experimental: not this test's concern.
    const child = execFile(process.execPath, [
      '--disable-warning=ExperimentalWarning',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      opener,
    ]);
    let release: NodeJS.Timeout | undefined;
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (release === undefined && stdout.includes('opening')) {
        release = setTimeout(() => holder.exec('COMMIT'), 300);
      }
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(release);
    holder.close();
    expect({ code, stdout: stdout.trim().split('\n'), stderr: stderr.slice(0, 500) }).toEqual({
      code: 0,
      stdout: ['opening', 'opened'],
      stderr: '',
    });
  });

  it('rolls back an append whose entry cannot be built, and the chain goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-rollback-'));
    const store = new SqliteStore(dir, LIMITS);
    const now = Date.now();
    const id = newTableId();
    await store.createTable(id, '10.4.0.1', now);
    await store.append(id, entry(id), now);
    const failing = (seq: number, prev: string) => {
      signReceipt(keys, { request: { formula: '1d20' }, roll, table: id, seq, prev });
      throw new Error('builder failed');
    };
    await expect(store.append(id, failing, now)).rejects.toThrow('builder failed');
    expect(await store.table(id, now)).toMatchObject({ entries: 1 });
    await store.append(id, entry(id), now);
    const all = (await store.rolls(id, 0, 10, now))!;
    expect(all.map((receipt) => receipt.seq)).toEqual([1, 2]);
    expect(await verifyChain(all, keys.jwks)).toMatchObject({ valid: true });
    await store.close();
  });

  it('forgets tables idle longer than the retention, and old receipts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairdice-retention-'));
    const store = new SqliteStore(dir, LIMITS);
    const then = Date.now() - 2 * LIMITS.retentionMs;
    const id = newTableId();
    await store.createTable(id, '10.3.0.1', then);
    const old = await store.append(id, entry(id), then);
    expect(await store.table(id, then)).toBeDefined();
    expect(await store.table(id, Date.now())).toBeUndefined();
    expect(await store.receipt(old.id, Date.now())).toBeUndefined();
    await store.setChannelTable('discord:old', id, then);
    expect(await store.channelTable('discord:old', then)).toBe(id);
    expect(await store.channelTable('discord:old', Date.now())).toBeUndefined();
    store.sweep(Date.now());
    expect(await store.rolls(id, 0, 10, then)).toBeUndefined();
    // The sweep took the mapping with its table: the same table seen from its own time is gone too.
    expect(await store.channelTable('discord:old', then)).toBeUndefined();
    await store.close();
  });
});

describeWithRedis('RedisStore', (executable) => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis(executable);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  storeContract('contract', async () => {
    const store = new RedisStore(redis.url, LIMITS, `test${process.pid}:`);
    await store.ready();
    return store;
  });

  it('two stores on one Redis share a chain, and live entries reach the other', async () => {
    const a = new RedisStore(redis.url, LIMITS, 'shared:');
    const b = new RedisStore(redis.url, LIMITS, 'shared:');
    await Promise.all([a.ready(), b.ready()]);
    const now = Date.now();
    const id = newTableId();
    await a.createTable(id, '10.4.0.1', now);
    const seen: TableEntry[] = [];
    const stop = await b.subscribe(id, (receipt) => seen.push(receipt));
    await a.append(id, entry(id), now);
    await b.append(id, entry(id), now);
    await until(() => seen.length === 2, 'entries from both stores');
    expect(seen.map((receipt) => receipt.seq)).toEqual([1, 2]);
    expect(await verifyChain((await a.rolls(id, 0, 10, now))!, keys.jwks)).toMatchObject({ valid: true });
    stop();
    await a.close();
    await b.close();
  });

  it('appends exactly one of two reveals of one sealed entry sent at once to two stores on one Redis', async () => {
    const a = new RedisStore(redis.url, LIMITS, 'shared:');
    const b = new RedisStore(redis.url, LIMITS, 'shared:');
    try {
      await Promise.all([a.ready(), b.ready()]);
      await expectOneOfTwoReveals([a, b], Date.now());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('counts event-stream places across stores on one Redis; a vanished store loses its own', async () => {
    const leaseMs = 1_500;
    const a = new RedisStore(redis.url, LIMITS, 'streams:', leaseMs);
    const b = new RedisStore(redis.url, LIMITS, 'streams:', leaseMs);
    await Promise.all([a.ready(), b.ready()]);
    const onA = await a.holdStream('10.7.0.1', 2);
    const onB = await b.holdStream('10.7.0.1', 2);
    expect([typeof onA, typeof onB]).toEqual(['function', 'function']);
    expect(await a.holdStream('10.7.0.1', 2)).toBeUndefined();
    onB!();
    await until(async () => {
      const again = await a.holdStream('10.7.0.1', 2);
      again?.();
      return again !== undefined;
    }, "b's place given back");
    // a's place outlives several leases while a renews it...
    await new Promise((resolve) => setTimeout(resolve, 2 * leaseMs));
    const full = [await b.holdStream('10.7.0.1', 2)];
    expect(full[0]).toBeTypeOf('function');
    expect(await b.holdStream('10.7.0.1', 2)).toBeUndefined();
    // ...and lapses once a is gone without giving it back (a crashed instance).
    await a.close();
    await until(async () => {
      const taken = await b.holdStream('10.7.0.1', 2);
      if (taken !== undefined) full.push(taken);
      return taken !== undefined;
    }, "a's lapsed place");
    for (const release of full) release!();
    expect(onA).toBeTypeOf('function');
    await b.close();
  });

  it('answers StoreUnavailableError while Redis is down, and works again once it is back', async () => {
    const store = new RedisStore(redis.url, LIMITS, 'down:');
    await store.ready();
    await redis.kill();
    const now = Date.now();
    await expect(store.createTable(newTableId(), '10.5.0.1', now)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(store.receipt('x', now)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.subscribe('x', () => {})).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.holdStream('10.5.0.1', 2)).rejects.toBeInstanceOf(StoreUnavailableError);
    await redis.restart();
    await until(async () => {
      try {
        await store.table('x', now);
        return true;
      } catch {
        return false;
      }
    }, 'the store to reconnect');
    const id = newTableId();
    await store.createTable(id, '10.5.0.2', now);
    expect((await store.append(id, entry(id), now)).seq).toBe(1);
    await store.close();
  });
});
