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
// remembered; a forgotten address starts full again, as in the request limit's memory.
import type { FastifyReply } from 'fastify';
import type { ThrowMeter } from '../api/roll.js';
import { ThrowsSpentError } from '../errors.js';

export interface ThrowBudgetOptions {
  /** Throws an address may make at once: the bucket's size. */
  burst: number;
  /** Throws the bucket regains per second. */
  perSecond: number;
  /** Addresses remembered at most (least recently charged forgotten first). */
  addresses: number;
  /** Milliseconds since the epoch; a test's clock. */
  clock?: () => number;
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
  readonly perSecond: number;
  private readonly addresses: number;
  private readonly clock: () => number;
  /** Per address: when its bucket is full again (ms since the epoch). Absent or past: full. */
  private readonly fullAt = new Map<string, number>();

  constructor(options: ThrowBudgetOptions) {
    this.burst = options.burst;
    this.perSecond = options.perSecond;
    this.addresses = options.addresses;
    this.clock = options.clock ?? Date.now;
  }

  /** Throws in `key`'s bucket now: at most `burst`, below zero while it pays back a costly roll. */
  level(key: string): number {
    const fullAt = this.fullAt.get(key);
    if (fullAt === undefined) return this.burst;
    const owed = Math.max(0, fullAt - this.clock());
    return this.burst - (owed * this.perSecond) / 1000;
  }

  /**
   * Lets a roll of `key` in, or throws ThrowsSpentError (429 rate_limited) with the seconds until
   * its bucket holds a throw again.
   */
  admit(key: string): void {
    const level = this.level(key);
    if (level > 0) return;
    throw new ThrowsSpentError(Math.max(1, Math.ceil((1 - level) / this.perSecond)));
  }

  /** Takes `throws` from `key`'s bucket. */
  charge(key: string, throws: number): void {
    if (throws <= 0) return;
    const now = this.clock();
    const previous = this.fullAt.get(key);
    const from = previous === undefined || previous < now ? now : previous;
    const fullAt = from + (throws * 1000) / this.perSecond;
    // Re-inserted, so the map's order is the order of the last charge: the oldest goes first.
    if (previous !== undefined) this.fullAt.delete(key);
    else if (this.fullAt.size >= this.addresses) this.forgetOldest(now);
    this.fullAt.set(key, fullAt);
  }

  /** What `key` has left, for the headers. */
  left(key: string): ThrowsLeft {
    const level = this.level(key);
    return {
      remaining: Math.max(0, Math.floor(level)),
      resetSeconds: Math.max(0, Math.ceil((this.burst - level) / this.perSecond)),
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
    const headers = (budget: ThrowBuckets) => {
      if (reply === undefined) return;
      const { remaining, resetSeconds } = budget.left(key);
      reply
        .header('x-ratelimit-throws-limit', budget.burst)
        .header('x-ratelimit-throws-remaining', remaining)
        .header('x-ratelimit-throws-reset', resetSeconds);
    };
    return {
      admit: () => {
        try {
          this.admit(key);
        } catch (error) {
          headers(this);
          if (error instanceof ThrowsSpentError) reply?.header('retry-after', error.retryAfterSeconds);
          throw error;
        }
      },
      charge: (throws) => {
        this.charge(key, throws);
        headers(this);
      },
    };
  }
}
