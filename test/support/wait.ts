// Bounded polling for tests that wait on another process (Redis reconnecting, a worker starting).

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `everyMs` until it holds; fails after `attempts` tries with `what` in the message. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  { attempts = 200, everyMs = 50 } = {},
): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await condition()) return;
    await sleep(everyMs);
  }
  throw new Error(`gave up waiting for ${what} after ${attempts} polls`);
}
