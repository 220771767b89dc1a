// Fair turns: within one turn of the event loop, an address that has already started a request
// starts another only while the turn has lasted less than TURN_BUDGET_MS; past that its further
// requests wait for the next turns, each after node has taken in what other clients sent, while
// other addresses' requests start at once. A roll runs to its end once started (it never waits),
// so without this an address with 16 costly requests arriving together would have all 16 run
// back to back while every other client waited behind them; with it another client waits for at
// most the budget and one request of that address. Cheap requests (many per millisecond) are not
// held back (docs/operations.md#rate-limiting). A route whose requests all come from a few
// addresses on behalf of many users (the Discord endpoint, src/http/discord.ts) names the user
// in `request.turnKey` before the preHandler phase: its requests then take their turns per user.
// During a shutdown, past its grace, the process exits before it starts another request's work
// (src/shutdown.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { exitIfPastGrace } from '../shutdown.js';

/** How long a turn may run requests of addresses it has already served. */
export const TURN_BUDGET_MS = 5;

/** Addresses remembered as served before they are forgotten at a turn's start, all at once. */
const SERVED_MEMORY = 1024;

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
  /**
   * Per address, the turn in which it last started a request: an older turn's entry no longer
   * counts, so nothing is cleared per turn (clearing a Set allocates a new table, once or twice
   * every turn). Forgotten all at once, at the start of a turn, when it holds too many addresses.
   */
  const servedIn = new Map<string, number>();
  let turn = 0;
  /** Requests waiting for a later turn, first come first served, per address. */
  const waiting = new Map<string, (() => void)[]>();
  let scheduled = false;
  let turnStartedAt = 0;
  const beginTurn = () => {
    turn++;
    if (servedIn.size > SERVED_MEMORY) servedIn.clear();
    turnStartedAt = clock();
  };
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
    servedIn.set(key, turn);
    beforeLate?.();
    proceed();
  };
  function nextTurn(): void {
    scheduled = false;
    beginTurn();
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
      beginTurn();
    }
    if (!waiting.has(key) && (servedIn.get(key) !== turn || clock() - turnStartedAt < budgetMs)) {
      servedIn.set(key, turn);
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

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Whose turn the request waits for when it is not its address's: set by a route before the
     * preHandler phase (the Discord endpoint: the Discord user who asked); '' for the address.
     */
    turnKey: string;
  }
}

export interface FairTurnsOptions {
  /** A request's address key (src/http/connections.ts `requestKeys`). */
  keyOf(request: FastifyRequest): string;
  /** The turns taken (default: `fairTurns` with TURN_BUDGET_MS); a test records the keys. */
  takeTurn?: TakeTurn | undefined;
}

async function turns(app: FastifyInstance, options: FairTurnsOptions): Promise<void> {
  const { keyOf } = options;
  const takeTurn = options.takeTurn ?? fairTurns(TURN_BUDGET_MS, undefined, exitIfPastGrace);
  app.decorateRequest('turnKey', '');
  app.addHook('preHandler', function waitForTurn(request, _reply, done) {
    exitIfPastGrace();
    const key = request.turnKey;
    takeTurn(key === '' ? keyOf(request) : key, done);
  });
}

/** Every request's work starts in its address's turn, for the whole app (not encapsulated). */
export const fairTurnsPlugin = fp(turns, { name: 'fairdice-turns', fastify: '5.x' });
