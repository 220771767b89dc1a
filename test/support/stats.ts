// A stats computation that lasts exactly as long as a test wants, whatever the machine's load:
// a StatsService whose workerFile is HELD_WORKER keeps every request tagged `hold` in its worker
// (it has said it started) until the test releases it.

import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';

/** The worker script (test/support/held-stats-worker.mjs) that holds requests tagged `hold`. */
export const HELD_WORKER = fileURLToPath(new URL('./held-stats-worker.mjs', import.meta.url));

/** Must equal HELD_CHANNEL in held-stats-worker.mjs. */
const HELD_CHANNEL = 'fairdice-held-stats-worker';

/** The test's end: `holding()` resolves once a worker holds a computation, `release()` lets them all answer. */
export function heldComputations(): { holding(): Promise<void>; release(): void; close(): void } {
  const channel = new BroadcastChannel(HELD_CHANNEL);
  // The n-th announcement and the n-th wait meet at the n-th promise, whichever comes first.
  const announced: Promise<void>[] = [];
  const resolvers: Array<() => void> = [];
  const slot = (n: number): Promise<void> => {
    while (announced.length <= n) announced.push(new Promise<void>((resolve) => resolvers.push(resolve)));
    return announced[n] as Promise<void>;
  };
  let arrivals = 0;
  let waits = 0;
  channel.onmessage = (event) => {
    if ((event as { data?: unknown }).data !== 'holding') return;
    void slot(arrivals);
    resolvers[arrivals++]?.();
  };
  return {
    holding: () => slot(waits++),
    release: () => channel.postMessage('release'),
    close: () => channel.close(),
  };
}
