// Fair turns: at most one request per client address starts its work in each turn of the event
// loop. A roll runs to its end once started (it never waits), so without this an address with 16
// requests arriving together would have all 16 run back to back while every other client's
// request waited behind them. Its further requests wait for the next turns instead, each after
// node has taken in what other clients sent: another client waits for at most one request of
// that address, not for all of them (docs/operations.md#what-one-address-can-cost).

/** Calls `proceed` now, or in a later turn if `key` already started a request in this one. */
export type TakeTurn = (key: string, proceed: () => void) => void;

export function fairTurns(): TakeTurn {
  /** Addresses that started a request in the current turn. */
  const served = new Set<string>();
  /** Requests waiting for a later turn, first come first served, per address. */
  const waiting = new Map<string, (() => void)[]>();
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // setImmediate runs after the poll phase that took in the requests; one scheduled from
    // nextTurn itself runs after the next poll phase, so other clients' input comes in between.
    setImmediate(nextTurn);
  };
  function nextTurn(): void {
    scheduled = false;
    served.clear();
    for (const [key, queue] of waiting) {
      const proceed = queue.shift()!;
      if (queue.length === 0) waiting.delete(key);
      served.add(key);
      proceed();
    }
    if (served.size > 0) schedule();
  }
  return (key, proceed) => {
    if (!served.has(key) && !waiting.has(key)) {
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
