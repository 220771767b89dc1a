// A stats worker (src/api/stats-worker.ts) whose computations a test controls: a request tagged
// `hold` says it started and then keeps its thread until the test posts `release` on the
// BroadcastChannel HELD_CHANNEL (test/support/stats.ts), then answers as the real worker does.
// Every other request is the real worker's (dist/api/stats-worker.js: npm run build first).

import { BroadcastChannel } from 'node:worker_threads';
import compute from '../../dist/api/stats-worker.js';

/** The channel a held computation listens on; `release` lets every held one answer. */
export const HELD_CHANNEL = 'fairdice-held-stats-worker';

export default async function held(task) {
  if (!task.request.tags?.includes('hold')) return compute(task);
  const channel = new BroadcastChannel(HELD_CHANNEL);
  try {
    const released = new Promise((resolve) => {
      channel.onmessage = (event) => {
        if (event.data === 'release') resolve();
      };
    });
    task.started?.postMessage('started');
    task.started?.close();
    channel.postMessage('holding');
    await released;
  } finally {
    channel.close();
  }
  return compute({ ...task, started: undefined });
}
