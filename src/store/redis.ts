// Tables and receipts in Redis, shared by every instance and worker: a table's log is a Stream
// whose entry ids are the sequence numbers (so XADD itself refuses a second entry with one
// number), receipts are strings with a TTL, and live delivery is pub/sub, one subscriber
// connection per instance. Open event streams per address are a sorted set of leases that
// every instance renews, so the cap holds across instances and a crashed one's places lapse.
// Needs appendonly persistence to keep what it acknowledged (docs/trust.md, "Storage").
import { randomUUID } from 'node:crypto';
import type { Receipt, TableEntry } from '@fairdice/client/types';
import { Redis } from 'ioredis';
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
  StoreUnavailableError,
  TableFullError,
  TableNotFoundError,
  type TableRecord,
  TooManyTablesError,
} from './store.js';

export const REDIS_STORE_PREFIX = 'fairdice:';
/** How long one command may take before the operation answers 503. */
const COMMAND_TIMEOUT_MS = 2_000;
/** Two appends raced for one sequence number: the loser reads the new end and tries again. */
const APPEND_ATTEMPTS = 20;

// Appends only while the table exists; XADD with an explicit id fails when that sequence number
// is taken, which is the lock. The receipt, the TTLs and the live message go in the same step,
// and so does a sealed roll's secret (ARGV[5] 'keep': field ARGV[6] of the table's sealed hash
// KEYS[4] gets ARGV[7]) or a reveal's one claim (ARGV[5] 'reveal': refused when entry ARGV[6]
// kept no secret, being no sealed roll, or has a reveal already, else `revealed:<ARGV[6]>` gets
// this entry's seq ARGV[7]).
const APPEND_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
if ARGV[5] == 'reveal' then
  if redis.call('HEXISTS', KEYS[4], ARGV[6]) == 0 then return 'unsealed' end
  local before = redis.call('HGET', KEYS[4], 'revealed:' .. ARGV[6])
  if before then return 'revealed:' .. before end
