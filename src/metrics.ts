// What an operator sees of a running instance (docs/operations.md#metrics-and-readiness): the
// service's metrics in the Prometheus text format (prom-client) and its readiness, both served on
// the operations listener (METRICS_PORT, METRICS_HOST), never on the public port. Off unless
// METRICS_PORT is set, and off, nothing is counted at all. One registry per instance, not
// prom-client's global one, so that several apps in one process (the tests) count apart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What refused a request before (or instead of) its work: the label of `fairdice_refusals_total`. */
export type RefusalKind = 'rate' | 'throws' | 'stats' | 'connections' | 'streams';

/** Request latency buckets, in seconds: a roll answers in well under a millisecond. */
export const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Stats computation buckets, in seconds: up to the 5 s time limit. */
const STATS_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5];

type RequestLabels = 'route' | 'method' | 'status';

/** One route, method and status of the request histogram: plain counts, read only at a scrape. */
interface RequestSeries {
  readonly method: string;
  readonly status: number;
  /** Answers per bucket, not cumulative: [i] for latencies up to REQUEST_BUCKETS[i], the last above them all. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** What prom-client's registry reads of a histogram at a scrape (the shape `Histogram.get()` answers). */
type HistogramValues = Awaited<ReturnType<Histogram<RequestLabels | 'le'>['get']>>;

/**
 * `fairdice_http_request_duration_seconds`, counted on every answer of the public port, so kept
 * as cheap as an array increment: a prom-client Histogram hashes and checks its labels on every
 * observation, which cost a GET /v1/roll several per cent of its requests per second
 * (docs/performance.md#http-engine-and-random-source). The registry reads it through the metric
 * contract it reads every metric by (`get()`, `reset()`, name, help, type, aggregator), and writes
 * it as any Prometheus histogram: cumulative `le` buckets, `_sum`, `_count`; the cluster primary sums it.
 */
class RequestHistogram {
  readonly name = 'fairdice_http_request_duration_seconds';
  readonly help =
    'Requests answered on the public port, by route pattern, method and status; _count counts them.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** By route pattern: a route has few methods and statuses, so a short list is searched. */
  private readonly byRoute = new Map<string, RequestSeries[]>();

  observe(route: string, method: string, status: number, seconds: number): void {
    let series = this.byRoute.get(route);
    if (series === undefined) {
      series = [];
      this.byRoute.set(route, series);
    }
    let one: RequestSeries | undefined;
    for (const candidate of series) {
      if (candidate.status === status && candidate.method === method) {
        one = candidate;
        break;
      }
    }
    if (one === undefined) {
      one = { method, status, buckets: new Float64Array(REQUEST_BUCKETS.length + 1), sum: 0, count: 0 };
      series.push(one);
    }
    // A bucket holds the latencies up to and including its bound, as Prometheus' `le` says.
    let bucket = 0;
    while (bucket < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[bucket]!) bucket++;
    one.buckets[bucket]!++;
    one.sum += seconds;
    one.count++;
  }

  async get(): Promise<HistogramValues> {
    const values: HistogramValues['values'] = [];
    const bucketName = `${this.name}_bucket`;
    for (const [route, series] of this.byRoute) {
      for (const { method, status, buckets, sum, count } of series) {
        let cumulative = 0;
        REQUEST_BUCKETS.forEach((bound, i) => {
          cumulative += buckets[i]!;
          values.push({
            labels: { le: bound, route, method, status },
            value: cumulative,
            metricName: bucketName,
          });
        });
        const labels = { route, method, status };
        values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucketName });
        values.push({ labels, value: sum, metricName: `${this.name}_sum` });
        values.push({ labels, value: count, metricName: `${this.name}_count` });
      }
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    } as unknown as HistogramValues;
  }

  reset(): void {
    this.byRoute.clear();
  }
}

/** Whether each Redis connection is usable right now, asked at every scrape. */
export interface RedisStates {
  /** The rate limit's connection (REDIS_URL); undefined without Redis. */
  rateLimit(): boolean | undefined;
  /** The table store's connection (REDIS_URL); undefined without Redis or before the store opens. */
  store(): boolean | undefined;
}

/** Every metric of one instance. Method names say what happened; nothing here reads the clock. */
export class ServiceMetrics {
  readonly registry = new Registry();

  private readonly requests = new RequestHistogram();
  /** Counted on every roll request as plain numbers; their counters read them at a scrape. */
  private rollCount = 0;
  private diceCount = 0;
  private readonly stats: Histogram;
  private readonly tooComplex: Counter;
  private readonly refusals: Counter<'kind'>;
  private readonly entries: Counter;
  private readonly streams: Gauge;
  private readonly storeErrors: Counter;
  private readonly redisFallbacks: Counter;
  private redisStates: RedisStates | undefined;

