// Fair turns: within one turn of the event loop, an address that has already started a request
// starts another only while the turn has lasted less than TURN_BUDGET_MS; past that its further
// requests wait for the next turns, each after node has taken in what other clients sent, while
// other addresses' requests start at once. A roll runs to its end once started (it never waits),
// so without this an address with 16 costly requests arriving together would have all 16 run
// back to back while every other client waited behind them; with it another client waits for at
// most the budget and one request of that address. Cheap requests (many per millisecond) are not
// held back (docs/operations.md#rate-limiting).

/** How long a turn may run requests of addresses it has already served. */
export const TURN_BUDGET_MS = 5;

/** Calls `proceed` now, or in a later turn if `key` has had its share of this one. */
export type TakeTurn = (key: string, proceed: () => void) => void;

/**
 * `beforeLate` runs just before each request that waited for a later turn starts (the server
 * checks its shutdown grace there); a request that starts at once is only handed to `proceed`,
 * so the caller can pass its own callback and make no closure per request.
 */
export function fairTurns(
  budgetMs = TURN_BUDGET_MS,
  clock: () => number = () => performance.now(),
  beforeLate?: () => void,
): TakeTurn {
  /** Addresses that started a request in the current turn. */
  const served = new Set<string>();
  /** Requests waiting for a later turn, first come first served, per address. */
  const waiting = new Map<string, (() => void)[]>();
  let scheduled = false;
  let turnStartedAt = 0;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // setImmediate runs after the poll phase that took in the requests; one scheduled from
    // nextTurn itself runs after the next poll phase, so other clients' input comes in between.
    setImmediate(nextTurn);
  };
  const release = (key: string, queue: (() => void)[]) => {
    const proceed = queue.shift()!;
    if (queue.length === 0) waiting.delete(key);
    served.add(key);
    beforeLate?.();
    proceed();
  };
  function nextTurn(): void {
    scheduled = false;
    served.clear();
    turnStartedAt = clock();
    // One request of every waiting address, then more, in turn, while the budget lasts.
    for (const [key, queue] of waiting) release(key, queue);
    while (waiting.size > 0 && clock() - turnStartedAt < budgetMs) {
      for (const [key, queue] of waiting) release(key, queue);
    }
    if (waiting.size > 0) schedule();
  }
  return (key, proceed) => {
    if (!scheduled) {
      // The first request since the last turn ended begins a new one.
      served.clear();
      turnStartedAt = clock();
    }
    if (!waiting.has(key) && (!served.has(key) || clock() - turnStartedAt < budgetMs)) {
      served.add(key);
      schedule();
      proceed();
      return;
    }
    const queue = waiting.get(key);
    if (queue === undefined) waiting.set(key, [proceed]);
    else queue.push(proceed);
    schedule();
  };
}
