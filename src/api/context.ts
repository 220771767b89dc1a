// What every operation gets from its caller, made per request by the HTTP layer: the random
// source, the limits, the services and the client address's budgets. Its own module, so that the
// operation table (./operations.ts) and the work behind it (./roll.ts, ./tables.ts) import it
// without importing each other.
import type { RandomSource } from '../roll/types.js';
import type { Trust } from '../trust/service.js';
import type { StatsMeter, StatsService } from './stats-service.js';

/** The one logging call operations make (pino-compatible, so a request logger carries its id). */
interface RollLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The address's throws budget (docs/operations.md#what-one-address-can-cost), one per request:
 * `admit` before any work refuses a spent budget (it throws the 429), `charge` afterwards takes
 * the throws the request made, whether its roll succeeded or not.
 */
export interface ThrowMeter {
  admit(): void;
  charge(throws: number): void;
  /**
   * With a budget shared by several processes (Redis): resolves once the shared budget lets the
   * request in, or rejects with the 429. Undefined: nothing to wait for (`admit` decides alone).
   */
  sharedAdmit(): Promise<void> | undefined;
}

/** Everything an operation needs from its caller: made per request by the HTTP layer. */
export interface DiceContext {
  log: RollLog;
  random: RandomSource;
  dicePerRoll: number;
  dicePerBatch: number;
  /** Exact distributions, computed off the event loop and cached (src/api/stats-service.ts). */
  stats: StatsService;
  /** Throws one request may make, rerolls and explosions included (THROWS_PER_REQUEST; default LIMITS.throwsPerRequest). */
  throwsPerRequest?: number;
  /** The client address's throws budget (docs/operations.md#what-one-address-can-cost); absent: none. */
  throwMeter?: ThrowMeter | undefined;
  /** The client address's share of the stats workers' time (docs/operations.md#what-one-address-can-cost); absent: none. */
  statsMeter?: StatsMeter | undefined;
  /** Receipts and tables (docs/trust.md): the signing key and the store; absent, they answer 503. */
  trust?: Trust | undefined;
  /**
   * Who is asking, as the budgets count them (the rate limit's key: an address, or a Discord
   * user): the scope of an Idempotency-Key (docs/api.md#idempotency).
   */
  caller?: string | undefined;
  /** The client address (as TRUST_PROXY decides), which table creations count against. */
  address?: string | undefined;
}
