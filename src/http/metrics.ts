// The app's side of the metrics and readiness (src/metrics.ts): every answer of the public port
// counted by route pattern, method and status with its latency; the Redis connections' state read
// at each scrape; and the readiness of what this app serves. Off (no hook at all) without metrics.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Readiness, ServiceMetrics } from '../metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The instance's metrics (src/metrics.ts); undefined when METRICS_PORT is unset. */
    metrics: ServiceMetrics | undefined;
    /**
     * Whether this app can serve everything it is configured for now: Redis connected when
     * REDIS_URL is set, the table store usable, the signing key loaded. Shutdown is the server's.
     */
    readiness(): Readiness;
  }
}

export interface MetricsPluginOptions {
  metrics: ServiceMetrics | undefined;
}

/** The label of a path no route matched: one series for every unknown path. */
const UNMATCHED = 'unmatched';

async function metricsOfApp(app: FastifyInstance, { metrics }: MetricsPluginOptions): Promise<void> {
  app.decorate('metrics', metrics);
  app.decorate('readiness', function readiness(this: FastifyInstance): Readiness {
    const reasons: string[] = [];
    const shared = this.rateLimit?.shared;
    if (shared !== undefined && !shared.usable) {
      reasons.push('Redis (REDIS_URL) is not connected: rate limits are counted per instance');
    }
    if (this.hasDecorator('trust')) reasons.push(...this.trust.unusable());
    return { ready: reasons.length === 0, reasons };
  });
  if (metrics === undefined) return;
  app.addHook('onReady', function watchRedis(this: FastifyInstance, done) {
    metrics.watchRedis({
      rateLimit: () => this.rateLimit.shared?.usable,
      store: () => {
        const store = this.trust.openedStore;
        return store?.kind === 'redis' ? store.usable : undefined;
      },
    });
    done();
  });
  app.addHook('onResponse', function countAnswer(request: FastifyRequest, reply: FastifyReply, done) {
    const route = request.is404 ? UNMATCHED : (request.routeOptions.url ?? UNMATCHED);
    metrics.request(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/**
 * The metrics of the whole app (not encapsulated: its hook sees every route, the 404 handler
 * included). Register it first: the rate limit and the operations' context count into `app.metrics`.
 */
export const metricsPlugin = fp(metricsOfApp, { name: 'fairdice-metrics', fastify: '5.x' });
