// The one interface of table and receipt storage; two implementations: an SQLite file (the
// embedded default) and Redis (shared by every instance). docs/trust.md, "Storage".
import type { Receipt, TableEntry } from '@fairdice/client/types';

export interface TableRecord {
  id: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** Entries in its log so far (the last sequence number). */
  entries: number;
  /** SHA-256 (hex) of its last entry (./chain.ts); GENESIS_PREV while the log is empty. A signed head's `lastHash`. */
  lastHash: string;
}

export interface StoreLimits {
  /** A receipt is kept this long after it was signed; a table this long after its last roll. */
  retentionMs: number;
  /** Entries a table's log may hold. */
  maxEntries: number;
  /** Tables one address may create per clock hour. */
  tablesPerHour: number;
}

/**
 * Builds the next entry (a receipt, a sealed roll or a reveal: docs/trust.md) once its sequence
 * number and the previous hash are known.
 */
export type EntryBuilder<E extends TableEntry = TableEntry> = (seq: number, prev: string) => E;

export type EntryListener = (entry: TableEntry) => void;

/**
 * What an append of a sealed roll or a reveal does besides (docs/trust.md#sealed-rolls), in the
 * same atomic step: `keep` gives what only the roller of the new sealed entry may publish later
 * (opaque text, kept as long as the table); `reveals` names the sealed entry a reveal opens, which
 * is appended only if that entry is a sealed roll never revealed, and marks it revealed.
 */
export type SealedWork<E> = { keep: (entry: E) => string } | { reveals: number };

/** What the store keeps of a sealed entry: the roller's secret, and the seq of its reveal if any. */
export interface SealedRecord {
  secret: string;
  revealedIn?: number | undefined;
}

/**
 * What an Idempotency-Key holds (docs/api.md#idempotency): taken now by this caller (`reserved`),
 * held by a request still being answered (`pending`), or the first answer (`done`, as JSON text).
 * `fingerprint` names the request that took it.
 */
export type IdempotencyState =
  | { state: 'reserved' }
  | { state: 'pending'; fingerprint: string }
  | { state: 'done'; fingerprint: string; body: string };

export interface Store {
  readonly kind: 'sqlite' | 'redis';
  /** Whether it can serve now: the file open, or Redis connected (readiness, src/metrics.ts). */
  readonly usable: boolean;
  /** Creates an empty table; throws TooManyTablesError over the creating address's hourly quota. */
  createTable(id: string, address: string, now: number): Promise<TableRecord>;
  table(id: string, now: number): Promise<TableRecord | undefined>;
  /**
   * Appends one entry: the builder runs with the next sequence number and the previous entry's
   * hash, and whatever it returns is stored. Atomic: no two entries get one sequence number.
   * With `sealed`, also keeps a sealed roll's secret or marks a reveal (SealedWork).
   * Throws TableNotFoundError, TableFullError, NotSealedError, AlreadyRevealedError.
   */
  append<E extends TableEntry>(
    tableId: string,
    build: EntryBuilder<E>,
    now: number,
    sealed?: SealedWork<E>,
  ): Promise<E>;
  /** Keeps a receipt made outside any table. */
  saveReceipt(receipt: Receipt, now: number): Promise<void>;
  receipt(id: string, now: number): Promise<Receipt | undefined>;
  /** Entries with seq > after, in order, at most `limit`; undefined when the table does not exist. */
  rolls(tableId: string, after: number, limit: number, now: number): Promise<TableEntry[] | undefined>;
  /** What an append kept of sealed entry `seq` (SealedWork), or undefined: no such sealed entry. */
  sealed(tableId: string, seq: number, now: number): Promise<SealedRecord | undefined>;
  /**
   * The table a chat channel rolls at (a Discord channel: docs/discord.md), by an id its face
   * chooses; undefined when it has none or its table has expired. Each look-up keeps the
   * mapping as long again as a table is kept after its last roll.
   */
  channelTable(channel: string, now: number): Promise<string | undefined>;
  /** Makes `tableId` the table of `channel`, replacing any table it had. */
  setChannelTable(channel: string, tableId: string, now: number): Promise<void>;
  /**
   * Takes `key` for the request `fingerprint` unless a live record holds it: atomic, so of two
   * requests with one key exactly one gets `reserved`. A reservation lapses after `pendingMs`
   * unless completed (a process that died mid-answer frees its keys).
   */
  reserveIdempotencyKey(
    key: string,
    fingerprint: string,
    now: number,
    pendingMs: number,
  ): Promise<IdempotencyState>;
  /** Keeps the answer of the request that reserved `key`, for `ttlMs`. */
  completeIdempotencyKey(
    key: string,
    fingerprint: string,
    body: string,
    now: number,
    ttlMs: number,
  ): Promise<void>;
  /** Frees a reservation whose request failed (a completed key stays). */
  releaseIdempotencyKey(key: string, fingerprint: string): Promise<void>;
  /** Calls `listener` with every entry appended to the table from now on, by any instance. */
  subscribe(tableId: string, listener: EntryListener): Promise<() => void>;
  /**
   * Takes one of `address`'s places for an open event stream, counted across every instance that
   * shares the store; undefined when the address holds `limit` already. The returned function
   * gives the place back when the stream ends.
   */
  holdStream(address: string, limit: number): Promise<(() => void) | undefined>;
  close(): Promise<void>;
}

/** The store cannot be reached (Redis down): table operations answer 503, plain rolls go on. */
export class StoreUnavailableError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The table store is unavailable; try again shortly.', options);
    this.name = 'StoreUnavailableError';
  }
}

export class TableNotFoundError extends Error {
  constructor() {
    super('no such table');
    this.name = 'TableNotFoundError';
  }
}

/** A reveal of an entry that is no sealed roll of the table (an open roll, or none at all). */
export class NotSealedError extends Error {
  constructor(readonly seq: number) {
    super(`entry ${seq} is no sealed roll`);
    this.name = 'NotSealedError';
  }
}

/** A reveal of a sealed entry that was revealed already: each is revealed at most once. */
export class AlreadyRevealedError extends Error {
  constructor(readonly revealedIn: number) {
    super(`revealed already, in entry ${revealedIn}`);
    this.name = 'AlreadyRevealedError';
  }
}

export class TableFullError extends Error {
  constructor(readonly maxEntries: number) {
    super(`table full at ${maxEntries} entries`);
    this.name = 'TableFullError';
  }
}

export class TooManyTablesError extends Error {
  constructor(readonly tablesPerHour: number) {
    super(`${tablesPerHour} tables created this hour`);
    this.name = 'TooManyTablesError';
  }
}

/** The clock hour a creation counts in. */
export const hourOf = (now: number): number => Math.floor(now / 3_600_000);
