// The worker-thread entry of the stats pool (src/api/stats-service.ts): computes one
// distribution, checks it against its output schema and serialises it, so the event loop only
// sends the text. The request was already checked on the event loop: a throw here is a fault.

import type { StatsOptions, StatsRequest } from '../stats/distribution.js';
import { distribution } from '../stats/distribution.js';
import { StatsResponseSchema } from './stats-schemas.js';

export interface StatsTask {
  request: StatsRequest;
  options: StatsOptions;
}

export default function compute(task: StatsTask): string {
  return JSON.stringify(StatsResponseSchema.parse(distribution(task.request, task.options)));
}
