// /v1/stats off the event loop: requests are checked here (cheap, synchronous), computed,
// checked against their schema and serialised in a worker-thread pool (piscina) with a time
// limit, and remembered as JSON text in a bounded LRU cache keyed by the normalised request. A
// distribution never changes for a given version, so its ETag is a hash of the version and that
// key, known before any work (docs/stats.md).

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LRUCache } from 'lru-cache';
import { Piscina } from 'piscina';
import { StatsBusyError, TooComplexError } from '../errors.js';
import { LIMITS } from '../limits.js';
import {
  checkDistribution,
  type StatsOptions,
  type StatsRequest,
  type StatsResponse,
} from '../stats/distribution.js';
import { VERSION } from '../version.js';
import type { StatsTask } from './stats-worker.js';

export interface StatsServiceOptions {
  /** Worker threads at most (default 1: the event loop keeps the other core for rolls). */
  threads?: number | undefined;
  /** Time limit of one computation, queueing included (default LIMITS.statsTimeoutMs). */
  timeoutMs?: number | undefined;
  /** Distributions remembered at most (default 256). */
  cacheEntries?: number | undefined;
  /** The per-roll dice limit (the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** The engine's work budget (default LIMITS.statsCostBudget). */
  costBudget?: number | undefined;
  /** Computations waiting for a worker at most; past it, 503 unavailable (default 64). */
  queueMax?: number | undefined;
}

/** piscina's rejection when its queue is at maxQueue (it has no error code). */
const QUEUE_FULL = 'Task queue is at limit';

/** The compiled worker: next to this file in dist/, or dist/'s copy when running from src/ (tests). */
function workerFile(): string {
  const here = import.meta.url;
  const url = here.endsWith('.ts')
    ? new URL('../../dist/api/stats-worker.js', here)
    : new URL('./stats-worker.js', here);
  const file = fileURLToPath(url);
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first.`);
  return file;
}

export class StatsService {
  /** Started on first use, so an app that never answers /v1/stats starts no thread. */
  private poolInstance: Piscina<StatsTask, string> | undefined;
  private readonly threads: number;
  /** Answers as JSON text, sized by their length. */
  private readonly cache: LRUCache<string, string>;
  private readonly running = new Map<string, Promise<string>>();
  private readonly options: StatsOptions;
  private readonly timeoutMs: number;
  private readonly queueMax: number;

  constructor(options: StatsServiceOptions = {}) {
    this.threads = options.threads ?? 1;
    this.queueMax = options.queueMax ?? 64;
    this.cache = new LRUCache<string, string>({
      max: options.cacheEntries ?? 256,
      maxSize: 64 * 1024 * 1024,
      sizeCalculation: (json) => json.length + 100,
    });
    this.timeoutMs = options.timeoutMs ?? LIMITS.statsTimeoutMs;
    this.options = { dicePerRoll: options.dicePerRoll, costBudget: options.costBudget };
  }

  private get pool(): Piscina<StatsTask, string> {
    this.poolInstance ??= new Piscina<StatsTask, string>({
      filename: workerFile(),
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 30_000,
      maxQueue: this.queueMax,
    });
    return this.poolInstance;
  }

  /** The request in one canonical form: what the answer depends on, and nothing else. */
  static key(request: StatsRequest): string {
    return JSON.stringify([
      request.formula.trim(),
      request.advantage ?? 'normal',
      request.bonuses ?? [],
      [...new Set(request.tags ?? [])].sort(),
      request.depth ?? null,
    ]);
  }

  /** A strong validator of the answer: the version and the normalised request. */
  etag(request: StatsRequest): string {
    const hash = createHash('sha256')
      .update(`${VERSION}\n${JSON.stringify(this.options)}\n${StatsService.key(request)}`)
      .digest('base64url');
    return `"${hash.slice(0, 27)}"`;
  }

  /** The distribution of `request` as an object (tRPC, the library); see json(). */
  async distribution(request: StatsRequest): Promise<StatsResponse> {
    return JSON.parse(await this.json(request)) as StatsResponse;
  }

  /**
   * The distribution of `request` as JSON text, already checked against its schema: refusals
   * (invalid_formula, invalid_request, too_complex) are thrown synchronously before any work; a
   * computation over the time limit is too_complex.
   */
  json(request: StatsRequest): Promise<string> {
    const key = StatsService.key(request);
    const cached = this.cache.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const running = this.running.get(key);
    if (running !== undefined) return running;
    checkDistribution(request, this.options);
    // piscina does not bound the queue of tasks that carry an abort signal: the bound is kept here.
    if (this.pool.queueSize >= this.queueMax) return Promise.reject(new StatsBusyError());
    const task = this.pool
      .run({ request, options: this.options }, { signal: AbortSignal.timeout(this.timeoutMs) })
      .then(
        (answer) => {
          this.cache.set(key, answer);
          return answer;
        },
        (error: unknown) => {
          if ((error as { message?: unknown } | null)?.message === QUEUE_FULL) throw new StatsBusyError();
          if ((error as { name?: unknown } | null)?.name === 'AbortError') {
            throw new TooComplexError(
              `This formula's exact distribution took longer than the limit of ${this.timeoutMs / 1000} s.`,
            );
          }
          throw error;
        },
      )
      .finally(() => this.running.delete(key));
    this.running.set(key, task);
    return task;
  }

  /** Stops the worker threads (pending computations are rejected). */
  async close(): Promise<void> {
    await this.poolInstance?.destroy();
    this.poolInstance = undefined;
  }
}
