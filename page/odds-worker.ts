// The page's odds off the main thread (docs/api.md, "The page at /"): the service's own exact
// engine (src/stats/distribution.ts, pure and browser-safe), bundled into a Web Worker, answers a
// roll's odds in the page, so a roll costs its one request to /v1/roll. Held to the service's
// bounds: the same work budget, `too_complex` decided before any work. The dice limit is left to
// the service: the page shows these odds only once /v1/roll has accepted the same request.
import { DiceError } from '../src/errors.js';
import { distribution, type StatsRequest, type StatsResponse } from '../src/stats/distribution.js';

/** A request to the worker: a RollRequest as /v1/roll was sent it, and an id for its answer. */
export interface OddsTask {
  id: number;
  request: StatsRequest;
}

/** The worker's answer: the StatsResponse /v1/stats would give, or the refusal it would answer. */
export type OddsAnswer =
  | { id: number; stats: StatsResponse }
  | { id: number; refused: { code: string; message: string } };

const answer = (message: OddsAnswer) => self.postMessage(message);

self.addEventListener('message', (event: MessageEvent<OddsTask>) => {
  const { id, request } = event.data;
  try {
    answer({ id, stats: distribution(request, { dicePerRoll: Number.POSITIVE_INFINITY }) });
  } catch (error) {
    if (!(error instanceof DiceError)) throw error;
    answer({ id, refused: { code: error.code, message: error.message } });
  }
});
