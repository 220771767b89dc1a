// The /v1/stats budget per address (docs/operations.md#what-one-address-can-cost): the request
// limit counts requests, but one uncached distribution may keep a worker thread busy for seconds,
// and a new `depth` or a `+1` makes any formula uncached. So each address also has a bucket of
// STATS_BURST_MS milliseconds of worker computing time, refilled continuously at
// STATS_MS_PER_SECOND, and runs one computation at a time: the others wait for their turn (a few
// at most, then 429). A computation starts when its turn comes and the address's bucket is not
// empty (else 429 rate_limited with retry-after), and is charged afterwards with the time it took,
// measured in the worker (a computation stopped at the time limit is charged that limit).
// Answers already cached, or shared with a computation under way, cost nothing. One address
// therefore takes at most STATS_BURST_MS plus one time limit of worker time at once, and
// STATS_MS_PER_SECOND per second on average.
//
// The bucket is the throws budget's (src/http/throw-budget.ts), counting milliseconds instead of
// throws; the headers and the 429 read like its own.
import type { FastifyReply } from 'fastify';
import type { StatsMeter } from '../api/stats-service.js';
import { StatsSpentError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { ThrowBuckets } from './throw-budget.js';

export interface StatsBudgetOptions {
  /** Milliseconds of worker time an address may use at once: the bucket's size. */
  burstMs: number;
  /** Milliseconds the bucket regains per second. */
  msPerSecond: number;
  /** Addresses remembered at most (least recently charged forgotten first). */
  addresses: number;
  /** Computations of one address waiting behind the one under way, at most (default LIMITS.statsWaitingPerAddress). */
  waitingMax?: number | undefined;
  /** Milliseconds since the epoch; a test's clock. */
  clock?: () => number;
}

export class StatsBudget {
  private readonly buckets: ThrowBuckets;
  private readonly waitingMax: number;
  /**
   * Per address with a computation under way: the turns of its computations waiting behind it,
   * first come first served. Absent: none under way.
   */
  private readonly lines = new Map<string, Array<() => void>>();

  constructor(options: StatsBudgetOptions) {
    this.buckets = new ThrowBuckets({
      burst: options.burstMs,
      perSecond: options.msPerSecond,
      addresses: options.addresses,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    this.waitingMax = options.waitingMax ?? LIMITS.statsWaitingPerAddress;
  }

  /** Milliseconds in `key`'s bucket now: at most the burst, below zero while it pays back. */
  level(key: string): number {
    return this.buckets.level(key);
  }

  /** Computations of `key` under way (0 or 1) and waiting for their turn. */
  pending(key: string): number {
    const line = this.lines.get(key);
    return line === undefined ? 0 : 1 + line.length;
  }

  /**
   * Resolves when a computation of `key` may start: at once when it has none under way, else
   * once those before it are settled. Rejects with StatsSpentError (429 rate_limited, with the
   * seconds to wait) when its bucket is empty at that moment, or when waitingMax of its
   * computations already wait.
   */
  admit(key: string): Promise<void> {
    const line = this.lines.get(key);
    if (line === undefined) {
      try {
        this.check(key);
      } catch (error) {
        return Promise.reject(error);
      }
      this.lines.set(key, []);
      return Promise.resolve();
    }
    if (line.length >= this.waitingMax) return Promise.reject(new StatsSpentError(1, 'inFlight'));
    return new Promise((resolve, reject) => {
      line.push(() => {
        try {
          this.check(key);
          resolve();
        } catch (error) {
          reject(error);
          this.next(key);
        }
      });
    });
  }

  /** Charges `key` the milliseconds its computation took and gives the turn to its next one. */
  settle(key: string, ms: number): void {
    this.buckets.charge(key, Math.ceil(ms));
    this.next(key);
  }

  /** Throws StatsSpentError when `key`'s bucket is empty. */
  private check(key: string): void {
    const level = this.buckets.level(key);
    if (level > 0) return;
    throw new StatsSpentError(this.buckets.retryAfterAt(level));
  }

  private next(key: string): void {
    const line = this.lines.get(key);
    if (line === undefined) return;
    const turn = line.shift();
    if (turn === undefined) this.lines.delete(key);
    else turn();
  }

  /**
   * The meter of one request from `key` (src/api/stats-service.ts). With a reply, every answer
   * of /v1/stats that passed the engine's checks, a 429 included, carries the
   * `x-ratelimit-stats-*` headers.
   */
  meter(key: string, reply?: FastifyReply): StatsMeter {
    return new RequestStatsMeter(this, key, reply);
  }

  /** The `x-ratelimit-stats-*` headers of `key` on `reply`. */
  writeHeaders(key: string, reply: FastifyReply): void {
    const { remaining, resetSeconds } = this.buckets.left(key);
    reply
      .header('x-ratelimit-stats-limit', this.buckets.burstText)
      .header('x-ratelimit-stats-remaining', String(remaining))
      .header('x-ratelimit-stats-reset', String(resetSeconds));
  }
}

/**
 * One request's meter: its methods on the prototype rather than closures, because every request
 * builds one, rolls included (docs/performance.md#no-closures-per-request).
 */
class RequestStatsMeter implements StatsMeter {
  constructor(
    private readonly budget: StatsBudget,
    private readonly key: string,
    private readonly reply: FastifyReply | undefined,
  ) {}

  admit(): Promise<void> {
    const admitted = this.budget.admit(this.key);
    // A refusal carries the headers now; an admitted computation's settle() writes them.
    void admitted.then(undefined, () => this.served());
    return admitted;
  }

  settle(ms: number): void {
    this.budget.settle(this.key, ms);
    this.served();
  }

  served(): void {
    if (this.reply !== undefined) this.budget.writeHeaders(this.key, this.reply);
  }
}
