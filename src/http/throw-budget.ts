// The throws budget per address (docs/operations.md#what-one-address-can-cost): the request limit
// counts requests, this one counts their cost. Every address has a bucket of THROWS_BURST throws
// that refills continuously at THROWS_PER_SECOND. A roll is let in while its address's bucket is
// not empty, and charged afterwards with the throws it actually made (rerolled-away throws,
// explosions, and a roll stopped at THROWS_PER_REQUEST included), so a bucket may go below zero:
// the address then waits until the refill has paid that back. One address can therefore throw at
// most THROWS_BURST plus one request's throws at once, and THROWS_PER_SECOND on average, however
// it spreads its requests; a refused roll costs a lookup, no dice.
//
// One number per address: the time at which its bucket is full again (a generic cell rate
// algorithm). In memory, the most recently charged LIMITS.rateLimitAddresses addresses are
// remembered; a forgotten address starts full again, as in the request limit's memory. With
// REDIS_URL the same number is also kept in Redis, through the request limit's connection
// (src/http/rate-limit-store.ts), under `fairdice-throws-<address>`, by one Lua script that reads
// and charges it atomically on Redis's clock: every instance draws on one budget per address.
// A roll waits for Redis's answer before it starts and sends its charge without waiting; the
// bucket in memory is checked too, so the requests of one process never overspend together
// while their answers from Redis are on their way. Redis failing, the memory alone counts, as
// for the request limit.
import type { FastifyReply } from 'fastify';
import type { ThrowMeter } from '../api/roll.js';
import { ThrowsSpentError } from '../errors.js';
import type { SharedRateLimit } from './rate-limit-store.js';

/** The prefix of the throws budget's keys in Redis. */
export const THROWS_KEY_PREFIX = 'fairdice-throws-';

/**
 * KEYS[1]: the address's key. ARGV: the bucket's size, what it regains per second, and the throws
 * to charge (0: only read). Returns the bucket's level after the charge, as text (a fraction).
 * The key holds when the bucket is full again, in ms of Redis's clock, and expires then.
 */
const THROWS_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local burst = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local throws = tonumber(ARGV[3])
local fullAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if fullAt < now then fullAt = now end
if throws > 0 then
  fullAt = math.ceil(fullAt + throws * 1000 / perSecond)
  redis.call('SET', KEYS[1], fullAt, 'PX', fullAt - now + 1)