end
local added = redis.pcall('XADD', KEYS[2], ARGV[1], 'r', ARGV[2])
if type(added) == 'table' and added.err then return 'taken' end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
if ARGV[5] == 'keep' then redis.call('HSET', KEYS[4], ARGV[6], ARGV[7]) end
if ARGV[5] == 'reveal' then redis.call('HSET', KEYS[4], 'revealed:' .. ARGV[6], ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 'ok'
`;

// Frees a reservation only while it is still the pending one of that request.
const RELEASE_KEY_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** How long an event stream's place lasts unless its instance renews it (a crashed instance's lapse). */
export const STREAM_LEASE_MS = 60_000;

// Drops lapsed places, then takes one if the address holds fewer than the limit.
const HOLD_STREAM_SCRIPT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

type HoldStreamCommand = (
  key: string,
  now: number,
  expiresAt: number,
  limit: number,
  member: string,
  leaseMs: number,
) => Promise<number>;

type ReleaseKeyCommand = (key: string, pending: string) => Promise<number>;

type AppendCommand = (
  meta: string,
  log: string,
  receiptKey: string,
  sealedKey: string,
  streamId: string,
  json: string,
  retentionMs: number,
  channel: string,
  sealedMode: '' | 'keep' | 'reveal',
  sealedField: string,
  sealedValue: string,
) => Promise<string>;

const isDomainError = (error: unknown) =>
  error instanceof TableNotFoundError ||
  error instanceof TableFullError ||
  error instanceof TooManyTablesError ||
  error instanceof NotSealedError ||
  error instanceof AlreadyRevealedError;

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  private readonly redis: Redis;
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<EntryListener>>();
  private readonly subscribed = new Map<string, Promise<void>>();
  /** This instance's event-stream places: member name -> its address's key. */
  private readonly streams = new Map<string, string>();
  private readonly instance = randomUUID();
  private streamCount = 0;
  private renewer: NodeJS.Timeout | undefined;

  constructor(
    url: string,
    private readonly limits: StoreLimits,
    private readonly prefix = REDIS_STORE_PREFIX,
    private readonly streamLeaseMs = STREAM_LEASE_MS,
  ) {
    this.redis = new Redis(url, RedisStore.options());
    // Connection errors surface as 503s on the operations; the event itself needs no handling.
    this.redis.on('error', () => {});
    this.redis.defineCommand('fairdiceAppend', { numberOfKeys: 4, lua: APPEND_SCRIPT });
    this.redis.defineCommand('fairdiceHoldStream', { numberOfKeys: 1, lua: HOLD_STREAM_SCRIPT });
    this.redis.defineCommand('fairdiceReleaseKey', { numberOfKeys: 1, lua: RELEASE_KEY_SCRIPT });
  }

  private static options() {
    return {
      // Fail fast instead of queueing: a request never waits for a connection that is not there.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      connectTimeout: COMMAND_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 2_000),
      connectionName: 'fairdice-tables',
    };
  }

  private key = {
    meta: (id: string) => `${this.prefix}table:${id}`,
    log: (id: string) => `${this.prefix}table:${id}:log`,
    channel: (id: string) => `${this.prefix}table:${id}:live`,
    receipt: (id: string) => `${this.prefix}receipt:${id}`,
    creations: (address: string, now: number) => `${this.prefix}tables-by:${address}:${hourOf(now)}`,
    streams: (address: string) => `${this.prefix}streams-by:${address}`,
    /** A chat channel's table (channelTable): not the pub/sub channel above. */
    chatChannel: (channel: string) => `${this.prefix}chat-channel:${channel}`,
    idempotency: (key: string) => `${this.prefix}idempotency:${key}`,
    /** Sealed rolls' secrets (field `<seq>`) and their reveals (field `revealed:<seq>`). */
    sealed: (id: string) => `${this.prefix}table:${id}:sealed`,
  };

  /** Runs `operation`; any failure that is not a table rule becomes StoreUnavailableError. */
  private async guarded<T>(operation: () => Promise<T>): Promise<T> {
    try {
      // Only a connection still being made for the first time is waited for; a lost one fails fast.
      if (this.redis.status === 'connecting' || this.redis.status === 'wait') await waitReady(this.redis);
      return await operation();
    } catch (error) {
      if (isDomainError(error)) throw error;
      throw new StoreUnavailableError({ cause: error });
    }
  }

  /** Resolves once connected, or rejects with StoreUnavailableError after the connect timeout. */
  ready(): Promise<void> {
    return this.guarded(async () => {
      await this.redis.ping();
    }).catch(async (error) => {
      if (this.redis.status === 'ready') return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(error), COMMAND_TIMEOUT_MS);
        this.redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    });
  }

  createTable(id: string, address: string, now: number): Promise<TableRecord> {
    return this.guarded(async () => {
      const creations = this.key.creations(address, now);
      const result = await this.redis
        .multi()
        .incr(creations)
        .pexpire(creations, 2 * 3_600_000)
        .exec();
      const count = Number(result?.[0]?.[1]);
      if (!Number.isFinite(count)) throw new Error('INCR gave no count');
      if (count > this.limits.tablesPerHour) throw new TooManyTablesError(this.limits.tablesPerHour);
      await this.redis.set(this.key.meta(id), String(now), 'PX', this.limits.retentionMs, 'NX');
      return { id, createdAt: now, entries: 0, lastHash: GENESIS_PREV };
    });
  }

  table(id: string, _now: number): Promise<TableRecord | undefined> {
    return this.guarded(async () => {
      // One MULTI: the length and the last entry are of the same log.
      const [[, createdAt], [, entries], [, last]] = (await this.redis
        .multi()
        .get(this.key.meta(id))
        .xlen(this.key.log(id))
        .xrevrange(this.key.log(id), '+', '-', 'COUNT', 1)
        .exec()) as [[unknown, string | null], [unknown, number], [unknown, Array<[string, string[]]>]];
      if (createdAt === null) return undefined;
      const fields = last[0]?.[1];
      const lastHash =
        fields === undefined ? GENESIS_PREV : receiptHashSync(JSON.parse(fields[1]!) as TableEntry);
      return { id, createdAt: Number(createdAt), entries: Number(entries), lastHash };
    });
  }

  /** The last entry of a table's log, or undefined when it is empty. */
  private async lastEntry(tableId: string): Promise<TableEntry | undefined> {
    const last = await this.redis.xrevrange(this.key.log(tableId), '+', '-', 'COUNT', 1);
    const fields = last[0]?.[1];
    return fields === undefined ? undefined : (JSON.parse(fields[1]!) as TableEntry);
  }

  append<E extends TableEntry>(
    tableId: string,
    build: EntryBuilder<E>,
    _now: number,
    sealed?: SealedWork<E>,
  ): Promise<E> {
    return this.guarded(async () => {
      const run = (this.redis as unknown as { fairdiceAppend: AppendCommand }).fairdiceAppend.bind(
        this.redis,
      );
      for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
        const last = await this.lastEntry(tableId);
        const seq = (last?.seq ?? 0) + 1;
        if (seq > this.limits.maxEntries) {
          if ((await this.redis.exists(this.key.meta(tableId))) === 0) throw new TableNotFoundError();
          throw new TableFullError(this.limits.maxEntries);
        }
        const entry = build(seq, last === undefined ? GENESIS_PREV : receiptHashSync(last));
        const [mode, field, value] =
          sealed === undefined
            ? (['', '', ''] as const)
            : 'keep' in sealed
              ? (['keep', String(seq), sealed.keep(entry)] as const)
              : (['reveal', String(sealed.reveals), String(seq)] as const);
        const outcome = await run(
          this.key.meta(tableId),
          this.key.log(tableId),
          this.key.receipt(entry.id),
          this.key.sealed(tableId),
          `${seq}-1`,
          JSON.stringify(entry),
          this.limits.retentionMs,
          this.key.channel(tableId),
          mode,
          field,
          value,
        );
        if (outcome === 'ok') return entry;
        if (outcome === 'gone') throw new TableNotFoundError();
        if (outcome === 'unsealed') throw new NotSealedError(Number(field));
        if (outcome.startsWith('revealed:')) throw new AlreadyRevealedError(Number(outcome.slice(9)));
      }
      throw new Error('too many concurrent appends to one table');
    });
  }

  saveReceipt(receipt: Receipt, _now: number): Promise<void> {
    return this.guarded(async () => {
      await this.redis.set(
        this.key.receipt(receipt.id),
        JSON.stringify(receipt),
        'PX',
        this.limits.retentionMs,
      );
    });
  }

  receipt(id: string, _now: number): Promise<Receipt | undefined> {
    return this.guarded(async () => {
      const json = await this.redis.get(this.key.receipt(id));
      const entry = json === null ? undefined : (JSON.parse(json) as TableEntry);
      // A sealed entry or a reveal is kept by its id too, but is no receipt.
      return entry !== undefined && 'roll' in entry ? entry : undefined;
    });
  }

  rolls(tableId: string, after: number, limit: number, _now: number): Promise<TableEntry[] | undefined> {
    return this.guarded(async () => {
      const [[, exists], [, entries]] = (await this.redis
        .multi()
        .exists(this.key.meta(tableId))
        .xrange(this.key.log(tableId), `${after + 1}-0`, '+', 'COUNT', limit)
        .exec()) as [[unknown, number], [unknown, Array<[string, string[]]>]];
      if (exists === 0) return undefined;
      return entries.map(([, fields]) => JSON.parse(fields[1]!) as TableEntry);
    });
  }

  sealed(tableId: string, seq: number, _now: number): Promise<SealedRecord | undefined> {
    return this.guarded(async () => {
      const [secret, revealedIn] = await this.redis.hmget(
        this.key.sealed(tableId),
        String(seq),
        `revealed:${seq}`,
      );
      if (secret === null || secret === undefined) return undefined;
      return { secret, revealedIn: revealedIn == null ? undefined : Number(revealedIn) };
    });
  }

  channelTable(channel: string, _now: number): Promise<string | undefined> {
    return this.guarded(async () => {
      const key = this.key.chatChannel(channel);
      const tableId = await this.redis.get(key);
      if (tableId === null) return undefined;
      // Kept as long again as the table after its last roll; gone with the table.
      const [[, exists]] = (await this.redis
        .multi()
        .exists(this.key.meta(tableId))
        .pexpire(key, this.limits.retentionMs)
        .exec()) as [[unknown, number], [unknown, number]];
      return exists === 1 ? tableId : undefined;
    });
  }

  setChannelTable(channel: string, tableId: string, _now: number): Promise<void> {
    return this.guarded(async () => {
      await this.redis.set(this.key.chatChannel(channel), tableId, 'PX', this.limits.retentionMs);
    });
  }

  reserveIdempotencyKey(
    key: string,
    fingerprint: string,
    _now: number,
    pendingMs: number,
  ): Promise<IdempotencyState> {
    return this.guarded(async () => {
      const redisKey = this.key.idempotency(key);
      // SET NX is the reservation: of two instances asking at once, one gets OK.
      for (let attempt = 0; attempt < 3; attempt++) {
        if (
          (await this.redis.set(redisKey, JSON.stringify({ f: fingerprint }), 'PX', pendingMs, 'NX')) === 'OK'
        )
          return { state: 'reserved' };
        const held = await this.redis.get(redisKey);
        // Lapsed between the two commands: try to take it again.
        if (held === null) continue;
        const record = JSON.parse(held) as { f: string; b?: string };
        return record.b === undefined
          ? { state: 'pending', fingerprint: record.f }
          : { state: 'done', fingerprint: record.f, body: record.b };
      }
      throw new Error('an idempotency key kept lapsing');
    });
  }

  completeIdempotencyKey(
    key: string,
    fingerprint: string,
    body: string,
    _now: number,
    ttlMs: number,
  ): Promise<void> {
    return this.guarded(async () => {
      await this.redis.set(
        this.key.idempotency(key),
        JSON.stringify({ f: fingerprint, b: body }),
        'PX',
        ttlMs,
      );
    });
  }

  releaseIdempotencyKey(key: string, fingerprint: string): Promise<void> {
    return this.guarded(async () => {
      const release = (this.redis as unknown as { fairdiceReleaseKey: ReleaseKeyCommand }).fairdiceReleaseKey;
      await release.call(this.redis, this.key.idempotency(key), JSON.stringify({ f: fingerprint }));
    });
  }

  private subscriberConnection(): Redis {
    if (this.subscriber !== undefined) return this.subscriber;
    const subscriber = this.redis.duplicate(RedisStore.options());
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string, message: string) => {
      const listeners = this.listeners.get(channel);
      if (listeners === undefined) return;
      const entry = JSON.parse(message) as TableEntry;
      for (const listener of listeners) listener(entry);
    });
    this.subscriber = subscriber;
    return subscriber;
  }

  subscribe(tableId: string, listener: EntryListener): Promise<() => void> {
    return this.guarded(async () => {
      const channel = this.key.channel(tableId);
      const subscriber = this.subscriberConnection();
      let subscribed = this.subscribed.get(channel);
      if (subscribed === undefined) {
        this.listeners.set(channel, new Set());
        // Every caller waits for the one SUBSCRIBE: until Redis confirms it, entries are not delivered.
        subscribed = (async () => {
          if (subscriber.status !== 'ready') await waitReady(subscriber);
          await subscriber.subscribe(channel);
        })();
        this.subscribed.set(channel, subscribed);
        subscribed.catch(() => {
          this.subscribed.delete(channel);
          this.listeners.delete(channel);
        });
      }
      await subscribed;
      const listeners = this.listeners.get(channel)!;
      listeners.add(listener);
      return () => {
        const current = this.listeners.get(channel);
        if (current === undefined || !current.delete(listener) || current.size > 0) return;
        this.listeners.delete(channel);
        this.subscribed.delete(channel);
        subscriber.unsubscribe(channel).catch(() => {});
      };
    });
  }

  holdStream(address: string, limit: number): Promise<(() => void) | undefined> {
    return this.guarded(async () => {
      const key = this.key.streams(address);
      const member = `${this.instance}:${++this.streamCount}`;
      const now = Date.now();
      const hold = (this.redis as unknown as { fairdiceHoldStream: HoldStreamCommand }).fairdiceHoldStream;
      const taken = await hold.call(
        this.redis,
        key,
        now,
        now + this.streamLeaseMs,
        limit,
        member,
        this.streamLeaseMs,
      );
      if (taken !== 1) return undefined;
      this.streams.set(member, key);
      // A third of the lease: two renewals may fail (Redis briefly away) before a place lapses.
      this.renewer ??= setInterval(() => this.renewStreams(), this.streamLeaseMs / 3).unref();
      return () => {
        if (!this.streams.delete(member)) return;
        if (this.streams.size === 0) this.stopRenewing();
        // Not given back (Redis down): the place lapses with its lease.
        this.redis.zrem(key, member).catch(() => {});
      };
    });
  }

  /** Extends the lease of every place this instance holds; one that lapsed meanwhile is taken again. */
  private renewStreams(): void {
    const expiresAt = Date.now() + this.streamLeaseMs;
    const batch = this.redis.pipeline();
    for (const [member, key] of this.streams)
      batch.zadd(key, expiresAt, member).pexpire(key, this.streamLeaseMs);
    batch.exec().catch(() => {});
  }

  private stopRenewing(): void {
    clearInterval(this.renewer);
    this.renewer = undefined;
  }

  get usable(): boolean {
    return this.redis.status === 'ready';
  }

  async close(): Promise<void> {
    this.stopRenewing();
    this.streams.clear();
    this.listeners.clear();
    this.subscribed.clear();
    this.subscriber?.disconnect();
    this.redis.disconnect();
  }
}

/** Waits for a fresh connection to come up, at most the command timeout. */
function waitReady(connection: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off('ready', onReady);
      reject(new Error('not connected'));
    }, COMMAND_TIMEOUT_MS);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    connection.once('ready', onReady);
  });
}
