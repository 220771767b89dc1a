// Receipts and tables as the service offers them: the signing key, the store (opened on first
// use, or at start by the server), the limits, and the per-address places of live event streams.
// The API operations and the SSE route call this; nothing here knows HTTP (docs/trust.md).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import type { RollResponse } from '../roll/types.js';
import { receiptHashSync } from '../store/chain.js';
import { RedisStore } from '../store/redis.js';
import { SqliteStore } from '../store/sqlite.js';
import {
  AlreadyRevealedError,
  NotSealedError,
  type Store,
  type StoreLimits,
  TableNotFoundError,
  type TableRecord,
} from '../store/store.js';
import { loadSigningKeys, type SigningKeys } from './keys.js';
import type { Receipt, RevealEntry, SealedEntry, SignedRequest, TableEntry, TableHead } from './receipt.js';
import { sealCommitment, signEntry, signHead, signReceipt } from './sign.js';

export interface TrustLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

const DAY_MS = 86_400_000;

export const GENERATED_KEY_WARNING =
  'SIGNING_KEY_FILE is not set: receipts are signed with a key generated at start and will NOT verify after a restart (nor on another instance). Set SIGNING_KEY_FILE to a PKCS#8 Ed25519 key (docs/trust.md).';

/** A new table id: 144 random bits, base64url (24 characters). */
export const newTableId = (): string => randomBytes(18).toString('base64url');

export { TABLE_ID_PATTERN } from '@fairdice/client/types';

/** Told of what the metrics count (src/metrics.ts `ServiceMetrics` is one); none by default. */
export interface TrustObserver {
  entryWritten(): void;
  storeFailed(): void;
  streamOpened(): void;
  streamClosed(): void;
}

export class Trust {
  private opened: Store | undefined;

  /** Set by the app when metrics are on. */
  observer: TrustObserver | undefined;

  private unannounced: (() => void) | undefined;

  constructor(
    readonly keys: SigningKeys,
    private readonly openStore: () => Store,
    readonly limits: StoreLimits & { sseConnectionsPerAddress: number },
    /** Said once, before the first signature, unless announce() said it already. */
    announcement?: () => void,
  ) {
    this.unannounced = announcement;
  }

  /** Logs the generated-key warning now (the server does at start) rather than at the first receipt. */
  announce(): void {
    this.unannounced?.();
    this.unannounced = undefined;
  }

  /**
   * From the configuration: loads or generates the key. A generated key is warned about loudly,
   * by announce() at start or else before the first receipt (an app built in a test that never
   * signs stays quiet).
   */
  static async fromConfig(config: Config, log: TrustLog): Promise<Trust> {
    const keys = await loadSigningKeys({
      keyFile: config.signingKeyFile,
      retiredKeysFile: config.signingRetiredKeysFile,
    });
    const announcement = keys.generated
      ? () => log.warn({ kid: keys.kid }, GENERATED_KEY_WARNING)
      : undefined;
    const limits = {
      retentionMs: config.tableRetentionDays * DAY_MS,
      maxEntries: config.tableMaxEntries,
      tablesPerHour: config.tablesPerHour,
      sseConnectionsPerAddress: config.sseConnectionsPerAddress,
    };
    const redisUrl = config.redisUrl;
    const openStore = (): Store => {
      const store =
        redisUrl === undefined ? new SqliteStore(config.dataDir, limits) : new RedisStore(redisUrl, limits);
      log.info(
        { store: store.kind, ...(store instanceof SqliteStore ? { file: store.file } : {}) },
        'table and receipt store opened',
      );
      return store;
    };
    return new Trust(keys, openStore, limits, announcement);
  }

  /** The store if it is open; undefined before its first use. */
  get openedStore(): Store | undefined {
    return this.opened;
  }

  /** The store, opened now if it was not yet (the SQLite file and DATA_DIR are created here). */
  get store(): Store {
    this.opened ??= this.openStore();
    return this.opened;
  }

  /** Opens the store now; with Redis, waits briefly for it but starts anyway when it is down (tables answer 503 until it is back). */
  async open(log?: TrustLog): Promise<void> {
    const store = this.store;
    if (store instanceof RedisStore) {
      await store
        .ready()
        .catch(() => log?.warn({}, 'Redis is not reachable yet: table operations answer 503 until it is'));
    }
  }

  /** Signs a roll made outside any table and keeps the receipt. */
  async sign(request: SignedRequest, roll: RollResponse): Promise<Receipt> {
    this.announce();
    const receipt = signReceipt(this.keys, { request, roll });
    await this.store.saveReceipt(receipt, Date.now());
    return receipt;
  }

  /** Signs a roll as the next entry of a table's log. */
  async signAtTable(table: string, request: SignedRequest, roll: RollResponse): Promise<Receipt> {
    this.announce();
    const now = Date.now();
    const receipt = await this.store.append(
      table,
      (seq, prev) => signReceipt(this.keys, { request, roll, table, seq, prev }, now),
      now,
    );
    this.observer?.entryWritten();
    return receipt;
  }

  /**
   * Why the receipts and tables cannot serve now (readiness): the store closed or its Redis not
   * connected. Empty when they can. A store not opened yet opens on first use, so it counts as usable.
   */
  unusable(): string[] {
    const reasons: string[] = [];
    if (this.keys.kid === '') reasons.push('no signing key loaded');
    if (this.opened !== undefined && !this.opened.usable) {
      reasons.push(
        this.opened.kind === 'redis'
          ? 'the table store (Redis) is not connected'
          : 'the table store (SQLite) is closed',
      );
    }
    return reasons;
  }