  constructor() {
    const registers = [this.registry];
    // Typed as the Histogram whose contract it keeps: the registry takes prom-client's own kinds.
    this.registry.registerMetric(this.requests as unknown as Histogram<RequestLabels>);
    const metrics = this;
    new Counter({
      name: 'fairdice_rolls_total',
      help: 'Roll requests that threw dice (REST, tRPC, MCP, Discord; a batch counts once).',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.rollCount);
      },
    });
    new Counter({
      name: 'fairdice_dice_thrown_total',
      help: 'Dice thrown, rerolls and explosions included.',
      registers,
      collect() {
        this.reset();
        this.inc(metrics.diceCount);
      },
    });
    this.stats = new Histogram({
      name: 'fairdice_stats_computation_seconds',
      help: 'Distributions computed in a stats worker (not cached answers), by worker time; _count counts them.',
      buckets: STATS_BUCKETS,
      registers,
    });
    this.tooComplex = new Counter({
      name: 'fairdice_stats_too_complex_total',
      help: 'Distributions refused with too_complex, before any work or at the time limit.',
      registers,
    });
    this.refusals = new Counter({
      name: 'fairdice_refusals_total',
      help: 'Requests refused by a limit: rate (requests per window), throws (throws budget), stats (stats budget), connections (connections per address), streams (event streams per address).',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of ['rate', 'throws', 'stats', 'connections', 'streams'] satisfies RefusalKind[]) {
      this.refusals.inc({ kind }, 0);
    }
    this.entries = new Counter({
      name: 'fairdice_table_entries_total',
      help: 'Entries written to table logs by this instance.',
      registers,
    });
    this.streams = new Gauge({
      name: 'fairdice_event_streams',
      help: 'Table event streams (Server-Sent Events) open on this instance.',
      registers,
    });
    this.storeErrors = new Counter({
      name: 'fairdice_store_errors_total',
      help: 'Table and receipt store operations that failed (Redis unreachable, an SQLite failure).',
      registers,
    });
    this.redisFallbacks = new Counter({
      name: 'fairdice_redis_fallbacks_total',
      help: 'Times the rate limit lost Redis and counted in local memory instead.',
      registers,
    });
    new Gauge({
      name: 'fairdice_redis_up',
      help: 'Whether a Redis connection is usable (1) or not (0), by use: rate_limit, store. Absent without REDIS_URL.',
      labelNames: ['use'],
      registers,
      // Summed over a cluster's workers it would count them: the primary reports the worst one.
      aggregator: 'min',
      collect() {
        this.reset();
        const states = metrics.redisStates;
        if (states === undefined) return;
        const rateLimit = states.rateLimit();
        const store = states.store();
        if (rateLimit !== undefined) this.set({ use: 'rate_limit' }, rateLimit ? 1 : 0);
        if (store !== undefined) this.set({ use: 'store' }, store ? 1 : 0);
      },
    });
    // The process's own: CPU, memory, heap, event-loop lag, handles (prefixed fairdice_process_...).
    collectDefaultMetrics({ register: this.registry, prefix: 'fairdice_' });
  }

  /** Where fairdice_redis_up reads the connections' state. */
  watchRedis(states: RedisStates): void {
    this.redisStates = states;
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe(route, method, status, seconds);
  }

  /** A roll request that threw `dice` dice. */
  rolled(dice: number): void {
    this.rollCount++;
    this.diceCount += dice;
  }

  computed(ms: number): void {
    this.stats.observe(ms / 1000);
  }

  refusedTooComplex(): void {
    this.tooComplex.inc();
  }

  refused(kind: RefusalKind): void {
    this.refusals.inc({ kind });
  }

  entryWritten(): void {
    this.entries.inc();
  }

  streamOpened(): void {
    this.streams.inc();
  }

  streamClosed(): void {
    this.streams.dec();
  }

  storeFailed(): void {
    this.storeErrors.inc();
  }

  redisFellBack(): void {
    this.redisFallbacks.inc();
  }

  /**
   * Makes this worker's registry the one its cluster primary aggregates (WORKERS>1): prom-client
   * answers the primary's requests for it over the cluster's IPC channel.
   */
  shareWithPrimary(): void {
    // The constructor installs the worker's listener for the primary's requests.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([this.registry]);
  }
}

/** The readiness answer: ready, or the reasons it is not. */
export interface Readiness {
  ready: boolean;
  /** Why not, one short sentence each; empty when ready. */
  reasons: string[];
}

export interface OperationsListenerOptions {
  host: string;
  port: number;
  /** The metrics text and its content type. */
  metrics(): Promise<{ text: string; contentType: string }>;
  readiness(): Readiness | Promise<Readiness>;
}

/** The operations listener: GET /metrics and GET /ready, nothing else. */
export interface OperationsListener {
  readonly server: Server;
  /** The port it listens on (METRICS_PORT, or the one chosen for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Starts the operations listener. A plain node server, not the app: no rate limit, no CORS, no
 * connection cap, as only a scraper or an orchestrator on the private network should reach it.
 */
export async function startOperationsListener(
  options: OperationsListenerOptions,
): Promise<OperationsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    const answer = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      answer(405, 'text/plain; charset=utf-8', 'GET only\n');
      return;
    }
    if (path === '/metrics') {
      options.metrics().then(
        ({ text, contentType }) => answer(200, contentType, text),
        (error: unknown) =>
          answer(500, 'text/plain; charset=utf-8', `metrics unavailable: ${(error as Error).message}\n`),
      );
      return;
    }
    if (path === '/ready') {
      Promise.resolve(options.readiness()).then(
        (readiness) =>
          answer(readiness.ready ? 200 : 503, 'application/json; charset=utf-8', JSON.stringify(readiness)),
        (error: unknown) =>
          answer(
            503,
            'application/json; charset=utf-8',
            JSON.stringify({ ready: false, reasons: [`readiness unknown: ${(error as Error).message}`] }),
          ),
      );
      return;
    }
    answer(404, 'text/plain; charset=utf-8', 'not found: GET /metrics or /ready\n');
  });
  // A scraper's kept-alive connection must not hold the process open at exit.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The metrics of one registry, for the listener. */
export const metricsOf = (registry: Registry) => async () => ({
  text: await registry.metrics(),
  contentType: registry.contentType,
});

/** The metrics of every worker, summed by the primary (prom-client's cluster aggregation). */
export function clusterMetrics(): () => Promise<{ text: string; contentType: string }> {
  const registry = new AggregatorRegistry();
  return async () => ({ text: await registry.clusterMetrics(), contentType: registry.contentType });
}
