// /v1/stats off the event loop: requests are checked here (cheap, synchronous), computed,
// checked against their schema and serialised in a worker-thread pool (piscina) with a time
// limit, and remembered as JSON text in a bounded LRU cache keyed by the normalised request. A
// distribution never changes for a given version, so its ETag is a hash of the version and that
// key, known before any work (docs/stats.md).
//
// The time limit counts only the computation: the worker says when it starts, and a
// computation that waited longer than the queue wait for a worker is 503 unavailable, never
// too_complex. Each computation is charged to the address that caused it through its meter
// (docs/operations.md#what-one-address-can-cost); a cached or shared answer costs nothing.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { Piscina } from 'piscina';
import { type ApiErrorCode, DiceError, StatsBusyError, TooComplexError } from '../errors.js';
import { LIMITS } from '../limits.js';
import {
  checkDistribution,
  checkDistributions,
  type DistributionEstimate,
  type StatsBatchResponse,
  type StatsOptions,
  type StatsRequest,
  type StatsResponse,
} from '../stats/distribution.js';
import { formatCost } from '../stats/term.js';
import { VERSION } from '../version.js';
import type { StatsBatch, StatsOutcome, StatsTask } from './stats-worker.js';

/**
 * The address's share of the workers' time, one per request (src/http/stats-budget.ts): `admit`
 * resolves when the computation may start (the address's earlier one settled) or rejects with
 * the 429 of a spent budget; `settle` afterwards charges the milliseconds the computation took
 * (0 when it never ran) and gives the address's turn to its next computation; `served` is an
 * answer that cost nothing (cached, or shared with a computation already under way).
 */
export interface StatsMeter {
  admit(): Promise<void>;
  settle(ms: number): void;
  served(): void;
}

export interface StatsServiceOptions {
  /** Worker threads at most (default 1: the event loop keeps the other core for rolls). */
  threads?: number | undefined;
  /** Time limit of one computation, from when a worker starts it (default LIMITS.statsTimeoutMs). */
  timeoutMs?: number | undefined;
  /** How long a computation may wait for a worker; past it, 503 unavailable (default LIMITS.statsQueueWaitMs). */
  queueWaitMs?: number | undefined;
  /** Distributions remembered at most (default 256). */
  cacheEntries?: number | undefined;
  /** The per-roll dice limit (the service's DICE_PER_ROLL). */
  dicePerRoll?: number | undefined;
  /** The engine's work budget (default LIMITS.statsCostBudget). */
  costBudget?: number | undefined;
  /** Computations waiting for a worker at most; past it, 503 unavailable (default 64). */
  queueMax?: number | undefined;
  /**
   * The worker script, a module whose default export takes a StatsTask and answers a
   * StatsOutcome (default the compiled src/api/stats-worker.ts).
   */
  workerFile?: string | undefined;
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

/** A refusal the worker answered, as the DiceError it was (too_complex keeps its class). */
function refusal(code: string, message: string): DiceError {
  return code === 'too_complex' ? new TooComplexError(message) : new DiceError(code as ApiErrorCode, message);
}

/** Told of what the metrics count (src/metrics.ts `ServiceMetrics` is one). */
export interface StatsObserver {
  /** A computation a worker ran, for `ms` of its time (one it refused or stopped included). */
  computed(ms: number): void;
  /** A distribution refused with too_complex, before any work or at the time limit. */
  refusedTooComplex(): void;
}

export class StatsService {
  /** Set by the app when metrics are on; none by default. */
  observer: StatsObserver | undefined;
  /** Started on first use, so an app that never answers /v1/stats starts no thread. */
  private poolInstance: Piscina<StatsTask, StatsOutcome> | undefined;
  private readonly threads: number;
  /** Answers as JSON text, sized by their length. */
  private readonly cache: LRUCache<string, string>;
  private readonly running = new Map<string, Promise<string>>();
  private readonly options: StatsOptions;
  private readonly timeoutMs: number;
  private readonly queueWaitMs: number;
  private readonly queueMax: number;
  private readonly workerFile: string | undefined;

  constructor(options: StatsServiceOptions = {}) {
    this.threads = options.threads ?? 1;
    this.queueMax = options.queueMax ?? 64;
    this.cache = new LRUCache<string, string>({
      max: options.cacheEntries ?? 256,
      maxSize: 64 * 1024 * 1024,
      sizeCalculation: (json) => json.length + 100,
    });
    this.timeoutMs = options.timeoutMs ?? LIMITS.statsTimeoutMs;
    this.queueWaitMs = options.queueWaitMs ?? LIMITS.statsQueueWaitMs;
    this.options = { dicePerRoll: options.dicePerRoll, costBudget: options.costBudget };
    this.workerFile = options.workerFile;
  }

  private get pool(): Piscina<StatsTask, StatsOutcome> {
    this.poolInstance ??= new Piscina<StatsTask, StatsOutcome>({
      filename: this.workerFile ?? workerFile(),
      // Kept at full strength once started: with fewer, piscina does not replace a thread it
      // stopped at the time limit while other computations wait, and they would wait in vain.
      minThreads: this.threads,
      maxThreads: this.threads,
      maxQueue: this.queueMax,
    });
    return this.poolInstance;
  }

  /** The request (or batch) in one canonical form: what the answer depends on, and nothing else. */
  static key(request: StatsRequest | StatsBatch): string {
    if ('requests' in request) return JSON.stringify(['batch', ...request.requests.map(StatsService.key)]);
    const roll = (r: Omit<StatsRequest, 'depth'>) => [
      r.formula.trim(),
      r.advantage ?? 'normal',
      r.bonuses ?? [],
      [...new Set(r.tags ?? [])].sort(),
    ];
    return JSON.stringify([
      ...roll(request),
      request.depth ?? null,
      request.targets ?? null,
      request.versus === undefined ? null : roll(request.versus),
    ]);
  }

