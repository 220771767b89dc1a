// What an operation runs with (src/api/operations.ts `DiceContext`): the random source, the dice
// limits, the receipts and tables (src/trust), the /v1/stats workers, and the two budgets per
// address every roll and every distribution draws on (docs/operations.md#what-one-address-can-cost).
// Built once per app; each transport (REST, MCP, tRPC) asks it for a request's context.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { DiceContext } from '../api/operations.js';
import { StatsService } from '../api/stats-service.js';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import { cryptoRandom } from '../roll/random.js';
import type { RandomSource } from '../roll/types.js';
import { Trust } from '../trust/service.js';
import { StatsBudget } from './stats-budget.js';
import { ThrowBuckets } from './throw-budget.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * A request's DiceContext; the reply, when given, carries the budgets' headers. Its budgets
     * count under the request's address key, or under `key` when the caller counts it under
     * another (a Discord user: src/discord/plugin.ts).
     */
    diceContext(request: FastifyRequest, reply?: FastifyReply, key?: string): DiceContext;
    /** Receipts and tables (src/trust), as every request's DiceContext holds them. */
    trust: Trust;
  }
}

export interface DiceContextOptions {
  config: Config;
  /** The service's logger (the trust store's lines). */
  log: FastifyBaseLogger;
  /** A request's address key (src/http/connections.ts `requestKeys`). */
  keyOf(request: FastifyRequest): string;
  /** The random source of every roll (default: the CSPRNG source). */
  random?: RandomSource | undefined;
  /** Receipts and tables (default: from the configuration, closed with the app). */
  trust?: Trust | undefined;
  /** The /v1/stats workers (default: one thread, closed with the app). */
  stats?: StatsService | undefined;
}

async function diceContext(app: FastifyInstance, options: DiceContextOptions): Promise<void> {
  const { config, keyOf } = options;
  const random = options.random ?? cryptoRandom;
  const trust = options.trust ?? (await Trust.fromConfig(config, options.log));
  if (options.trust === undefined) app.addHook('onClose', () => trust.close());
  // Its worker threads start on the first /v1/stats request and stop with the app.
  const stats = options.stats ?? new StatsService({ dicePerRoll: config.dicePerRoll });
  app.addHook('onClose', () => stats.close());
  // Every roll of an address draws on its throws budget.
  const throwBuckets = new ThrowBuckets({
    burst: config.throwsBurst,
    perSecond: config.throwsPerSecond,
    addresses: LIMITS.rateLimitAddresses,
    // With REDIS_URL, shared by every instance through the request limit's connection.
    shared: app.rateLimit.shared,
  });
  // Every uncached distribution of an address draws on its share of the stats workers' time.
  const statsBudget = new StatsBudget({
    burstMs: config.statsBurstMs,
    msPerSecond: config.statsMsPerSecond,
    addresses: LIMITS.rateLimitAddresses,
  });
  app.decorate('trust', trust);
  app.decorate('diceContext', (request: FastifyRequest, reply?: FastifyReply, key?: string): DiceContext => {
    // The request limit's key: an IPv4 address as it is, an IPv6 one by its prefix.
    key ??= keyOf(request);
    return {
      log: request.log,
      random,
      dicePerRoll: config.dicePerRoll,
      dicePerBatch: config.dicePerBatch,
      stats,
      throwsPerRequest: config.throwsPerRequest,
      throwMeter: throwBuckets.meter(key, reply),
      statsMeter: statsBudget.meter(key, reply),
      trust,
      caller: key,
      address: request.ip,
    };
  });
}

/**
 * The operations' context, for the whole app (not encapsulated: the routes of every transport
 * read `app.diceContext`, the table events `app.trust`). Register it after src/http/rate-limit.ts, whose Redis link it shares.
 */
export const diceContextPlugin = fp(diceContext, {
  name: 'fairdice-dice-context',
  fastify: '5.x',
  dependencies: ['fairdice-rate-limit'],
});
