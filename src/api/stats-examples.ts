// The examples of the stats answers in the OpenAPI document (docs/api.md): real answers of the
// engine, computed when the service loads (a few milliseconds), so they are complete (every
// outcome listed, counts adding up to the denominator) and never go stale.
// test/api/stats-schemas.test.ts checks them against their schemas and the engine.
import { distribution, distributions, type StatsRequest } from '../stats/distribution.js';

/** The requests the examples answer. */
export const STATS_EXAMPLE_REQUESTS = {
  response: { formula: '1d20+7', targets: [15, 20], versus: { formula: '1d20+5' } },
  batch: [{ formula: '2d6+3' }, { formula: '1d12+4' }],
} as const satisfies { response: StatsRequest; batch: readonly StatsRequest[] };

export const STATS_EXAMPLES = {
  response: distribution(STATS_EXAMPLE_REQUESTS.response),
  batch: distributions(STATS_EXAMPLE_REQUESTS.batch),
};