  /**
   * The signed head of a table as `record` read it: its number of entries and the hash of the
   * last (docs/trust.md#signed-heads). Every read of a log carries one.
   */
  head(record: TableRecord): TableHead {
    this.announce();
    return signHead(this.keys, { table: record.id, entries: record.entries, lastHash: record.lastHash });
  }

  /** The signed head of a table's log that ends at `entry` (an entry of the log, with its table and seq). */
  headAt(entry: TableEntry): TableHead {
    return this.head({
      id: entry.table ?? '',
      createdAt: 0,
      entries: entry.seq ?? 0,
      lastHash: receiptHashSync(entry),
    });
  }

  /**
   * Rolls in secret at a table (docs/trust.md#sealed-rolls): the log gets a sealed entry holding
   * what was asked (without its note) and the commitment SHA-256(canonical receipt ‖ salt); the
   * receipt, the salt and a reveal token go to the roller alone. The store keeps the receipt and
   * the salt, with only a hash of the token, in the same atomic step as the entry.
   */
  async sealAtTable(
    table: string,
    request: SignedRequest,
    roll: RollResponse,
  ): Promise<{ receipt: Receipt; entry: SealedEntry; salt: string; revealToken: string }> {
    this.announce();
    const now = Date.now();
    const salt = randomBytes(32).toString('hex');
    const revealToken = randomBytes(24).toString('base64url');
    const asked: SignedRequest = { ...request, sealed: true };
    const { note: _note, ...shown } = asked;
    let receipt: Receipt | undefined;
    const entry = await this.store.append(
      table,
      (seq, prev): SealedEntry => {
        receipt = signReceipt(this.keys, { request: asked, roll, table, seq, prev }, now);
        return signEntry(
          this.keys,
          { table, seq, prev, request: shown, commitment: sealCommitment(receipt, salt) },
          now,
        );
      },
      now,
      {
        keep: () =>
          JSON.stringify({ receipt: receipt!, salt, tokenHash: sha256Hex(revealToken) } satisfies KeptSecret),
      },
    );
    this.observer?.entryWritten();
    return { receipt: receipt!, entry, salt, revealToken };
  }

  /**
   * Publishes sealed entry `seq` of `table` with its reveal token: appends a reveal entry holding
   * the receipt and the salt, at most once per sealed entry (the store's append refuses a second
   * one atomically, across instances). Throws TableNotFoundError, or RevealRefusedError saying why.
   */
  async reveal(table: string, seq: number, token: string): Promise<RevealEntry> {
    this.announce();
    const now = Date.now();
    if ((await this.store.table(table, now)) === undefined) throw new TableNotFoundError();
    const kept = await this.store.sealed(table, seq, now);
    if (kept === undefined) throw new RevealRefusedError('not_sealed');
    const secret = JSON.parse(kept.secret) as KeptSecret;
    const given = Buffer.from(sha256Hex(token), 'hex');
    if (!timingSafeEqual(given, Buffer.from(secret.tokenHash, 'hex')))
      throw new RevealRefusedError('wrong_reveal_token');
    if (kept.revealedIn !== undefined) throw new RevealRefusedError('already_revealed', kept.revealedIn);
    try {
      const entry = await this.store.append(
        table,
        (next, prev): RevealEntry =>
          signEntry(
            this.keys,
            { table, seq: next, prev, reveal: { seq, receipt: secret.receipt, salt: secret.salt } },
            now,
          ),
        now,
        { reveals: seq },
      );
      this.observer?.entryWritten();
      return entry;
    } catch (error) {
      if (error instanceof AlreadyRevealedError)
        throw new RevealRefusedError('already_revealed', error.revealedIn);
      if (error instanceof NotSealedError) throw new RevealRefusedError('not_sealed');
      throw error;
    }
  }

  createTable(address: string): Promise<TableRecord> {
    return this.store.createTable(newTableId(), address, Date.now());
  }

  /**
   * Takes one of the address's event-stream places, across every instance sharing the store;
   * undefined when it holds them all already. Call the result when the stream ends.
   */
  async openStream(address: string): Promise<(() => void) | undefined> {
    const release = await this.store.holdStream(address, this.limits.sseConnectionsPerAddress);
    const observer = this.observer;
    if (release === undefined || observer === undefined) return release;
    observer.streamOpened();
    let held = true;
    return () => {
      if (held) observer.streamClosed();
      held = false;
      release();
    };
  }

  async close(): Promise<void> {
    await this.opened?.close();
    this.opened = undefined;
  }
}

export const TABLE_ROLLS_PER_PAGE = LIMITS.tableRollsPerPage;

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** What the store keeps of a sealed roll for its reveal: never the token, only its hash. */
interface KeptSecret {
  receipt: Receipt;
  salt: string;
  tokenHash: string;
}

/** Why a reveal was refused: no sealed entry at that seq, another token, or revealed already. */
export class RevealRefusedError extends Error {
  constructor(
    readonly reason: 'not_sealed' | 'wrong_reveal_token' | 'already_revealed',
    readonly revealedIn?: number,
  ) {
    super(reason);
    this.name = 'RevealRefusedError';
  }
}
