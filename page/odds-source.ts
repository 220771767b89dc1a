// Where the page gets a roll's odds (docs/api.md, "The page at /"): computed in the page by the
// exact engine in a Web Worker (page/odds-worker.ts), started as the roll is sent, so the roll
// costs one request. The service is asked only when the page cannot compute them: no worker, a
// worker that failed, or a computation past the service's own time limit (a slower device than
// the service's); then a request without bonuses is asked with GET, whose answer the browser
// keeps. A refusal of the engine (too_complex, a construct it does not take) is the service's
// own and is said as it is, without asking. Answers are kept for the session.
import { LIMITS } from '../src/limits.js';
import type { OddsAnswer, OddsTask } from './odds-worker.js';
import type { StatsResponse } from './types.js';

/** A roll's odds as found: the answer, the engine's refusal in words, or the service to be asked. */
export type FoundOdds =
  | { stats: StatsResponse; from: 'session' | 'page' | 'service' }
  | { refused: string }
  | { ask: true };

/** A RollRequest as the page sends it to /v1/roll. */
export type OddsRequest = { formula: string; [field: string]: unknown };

/** The exact engine in a Web Worker: one computation at a time, stopped at the time limit. */
class PageEngine {
  private worker: Worker | undefined;
  /** False once a worker could not start or failed: the service answers from then on. */
  private usable = typeof Worker === 'function';
  private lastId = 0;
  private readonly waiting = new Map<number, (found: FoundOdds) => void>();

  /** Starts the worker (its script is one more asset), so the first roll does not wait for it. */
  start(): void {
    if (!this.usable || this.worker !== undefined) return;
    try {
      const worker = new Worker(new URL('./odds-worker.ts', import.meta.url), { type: 'module' });
      worker.addEventListener('message', (event: MessageEvent<OddsAnswer>) => {
        const done = this.waiting.get(event.data.id);
        this.waiting.delete(event.data.id);
        done?.(
          'stats' in event.data
            ? { stats: event.data.stats, from: 'page' }
            : { refused: event.data.refused.message },
        );
      });
      worker.addEventListener('error', () => {
        this.usable = false;
        this.stop();
      });
      this.worker = worker;
    } catch {
      this.usable = false;
    }
  }

  /** Ends the worker; whatever it was computing goes to the service. */
  private stop(): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const done of this.waiting.values()) done({ ask: true });
    this.waiting.clear();
  }

  compute(request: OddsRequest): Promise<FoundOdds> {
    this.start();
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve({ ask: true });
    const id = ++this.lastId;
    return new Promise((resolve) => {
      // The service stops a computation at this limit too; a device slower than the service may
      // reach it first, and then the service is asked.
      const limit = setTimeout(() => {
        if (this.waiting.has(id)) this.stop();
      }, LIMITS.statsTimeoutMs);
      this.waiting.set(id, (found) => {
        clearTimeout(limit);
        resolve(found);
      });
      worker.postMessage({ id, request } satisfies OddsTask);
    });
  }
}

const ODDS_KEPT = 50;

export class OddsSource {
  private readonly known = new Map<string, StatsResponse>();
  private readonly engine = new PageEngine();

  /** Readies the worker before the first roll. */
  start(): void {
    this.engine.start();
  }

  /** Begins finding the odds of `request`, as it is sent to /v1/roll. */
  find(request: OddsRequest): Promise<FoundOdds> {
    const known = this.known.get(JSON.stringify(request));
    if (known !== undefined) return Promise.resolve({ stats: known, from: 'session' });
    return this.engine.compute(request);
  }

  /** Asks the service for the odds the page could not compute. */
  ask(request: OddsRequest): Promise<Response> {
    const headers = { accept: 'application/json' };
    if (request.bonuses === undefined) {
      const query = new URLSearchParams({ formula: String(request.formula) });
      if (typeof request.advantage === 'string') query.set('advantage', request.advantage);
      return fetch(`/v1/stats?${query}`, { headers });
    }
    return fetch('/v1/stats', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
  }

  /** Keeps `stats`, the odds of `request`, for the session. */
  remember(request: OddsRequest, stats: StatsResponse): void {
    if (this.known.size >= ODDS_KEPT) this.known.delete(this.known.keys().next().value!);
    this.known.set(JSON.stringify(request), stats);
  }
}
