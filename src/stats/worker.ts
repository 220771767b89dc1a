// The worker-thread entry of the stats pool (src/stats/service.ts): computes one distribution.
// The request was already checked on the event loop, so a throw here is a fault, not a refusal.

import { distribution, type StatsOptions, type StatsRequest, type StatsResponse } from './distribution.js';

export interface StatsTask {
  request: StatsRequest;
  options: StatsOptions;
}

export default function compute(task: StatsTask): StatsResponse {
  return distribution(task.request, task.options);
}
