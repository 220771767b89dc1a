// The worker-thread entry of the stats pool (src/api/stats-service.ts): computes one
// distribution, checks it against its output schema and serialises it, so the event loop only
// sends the text. It says on `started` when the computation begins (the time limit counts from
// there, not from the queue) and answers how long the computation took (what the address's
// budget is charged). A refusal of the engine (a DiceError) comes back as its code and message:
// an error thrown across threads would lose its class.

import type { MessagePort } from 'node:worker_threads';
import { DiceError } from '../errors.js';
import type { StatsOptions, StatsRequest } from '../stats/distribution.js';
import { distribution, distributions } from '../stats/distribution.js';
import { StatsBatchResponseSchema, StatsResponseSchema } from './stats-schemas.js';

/** Several requests answered together, in order, under one budget (POST /v1/stats/batch). */
export interface StatsBatch {
  requests: readonly StatsRequest[];
}

export interface StatsTask {
  request: StatsRequest | StatsBatch;
  options: StatsOptions;
  /** Told `'started'` once this worker begins the computation. */
  started?: MessagePort | undefined;
}

export type StatsOutcome =
  | { json: string; ms: number }
  | { refused: { code: string; message: string }; ms: number };

export default function compute(task: StatsTask): StatsOutcome {
  task.started?.postMessage('started');
  task.started?.close();
  const start = performance.now();
  try {
    const { request, options } = task;
    const json = JSON.stringify(
      'requests' in request
        ? StatsBatchResponseSchema.parse(distributions(request.requests, options))
        : StatsResponseSchema.parse(distribution(request, options)),
    );
    return { json, ms: performance.now() - start };
  } catch (error) {
    if (!(error instanceof DiceError)) throw error;
    return { refused: { code: error.code, message: error.message }, ms: performance.now() - start };
  }
}
