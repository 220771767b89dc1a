// Tables and receipts in an SQLite file under DATA_DIR: the embedded default, created on first
// start. WAL mode: a commit is in the log before the caller is answered, so a restart of the
// service loses nothing acknowledged. One process per file (WORKERS>1 needs REDIS_URL), so live
// delivery is an in-process event. The SQLite driver is Node's own `node:sqlite` where Node has it
// (22.13 and later), better-sqlite3 on Node 20 (docs/trust.md, "Storage").
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Receipt, TableEntry } from '@fairdice/client/types';
import { GENESIS_PREV, receiptHashSync } from './chain.js';
import {
  AlreadyRevealedError,
  type EntryBuilder,
  type EntryListener,
  hourOf,
  type IdempotencyState,
  NotSealedError,
  type SealedRecord,
  type SealedWork,
  type Store,
  type StoreLimits,
  TableFullError,
  TableNotFoundError,
  type TableRecord,
  TooManyTablesError,
} from './store.js';

export const SQLITE_FILE_NAME = 'fairdice.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tables (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  entries INTEGER NOT NULL DEFAULT 0,
  last_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS receipts (
  id TEXT PRIMARY KEY,
  table_id TEXT,
  seq INTEGER,
  created_at INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS receipts_by_table ON receipts (table_id, seq) WHERE table_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS receipts_by_time ON receipts (created_at);
CREATE TABLE IF NOT EXISTS sealed (
  table_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  secret TEXT NOT NULL,
  revealed_in INTEGER,
  PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS idempotency (
  key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  body TEXT,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channel_tables (
  channel TEXT PRIMARY KEY,
  table_id TEXT NOT NULL
);
`;

/** A prepared statement, as both drivers have it (positional parameters only). */
export interface SqlStatement {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

type SqlValue = string | number | null;

/** The part of a database connection the store uses, as both drivers have it. */
export interface SqlDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export type SqliteDriver = 'node:sqlite' | 'better-sqlite3';

/**
 * Node's built-in driver when this Node has it unflagged, else better-sqlite3. Not better-sqlite3
 * everywhere: its objects derive from node::ObjectWrap, whose destructor in Node 24's headers
 * asks for the current Environment, and a statement the garbage collector frees while no
 * JavaScript context is entered (a GC run from V8's own task) then aborts the process
 * (`RemoveEnvironmentCleanupHook`: `(env) != nullptr`).
 */
export const SQLITE_DRIVER: SqliteDriver =
  process.getBuiltinModule('node:sqlite') === undefined ? 'better-sqlite3' : 'node:sqlite';

export function openDatabase(file: string): SqlDatabase {
  if (SQLITE_DRIVER === 'node:sqlite') {
    const { DatabaseSync } = process.getBuiltinModule('node:sqlite') as {
      DatabaseSync: new (path: string) => SqlDatabase;
    };
    return new DatabaseSync(file);
  }
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => SqlDatabase;
  return new Database(file);
}

interface TableRow {
  id: string;
  created_at: number;
  entries: number;
  last_hash: string;
  last_at: number;
}

const SWEEP_EVERY_MS = 3_600_000;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly file: string;
  readonly driver = SQLITE_DRIVER;
  private readonly db: SqlDatabase;
  private open = true;
  private readonly events = new EventEmitter();
  /** Creations per address in the current hour; one process owns the file, so memory is enough. */
  private creations = new Map<string, number>();
  private creationsHour = -1;
  /** Open event streams per address: one process owns the file, so memory is enough. */
  private readonly streams = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly statements;

  constructor(
    dataDir: string,
    private readonly limits: StoreLimits,
  ) {
    mkdirSync(dataDir, { recursive: true });
    this.file = join(dataDir, SQLITE_FILE_NAME);
    this.db = openDatabase(this.file);
    // The busy timeout first: switching a new file to WAL takes a lock, and another process opening
    // the same file at that moment (the verifier, a second instance started at once) would
    // otherwise be told "database is locked" at once (node:sqlite's default timeout is 0).
    // NORMAL in WAL mode: durable across a crash of the process; only a power loss may drop the last commits.
    this.db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    this.db.exec(SCHEMA);
    this.events.setMaxListeners(0);
    // Prepared once, here: every statement lives as long as the connection.
    this.statements = {
      table: this.db.prepare(
        'SELECT id, created_at, entries, last_hash, last_at FROM tables WHERE id = ? AND last_at >= ?',
      ),
      createTable: this.db.prepare(
        'INSERT INTO tables (id, created_at, last_at, entries, last_hash) VALUES (?, ?, ?, 0, ?)',
      ),
      advance: this.db.prepare('UPDATE tables SET entries = ?, last_hash = ?, last_at = ? WHERE id = ?'),
      insert: this.db.prepare(
        'INSERT INTO receipts (id, table_id, seq, created_at, body) VALUES (?, ?, ?, ?, ?)',
      ),
      receipt: this.db.prepare('SELECT body FROM receipts WHERE id = ? AND created_at >= ?'),
      rolls: this.db.prepare('SELECT body FROM receipts WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
      sweepTableLogs: this.db.prepare(
        'DELETE FROM receipts WHERE table_id IN (SELECT id FROM tables WHERE last_at < ?)',
      ),
      sweepTables: this.db.prepare('DELETE FROM tables WHERE last_at < ?'),
      sweepReceipts: this.db.prepare('DELETE FROM receipts WHERE table_id IS NULL AND created_at < ?'),
      // A channel's table lives as long as the table does: the mapping goes with it.
      channelTable: this.db.prepare(
        'SELECT c.table_id AS id FROM channel_tables c JOIN tables t ON t.id = c.table_id WHERE c.channel = ? AND t.last_at >= ?',
      ),
      setChannelTable: this.db.prepare(
        'INSERT INTO channel_tables (channel, table_id) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET table_id = excluded.table_id',
      ),
      idempotencyKey: this.db.prepare('SELECT fingerprint, body, expires_at FROM idempotency WHERE key = ?'),
      reserveIdempotencyKey: this.db.prepare(
        'INSERT OR REPLACE INTO idempotency (key, fingerprint, body, expires_at) VALUES (?, ?, NULL, ?)',
      ),
      completeIdempotencyKey: this.db.prepare(
        'UPDATE idempotency SET body = ?, expires_at = ? WHERE key = ? AND fingerprint = ?',
      ),
      releaseIdempotencyKey: this.db.prepare(
        'DELETE FROM idempotency WHERE key = ? AND fingerprint = ? AND body IS NULL',
      ),
      sweepIdempotency: this.db.prepare('DELETE FROM idempotency WHERE expires_at < ?'),
      keepSealed: this.db.prepare('INSERT OR REPLACE INTO sealed (table_id, seq, secret) VALUES (?, ?, ?)'),
      sealed: this.db.prepare('SELECT secret, revealed_in FROM sealed WHERE table_id = ? AND seq = ?'),
      markRevealed: this.db.prepare('UPDATE sealed SET revealed_in = ? WHERE table_id = ? AND seq = ?'),
      sweepSealed: this.db.prepare('DELETE FROM sealed WHERE table_id NOT IN (SELECT id FROM tables)'),
      sweepChannels: this.db.prepare(
        'DELETE FROM channel_tables WHERE table_id NOT IN (SELECT id FROM tables)',
      ),
    };
    this.sweep(Date.now());
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_EVERY_MS).unref();
  }

  /** Deletes what is past retention: idle tables with their logs, and old receipts outside tables. */
  sweep(now: number): void {
    const cutoff = now - this.limits.retentionMs;
    this.immediate(() => {
      this.statements.sweepTableLogs.run(cutoff);
      this.statements.sweepTables.run(cutoff);
      this.statements.sweepReceipts.run(cutoff);
      this.statements.sweepChannels.run();
      this.statements.sweepIdempotency.run(now);
      this.statements.sweepSealed.run();
    });
  }

  /** Runs `work` in one write transaction (BEGIN IMMEDIATE), rolled back if it or the commit throws. */
  private immediate<T>(work: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite already rolled back (some errors end the transaction themselves): the original error tells why.
      }
      throw error;
    }
  }

  private row(id: string, now: number): TableRow | undefined {
    return this.statements.table.get(id, now - this.limits.retentionMs) as TableRow | undefined;
  }

  async createTable(id: string, address: string, now: number): Promise<TableRecord> {
    const hour = hourOf(now);
    if (hour !== this.creationsHour) {
      this.creations = new Map();
      this.creationsHour = hour;
    }
    const count = (this.creations.get(address) ?? 0) + 1;
    if (count > this.limits.tablesPerHour) throw new TooManyTablesError(this.limits.tablesPerHour);
    this.creations.set(address, count);
    this.statements.createTable.run(id, now, now, GENESIS_PREV);
    return { id, createdAt: now, entries: 0, lastHash: GENESIS_PREV };
  }

  async table(id: string, now: number): Promise<TableRecord | undefined> {
    const row = this.row(id, now);
    return row && { id: row.id, createdAt: row.created_at, entries: row.entries, lastHash: row.last_hash };
  }

  async append<E extends TableEntry>(
    tableId: string,
    build: EntryBuilder<E>,
    now: number,
    sealed?: SealedWork<E>,
  ): Promise<E> {
    const receipt = this.immediate(() => {
      const row = this.row(tableId, now);
      if (row === undefined) throw new TableNotFoundError();
      if (sealed !== undefined && 'reveals' in sealed) {
        const opened = this.sealedRow(tableId, sealed.reveals);
        if (opened === undefined) throw new NotSealedError(sealed.reveals);
        if (opened.revealedIn !== undefined) throw new AlreadyRevealedError(opened.revealedIn);
      }
      if (row.entries >= this.limits.maxEntries) throw new TableFullError(this.limits.maxEntries);
      const seq = row.entries + 1;
      const entry = build(seq, row.last_hash);
      this.statements.insert.run(entry.id, tableId, seq, now, JSON.stringify(entry));
      this.statements.advance.run(seq, receiptHashSync(entry), now, tableId);
      if (sealed !== undefined && 'keep' in sealed)
        this.statements.keepSealed.run(tableId, seq, sealed.keep(entry));
      if (sealed !== undefined && 'reveals' in sealed)
        this.statements.markRevealed.run(seq, tableId, sealed.reveals);
      return entry;
    });
    this.events.emit(tableId, receipt);
    return receipt;
  }

  async saveReceipt(receipt: Receipt, now: number): Promise<void> {
    this.statements.insert.run(receipt.id, null, null, now, JSON.stringify(receipt));
  }

  async receipt(id: string, now: number): Promise<Receipt | undefined> {
    const row = this.statements.receipt.get(id, now - this.limits.retentionMs) as
      | { body: string }
      | undefined;
    const entry = row && (JSON.parse(row.body) as TableEntry);
    // A sealed entry or a reveal is kept with the receipts of its table, but is no receipt.
    return entry !== undefined && 'roll' in entry ? entry : undefined;
  }

  async rolls(tableId: string, after: number, limit: number, now: number): Promise<TableEntry[] | undefined> {
    if (this.row(tableId, now) === undefined) return undefined;
    const rows = this.statements.rolls.all(tableId, after, limit) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as TableEntry);
  }

  async sealed(tableId: string, seq: number, now: number): Promise<SealedRecord | undefined> {
    if (this.row(tableId, now) === undefined) return undefined;
    return this.sealedRow(tableId, seq);
  }

  private sealedRow(tableId: string, seq: number): SealedRecord | undefined {
    const row = this.statements.sealed.get(tableId, seq) as
      | { secret: string; revealed_in: number | null }
      | undefined;
    return row && { secret: row.secret, revealedIn: row.revealed_in ?? undefined };
  }

  async channelTable(channel: string, now: number): Promise<string | undefined> {
    const row = this.statements.channelTable.get(channel, now - this.limits.retentionMs) as
      | { id: string }
      | undefined;
    return row?.id;
  }

  async setChannelTable(channel: string, tableId: string, _now: number): Promise<void> {
    this.statements.setChannelTable.run(channel, tableId);
  }

  async reserveIdempotencyKey(
    key: string,
    fingerprint: string,
    now: number,
    pendingMs: number,
  ): Promise<IdempotencyState> {
    return this.immediate(() => {
      const row = this.statements.idempotencyKey.get(key) as
        | { fingerprint: string; body: string | null; expires_at: number }
        | undefined;
      if (row !== undefined && row.expires_at >= now)
        return row.body === null
          ? { state: 'pending', fingerprint: row.fingerprint }
          : { state: 'done', fingerprint: row.fingerprint, body: row.body };
      this.statements.reserveIdempotencyKey.run(key, fingerprint, now + pendingMs);
      return { state: 'reserved' };
    });
  }

  async completeIdempotencyKey(
    key: string,
    fingerprint: string,
    body: string,
    now: number,
    ttlMs: number,
  ): Promise<void> {
    this.statements.completeIdempotencyKey.run(body, now + ttlMs, key, fingerprint);
  }

  async releaseIdempotencyKey(key: string, fingerprint: string): Promise<void> {
    this.statements.releaseIdempotencyKey.run(key, fingerprint);
  }

  async subscribe(tableId: string, listener: EntryListener): Promise<() => void> {
    this.events.on(tableId, listener);
    return () => this.events.off(tableId, listener);
  }

  async holdStream(address: string, limit: number): Promise<(() => void) | undefined> {
    const open = this.streams.get(address) ?? 0;
    if (open >= limit) return undefined;
    this.streams.set(address, open + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.streams.get(address) ?? 1) - 1;
      if (left <= 0) this.streams.delete(address);
      else this.streams.set(address, left);
    };
  }

  get usable(): boolean {
    return this.open;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.events.removeAllListeners();
    if (this.open) {
      this.open = false;
      this.db.close();
    }
  }
}
