// What an operation runs with (src/api/operations.ts `DiceContext`): the random source, the dice
// limits, the receipts and tables (src/trust), the /v1/stats workers, and the two budgets per
// address every roll and every distribution draws on (docs/operations.md#what-one-address-can-cost).
// Built once per app; each transport (REST, MCP, tRPC) asks it for a request's context.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { DiceContext, ThrowMeter } from '../api/context.js';
import { type StatsMeter, StatsService } from '../api/stats-service.js';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import type { ServiceMetrics } from '../metrics.js';
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
     * another (a Discord user: src/http/discord.ts).
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

/** The throws meter, counting rolls, dice and refusals into the metrics (a class: no closures per request). */
class CountedThrowMeter implements ThrowMeter {
  constructor(
    private readonly meter: ThrowMeter,
    private readonly metrics: ServiceMetrics,
  ) {}

  admit(): void {
    try {
      this.meter.admit();
    } catch (error) {
      this.metrics.refused('throws');
      throw error;
    }
  }

  charge(throws: number): void {
    this.metrics.rolled(throws);
    this.meter.charge(throws);
  }

  sharedAdmit(): Promise<void> | undefined {
    return this.meter.sharedAdmit()?.catch((error: unknown) => {
      this.metrics.refused('throws');
      throw error;
    });
  }
}

/** The stats meter, counting its refusals into the metrics. */
class CountedStatsMeter implements StatsMeter {
  constructor(
    private readonly meter: StatsMeter,
    private readonly metrics: ServiceMetrics,
  ) {}

  admit(): Promise<void> {
    return this.meter.admit().catch((error: unknown) => {
      this.metrics.refused('stats');
      throw error;
    });
  }

  settle(ms: number): void {
    this.meter.settle(ms);
  }

  served(): void {
    this.meter.served();
  }
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
  // With metrics on, the services tell them what they do; off, nothing is wrapped or counted.
  const { metrics } = app;
  if (metrics !== undefined) {
    trust.observer = metrics;
    stats.observer = metrics;
  }
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
      throwMeter:
        metrics === undefined
          ? throwBuckets.meter(key, reply)
          : new CountedThrowMeter(throwBuckets.meter(key, reply), metrics),
      statsMeter:
        metrics === undefined
          ? statsBudget.meter(key, reply)
          : new CountedStatsMeter(statsBudget.meter(key, reply), metrics),
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