end
return tostring(burst - (fullAt - now) * perSecond / 1000)
`;

/** The Redis client with the script defined on it (ioredis `defineCommand`). */
interface ThrowsCommand {
  fairdiceThrows(key: string, burst: number, perSecond: number, throws: number): Promise<string>;
}

export interface ThrowBudgetOptions {
  /** Throws an address may make at once: the bucket's size. */
  burst: number;
  /** Throws the bucket regains per second. */
  perSecond: number;
  /** Addresses remembered at most (least recently charged forgotten first). */
  addresses: number;
  /** Milliseconds since the epoch; a test's clock. */
  clock?: () => number;
  /** Share the budget through this Redis link (REDIS_URL) as well. */
  shared?: SharedRateLimit | undefined;
}

/** What one address has left, as the `x-ratelimit-throws-*` headers say it. */
export interface ThrowsLeft {
  /** Throws left in the bucket now (0 when it is empty or below). */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

export class ThrowBuckets {
  readonly burst: number;
  /** `burst` as the header writes it. */
  readonly burstText: string;
  readonly perSecond: number;
  private readonly addresses: number;
  private readonly clock: () => number;
  private readonly shared: SharedRateLimit | undefined;
  /** Per address: when its bucket is full again (ms since the epoch). Absent or past: full. */
  private readonly fullAt = new Map<string, number>();

  constructor(options: ThrowBudgetOptions) {
    this.burst = options.burst;
    this.burstText = String(options.burst);
    this.perSecond = options.perSecond;
    this.addresses = options.addresses;
    this.clock = options.clock ?? Date.now;
    this.shared = options.shared;
    this.shared?.redis.defineCommand('fairdiceThrows', { numberOfKeys: 1, lua: THROWS_SCRIPT });
  }

  /**
   * The level of `key`'s bucket in Redis after charging `throws`, or undefined when Redis is not
   * in use or fails (the process then counts in memory alone, as the request limit does).
   */
  sharedLevelOf(key: string, throws: number): Promise<number | undefined> | undefined {
    const link = this.shared;
    if (link === undefined || !link.usable) return undefined;
    const redis = link.redis as unknown as ThrowsCommand;
    return link
      .answerWithin(() =>
        redis.fairdiceThrows(`${THROWS_KEY_PREFIX}${key}`, this.burst, this.perSecond, throws),
      )
      .then(
        (level) => Number(level),
        (error: unknown) => {
          link.useLocal(error instanceof Error ? error.message : 'Redis call failed');
          return undefined;
        },
      );
  }

  /** Whether the budget is shared through Redis and Redis is answering. */
  get sharedUsable(): boolean {
    return this.shared?.usable === true;
  }

  /** Throws in `key`'s bucket now: at most `burst`, below zero while it pays back a costly roll. */
  level(key: string): number {
    const fullAt = this.fullAt.get(key);
    return fullAt === undefined ? this.burst : this.levelAt(fullAt, this.clock());
  }

  /** The level of a bucket full again at `fullAt`, at `now`. */
  private levelAt(fullAt: number, now: number): number {
    const owed = Math.max(0, fullAt - now);
    return this.burst - (owed * this.perSecond) / 1000;
  }

  /**
   * Lets a roll of `key` in, or throws ThrowsSpentError (429 rate_limited) with the seconds until
   * its bucket holds a throw again.
   */
  admit(key: string): void {
    const level = this.level(key);
    if (level > 0) return;
    throw new ThrowsSpentError(this.retryAfterAt(level));
  }

  /** Seconds until a bucket at `level` (0 or below) holds one unit again: its retry-after. */
  retryAfterAt(level: number): number {
    return Math.max(1, Math.ceil((1 - level) / this.perSecond));
  }

  /** Whole units left in a bucket at `level`, for the `-remaining` header. */
  remainingAt(level: number): number {
    return Math.max(0, Math.floor(level));
  }

  /** Seconds until a bucket at `level` is full again, for the `-reset` header. */
  resetAt(level: number): number {
    return Math.max(0, Math.ceil((this.burst - level) / this.perSecond));
  }

  /** Takes `throws` from `key`'s bucket; returns its level after, read at the same moment. */
  charge(key: string, throws: number): number {
    if (throws <= 0) return this.level(key);
    const now = this.clock();
    const previous = this.fullAt.get(key);
    const from = previous === undefined || previous < now ? now : previous;
    const fullAt = from + (throws * 1000) / this.perSecond;
    // Re-inserted, so the map's order is the order of the last charge: the oldest goes first. A
    // map's only entry stays where it is: deleting it makes V8 reallocate the map's table.
    if (previous !== undefined) {
      if (this.fullAt.size > 1) this.fullAt.delete(key);
    } else if (this.fullAt.size >= this.addresses) this.forgetOldest(now);
    this.fullAt.set(key, fullAt);
    return this.levelAt(fullAt, now);
  }

  /** What `key` has left, for the headers. */
  left(key: string): ThrowsLeft {
    const level = this.level(key);
    return {
      remaining: this.remainingAt(level),
      resetSeconds: this.resetAt(level),
    };
  }

  /** Addresses remembered now (full buckets included until they are forgotten). */
  get size(): number {
    return this.fullAt.size;
  }

  /** Makes room: every full bucket goes, or else the least recently charged one. */
  private forgetOldest(now: number): void {
    for (const [key, fullAt] of this.fullAt) {
      if (fullAt > now) break;
      this.fullAt.delete(key);
    }
    if (this.fullAt.size >= this.addresses) this.fullAt.delete(this.fullAt.keys().next().value as string);
  }

  /**
   * The meter of one request from `key`: what the roll operations call (src/api/roll.ts). With a
   * reply, every roll answer, a refusal included, carries the `x-ratelimit-throws-*` headers.
   */
  meter(key: string, reply?: FastifyReply): ThrowMeter {
    return new RequestThrowMeter(this, key, reply);
  }
}

/**
 * One request's meter: a small object with its methods on the prototype rather than a set of
 * closures, because every request builds one, whether it rolls or not
 * (docs/performance.md#no-closures-per-request).
 */
class RequestThrowMeter implements ThrowMeter {
  /** The level Redis gave when the request was let in (shared budget only). */
  private sharedLevel: number | undefined = undefined;

  constructor(
    private readonly budget: ThrowBuckets,
    private readonly key: string,
    private readonly reply: FastifyReply | undefined,
  ) {}

  admit(): void {
    try {
      this.budget.admit(this.key);
    } catch (error) {
      this.refuse(error);
    }
  }

  sharedAdmit(): Promise<void> | undefined {
    const budget = this.budget;
    if (budget.sharedUsable !== true) return undefined;
    // The bucket in memory refuses first, without asking Redis.
    try {
      budget.admit(this.key);
    } catch (error) {
      return Promise.reject(error).catch((late: unknown) => this.refuse(late));
    }
    return budget.sharedLevelOf(this.key, 0)?.then((level) => {
      this.sharedLevel = level;
      if (level !== undefined && level <= 0) {
        this.refuse(new ThrowsSpentError(budget.retryAfterAt(level)));
      }
    });
  }

  charge(throws: number): void {
    const local = this.budget.charge(this.key, throws);
    this.headers(throws, local);
    if (throws > 0) this.budget.sharedLevelOf(this.key, throws);
  }

  /** The headers, from the level in memory (`local`) and Redis's when the budget is shared. */
  private headers(charged: number, local: number): void {
    const reply = this.reply;
    if (reply === undefined) return;
    const budget = this.budget;
    const shared = this.sharedLevel;
    const level = shared === undefined ? local : Math.min(local, shared - charged);
    // Strings: node checks a number header value on a slow path (src/http/rate-limit.ts).
    reply
      .header('x-ratelimit-throws-limit', budget.burstText)
      .header('x-ratelimit-throws-remaining', String(budget.remainingAt(level)))
      .header('x-ratelimit-throws-reset', String(budget.resetAt(level)));
  }

  private refuse(error: unknown): never {
    this.headers(0, this.budget.level(this.key));
    throw error;
  }
}