  /** A strong validator of the answer: the version and the normalised request. */
  etag(request: StatsRequest | StatsBatch): string {
    const hash = createHash('sha256')
      .update(`${VERSION}\n${JSON.stringify(this.options)}\n${StatsService.key(request)}`)
      .digest('base64url');
    return `"${hash.slice(0, 27)}"`;
  }

  /** The distribution of `request` as an object (tRPC, the library); see json(). */
  async distribution(request: StatsRequest, meter?: StatsMeter): Promise<StatsResponse> {
    return JSON.parse(await this.json(request, meter)) as StatsResponse;
  }

  /** The distributions of a batch as an object, in order, under one budget; see json(). */
  async distributions(batch: StatsBatch, meter?: StatsMeter): Promise<StatsBatchResponse> {
    return JSON.parse(await this.json(batch, meter)) as StatsBatchResponse;
  }

  /**
   * The distribution of `request` as JSON text, already checked against its schema: refusals
   * (invalid_formula, invalid_request, too_complex) are thrown synchronously before any work; a
   * spent budget rejects with the meter's 429, a computation over the time limit with
   * too_complex, and one that found no worker in time with 503 unavailable.
   */
  json(request: StatsRequest | StatsBatch, meter?: StatsMeter): Promise<string> {
    const key = StatsService.key(request);
    const known = this.cache.get(key) ?? this.running.get(key);
    if (known !== undefined) {
      meter?.served();
      return typeof known === 'string' ? Promise.resolve(known) : known;
    }
    let estimate: DistributionEstimate;
    try {
      estimate =
        'requests' in request
          ? checkDistributions(request.requests, this.options)
          : checkDistribution(request, this.options);
    } catch (error) {
      if (error instanceof TooComplexError) this.observer?.refusedTooComplex();
      throw error;
    }
    if (meter === undefined) return this.share(key, this.compute(request, estimate, undefined));
    return meter.admit().then(() => {
      // Another address may have asked the same meanwhile.
      const known = this.cache.get(key) ?? this.running.get(key);
      if (known === undefined) return this.share(key, this.compute(request, estimate, meter));
      meter.settle(0);
      return known;
    });
  }

  /** Shares `task` with identical requests while it runs, and caches its answer. */
  private share(key: string, task: Promise<string>): Promise<string> {
    const shared = task.then((answer) => {
      this.cache.set(key, answer);
      return answer;
    });
    this.running.set(key, shared);
    void shared.then(
      () => this.running.delete(key),
      () => this.running.delete(key),
    );
    return shared;
  }

  /**
   * One computation in a worker. Two clocks, one at a time: the queue wait from submission until
   * the worker says it started, then the time limit; either one aborts the task (piscina drops a
   * queued task, or stops the thread running it).
   */
  private compute(
    request: StatsRequest | StatsBatch,
    estimate: DistributionEstimate,
    meter: StatsMeter | undefined,
  ): Promise<string> {
    // piscina does not bound the queue of tasks that carry an abort signal: the bound is kept here.
    let queueSize: number;
    try {
      queueSize = this.pool.queueSize;
    } catch (error) {
      // No pool (its worker file missing): the address's turn is given back all the same.
      meter?.settle(0);
      return Promise.reject(error);
    }
    if (queueSize >= this.queueMax) {
      meter?.settle(0);
      return Promise.reject(new StatsBusyError('queueFull'));
    }
    const controller = new AbortController();
    const channel = new MessageChannel();
    let startedAt: number | undefined;
    let timer = setTimeout(() => controller.abort(), this.queueWaitMs);
    channel.port1.once('message', () => {
      clearTimeout(timer);
      startedAt = performance.now();
      timer = setTimeout(() => controller.abort(), this.timeoutMs);
    });
    const elapsed = () => (startedAt === undefined ? 0 : performance.now() - startedAt);
    let charged = false;
    const settle = (ms: number) => {
      if (charged) return;
      charged = true;
      if (startedAt !== undefined || ms > 0) this.observer?.computed(ms);
      meter?.settle(ms);
    };
    const task: StatsTask = { request, options: this.options, started: channel.port2 };
    return this.pool
      .run(task, { signal: controller.signal, transferList: [channel.port2] })
      .then(
        (outcome) => {
          settle(outcome.ms);
          if ('refused' in outcome) {
            if (outcome.refused.code === 'too_complex') this.observer?.refusedTooComplex();
            throw refusal(outcome.refused.code, outcome.refused.message);
          }
          return outcome.json;
        },
        (error: unknown) => {
          settle(elapsed());
          if ((error as { message?: unknown } | null)?.message === QUEUE_FULL) {
            throw new StatsBusyError('queueFull');
          }
          if ((error as { name?: unknown } | null)?.name === 'AbortError') {
            if (startedAt === undefined) throw new StatsBusyError('waitedTooLong');
            this.observer?.refusedTooComplex();
            throw new TooComplexError(
              `This formula's exact distribution took longer than the limit of ${this.timeoutMs / 1000} s of computation (estimated at about ${formatCost(estimate.cost)} units of work; the limit is ${formatCost(estimate.budget)}).`,
            );
          }
          throw error;
        },
      )
      .finally(() => {
        clearTimeout(timer);
        channel.port1.close();
      });
  }

  /** Stops the worker threads (pending computations are rejected). */
  async close(): Promise<void> {
    await this.poolInstance?.destroy();
    this.poolInstance = undefined;
  }
}
