// The metrics and the readiness (src/metrics.ts, src/http/metrics.ts): what each request, roll,
// refusal, table entry and stream counts, as a scraper reads it from the operations listener;
// readiness with Redis unreachable; and a served process whose readiness turns 503 as soon as its
// shutdown begins, while the request it holds still gets its answer.
import { mkdtempSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REDIS_KEY_PREFIX } from '../src/http/rate-limit-store.js';
import {
  metricsOf,
  type OperationsListener,
  REQUEST_BUCKETS,
  ServiceMetrics,
  startOperationsListener,
} from '../src/metrics.js';
import { listen, makeApp } from './support/app.js';
import { openEvents } from './support/events.js';
import { freePort, get, holdRoll, send } from './support/http.js';
import { sample } from './support/metrics.js';
import { describeWithRedis, type RedisServer, startRedis } from './support/redis.js';
import { killServer, type ServerProcess, startServer } from './support/server-process.js';
import { until } from './support/wait.js';

// The process tests start the built server (a primary and two workers at most) on a shared machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = () => mkdtempSync(join(tmpdir(), 'fairdice-metrics-'));

describe('metrics of one app, on the operations listener', () => {
  let app: FastifyInstance;
  let base: string;
  let listener: OperationsListener;
  let operations: string;
  const scrape = async () => {
    const answer = await send(operations, { path: '/metrics' });
    expect(answer.status).toBe(200);
    return answer.body;
  };

  beforeAll(async () => {
    const metrics = new ServiceMetrics();
    app = await makeApp({ dataDir: tempDir(), rateLimitMax: 50 }, { metrics });
    base = await listen(app);
    listener = await startOperationsListener({
      host: '127.0.0.1',
      port: 0,
      metrics: metricsOf(metrics.registry),
      readiness: () => app.readiness(),
    });
    operations = `http://127.0.0.1:${listener.port}`;
  });
  afterAll(async () => {
    await listener.close();
    await app.close();
  });

  it('counts answers by route pattern, method and status, rolls and the dice they threw', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ url: '/v1/roll?formula=2d6' })).statusCode).toBe(200);
    }
    expect(
      (await app.inject({ method: 'POST', url: '/v1/roll', payload: { formula: '4d8' } })).statusCode,
    ).toBe(200);
    expect((await app.inject({ url: '/no/such/path' })).statusCode).toBe(404);
    const text = await scrape();
    const count = (route: string, method: string, status: string) =>
      sample(text, 'fairdice_http_request_duration_seconds_count', { route, method, status });
    expect(count('/v1/roll', 'GET', '200')).toBe(3);
    expect(count('/v1/roll', 'POST', '200')).toBe(1);
    expect(count('unmatched', 'GET', '404')).toBe(1);
    expect(sample(text, 'fairdice_rolls_total')).toBe(4);
    expect(sample(text, 'fairdice_dice_thrown_total')).toBe(3 * 2 + 4);
  });

  it('counts refusals by kind: the request limit', async () => {
    const before = sample(await scrape(), 'fairdice_refusals_total', { kind: 'rate' });
    expect(before).toBe(0);
    let refused = 0;
    for (let i = 0; i < 52; i++) {
      const answer = await app.inject({ url: '/v1/health', remoteAddress: '10.9.9.9' });
      if (answer.statusCode === 429) refused++;
    }
    expect(refused).toBe(2);
    expect(sample(await scrape(), 'fairdice_refusals_total', { kind: 'rate' })).toBe(2);
  });

  it('counts distributions computed and refused as too_complex', async () => {
    expect((await app.inject({ url: '/v1/stats?formula=3d6' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/v1/stats?formula=1000d6!kh500' })).statusCode).toBe(400);
    const text = await scrape();
    expect(sample(text, 'fairdice_stats_computation_seconds_count')).toBe(1);
    expect(sample(text, 'fairdice_stats_too_complex_total')).toBe(1);
  });

  it('counts table entries written and event streams open', async () => {
    const table = (await app.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string };
    const stream = await openEvents(base, `/v1/tables/${table.id}/events`);
    try {
      expect(stream.status).toBe(200);
      expect(sample(await scrape(), 'fairdice_event_streams')).toBe(1);
      const rolled = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        payload: { formula: '1d20', table: table.id },
      });
      expect(rolled.statusCode).toBe(200);
      await stream.waitFor(1);
      expect(sample(await scrape(), 'fairdice_table_entries_total')).toBe(1);
    } finally {
      stream.close();
    }
    await until(async () => sample(await scrape(), 'fairdice_event_streams') === 0, 'the stream to close');
  });

  it("serves the process's own metrics, readiness, and nothing else", async () => {
    const text = await scrape();
    for (const name of [
      'fairdice_process_cpu_user_seconds_total',
      'fairdice_nodejs_eventloop_lag_seconds',
      'fairdice_nodejs_heap_size_used_bytes',
    ]) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
    // No Redis configured: no Redis state to report.
    expect(text).not.toMatch(/^fairdice_redis_up\{/m);
    const ready = await send(operations, { path: '/ready' });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ ready: true, reasons: [] });
    expect((await send(operations, { path: '/v1/roll?formula=1d6' })).status).toBe(404);
    expect((await send(operations, { method: 'POST', path: '/metrics' })).status).toBe(405);
    // And the public port does not serve them.
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
  });
});

describe('the request histogram', () => {
  // It keeps plain counts instead of a prom-client Histogram (the cost of a label hash on every
  // answer): what a scraper reads must still be exactly what prom-client's own Histogram writes.
  const NAME = 'fairdice_http_request_duration_seconds';
  const observations: [string, string, number, number][] = [
    ['/v1/roll', 'GET', 200, 0.0003],
    ['/v1/roll', 'GET', 200, 0.0005], // on a bound: counted in that bound's bucket (le is "at most")
    ['/v1/roll', 'GET', 200, 0.0012],
    ['/v1/roll', 'POST', 400, 0.001],
    ['unmatched', 'GET', 404, 0],
    ['/v1/roll', 'GET', 429, 10],
    ['/v1/stats', 'GET', 200, 10.5], // above every bound: only +Inf
    ['/v1/roll', 'GET', 200, 0.07],
  ];
  const HELP =
    'Requests answered on the public port, by route pattern, method and status; _count counts them.';
  const reference = () => {
    const registry = new Registry();
    const histogram = new Histogram({
      name: NAME,
      help: HELP,
      labelNames: ['route', 'method', 'status'],
      buckets: REQUEST_BUCKETS,
      registers: [registry],
    });
    return { registry, histogram };
  };
  const lines = async (from: Pick<Registry, 'getSingleMetricAsString'>) =>
    (await from.getSingleMetricAsString(NAME)).split('\n').sort();

  it("writes exactly prom-client's histogram text for the same answers", async () => {
    const metrics = new ServiceMetrics();
    const { registry, histogram } = reference();
    for (const [route, method, status, seconds] of observations) {
      metrics.request(route, method, status, seconds);
      histogram.observe({ route, method, status }, seconds);
    }
    const ours = await metrics.registry.getSingleMetricAsString(NAME);
    expect(ours).toContain(`${NAME}_bucket{le="0.0005",route="/v1/roll",method="GET",status="200"} 2`);
    // The same lines; the order of series may differ, which Prometheus' text format leaves free.
    expect(ours.split('\n').slice(0, 2)).toEqual([`# HELP ${NAME} ${HELP}`, `# TYPE ${NAME} histogram`]);
    expect(await lines(metrics.registry)).toEqual(await lines(registry));
  });

  it('sums as prom-client sums a histogram across cluster workers', async () => {
    const workers = [new ServiceMetrics(), new ServiceMetrics()];
    const { registry, histogram } = reference();
    observations.forEach(([route, method, status, seconds], i) => {
      workers[i % 2]!.request(route, method, status, seconds);
      histogram.observe({ route, method, status }, seconds);
    });
    const summed = AggregatorRegistry.aggregate(
      await Promise.all(workers.map((worker) => worker.registry.getMetricsAsJSON())),
    );
    const one = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON()]);
    expect(await lines(summed)).toEqual(await lines(one));
  });
});

describe('refusals of the other limits', () => {
  it('counts the throws budget and the connection cap by kind', async () => {
    const metrics = new ServiceMetrics();
    const app = await makeApp(
      { dataDir: tempDir(), throwsBurst: 100, throwsPerSecond: 1, connectionsPerAddress: 1 },
      { metrics },
    );
    try {
      // A bucket of 100 throws refilled at 1 a second: a roll of 100 dice empties it, the next
      // one or two find it spent.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await app.inject({ url: '/v1/roll?formula=100d6' })).statusCode);
      const spent = statuses.filter((status) => status === 429).length;
      expect(statuses[0]).toBe(200);
      expect(spent).toBeGreaterThanOrEqual(2);
      const base = await listen(app);
      const { port } = new URL(base);
      // One connection held open; the next one from the same address is over the cap.
      const held = createConnection({ host: '127.0.0.1', port: Number(port) });
      await new Promise((resolve) => held.once('connect', resolve));
      await until(
        () => new Promise<boolean>((resolve) => app.server.getConnections((_e, n) => resolve(n === 1))),
        'the held connection to be open',
      );
      const refused = await send(base, { path: '/v1/health' }).catch(() => ({ status: 0 }));
      held.destroy();
      expect(refused.status).toBe(429);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'fairdice_refusals_total', { kind: 'throws' })).toBe(spent);
      expect(sample(text, 'fairdice_refusals_total', { kind: 'connections' })).toBe(1);
      expect(sample(text, 'fairdice_rolls_total')).toBe(4 - spent);
    } finally {
      await app.close();
    }
  });
});

describe('metrics off', () => {
  it('counts nothing and adds no hook, while readiness still answers', async () => {
    const app = await makeApp({ dataDir: tempDir() });
    try {
      expect(app.metrics).toBeUndefined();
      expect(app.readiness()).toEqual({ ready: true, reasons: [] });
    } finally {
      await app.close();
    }
  });
});

describe('readiness', () => {
  it('is 503 with the reasons while Redis cannot be reached, for the rate limit and the store', async () => {
    const port = await freePort();
    const metrics = new ServiceMetrics();
    const app = await makeApp(
      { dataDir: tempDir(), redisUrl: `redis://127.0.0.1:${port}`, redisStartupWaitMs: 0 },
      { metrics },
    );
    try {
      // Opened as the server opens it at start.
      void app.trust.store;
      const readiness = app.readiness();
      expect(readiness.ready).toBe(false);
      expect(readiness.reasons).toEqual([
        'Redis (REDIS_URL) is not connected: rate limits are counted per instance',
        'the table store (Redis) is not connected',
      ]);
      // A table operation fails with the store: 503, counted as a store error.
      expect((await app.inject({ method: 'POST', url: '/v1/tables' })).statusCode).toBe(503);
      const text = await metrics.registry.metrics();
      expect(sample(text, 'fairdice_redis_up', { use: 'rate_limit' })).toBe(0);
      expect(sample(text, 'fairdice_redis_up', { use: 'store' })).toBe(0);
      expect(sample(text, 'fairdice_store_errors_total')).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe('a served process without METRICS_PORT', () => {
  it('opens no operations listener', async () => {
    const server = startServer({ PORT: String(await freePort()), LOG_LEVEL: 'info' });
    try {
      await server.waitForLine((line) => line.msg?.startsWith('Server listening') === true, 'listening');
      expect(server.lines.some((line) => line.msg?.startsWith('operations listener') === true)).toBe(false);
    } finally {
      await killServer(server);
    }
  });
});

describeWithRedis('served processes with metrics and Redis', (executable) => {
  let redis: RedisServer | undefined;
  let client: Redis | undefined;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await killServer(server);
    client?.disconnect();
    await redis?.stop();
    server = undefined;
    client = undefined;
    redis = undefined;
  });

  const start = async (env: Record<string, string> = {}) => {
    redis = await startRedis(executable);
    client = new Redis(redis.url);
    const [port, metricsPort] = [await freePort(), await freePort()];
    server = startServer({
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      REDIS_URL: redis.url,
      LOG_LEVEL: 'info',
      ...env,
    });
    await server.waitForLine((line) => line.msg?.startsWith('operations listener') === true, 'operations');
    return { port, server, operations: `http://127.0.0.1:${metricsPort}` };
  };
  /** Requests counted so far in Redis: a request is in flight once the limiter has counted it. */
  const counted = async () => Number((await client?.get(`${REDIS_KEY_PREFIX}127.0.0.1`)) ?? 0);

  it('turns not ready as soon as its shutdown begins, and still answers the request it holds', async () => {
    const { port, server, operations } = await start();
    await server.waitForLine((line) => line.msg?.startsWith('Server listening') === true, 'listening');
    await until(async () => (await send(operations, { path: '/ready' })).status === 200, 'readiness');
    expect(
      sample((await send(operations, { path: '/metrics' })).body, 'fairdice_redis_up', { use: 'rate_limit' }),
    ).toBe(1);

    const held = holdRoll(port, '3d6');
    await until(async () => (await counted()) === 1, 'the held request to reach the server');
    server.child.kill('SIGTERM');
    await server.waitForLine((line) => line.msg?.startsWith('shutting down') === true, 'the shutdown');
    const notReady = await send(operations, { path: '/ready' });
    expect(notReady.status).toBe(503);
    expect(JSON.parse(notReady.body)).toEqual({ ready: false, reasons: ['shutting down'] });
    held.finish();
    expect((await held.answer).status).toBe(200);
    expect(await server.exited()).toBe(0);
  });

  it("with WORKERS, the primary sums the workers' metrics and asks each for its readiness", async () => {
    const { port, server, operations } = await start({ WORKERS: '2' });
    await server.waitForLines((line) => line.msg === 'worker listening', 2, 'two workers');
    await until(async () => (await send(operations, { path: '/ready' })).status === 200, 'readiness');
    const rolls = 8;
    for (let i = 0; i < rolls; i++) expect((await get(port, '/v1/roll?formula=2d6')).status).toBe(200);
    const text = (await send(operations, { path: '/metrics' })).body;
    expect(sample(text, 'fairdice_rolls_total')).toBe(rolls);
    expect(sample(text, 'fairdice_dice_thrown_total')).toBe(rolls * 2);
    expect(sample(text, 'fairdice_redis_up', { use: 'rate_limit' })).toBe(1);

    await redis!.kill();
    let answer = { status: 0, body: '' };
    await until(async () => {
      answer = await send(operations, { path: '/ready' });
      return answer.status === 503;
    }, 'readiness to see Redis gone');
    const reasons = (JSON.parse(answer.body) as { reasons: string[] }).reasons;
    expect(
      reasons.some((reason) => /^worker \d+: .*Redis/.test(reason)),
      reasons.join('; '),
    ).toBe(true);
  });
});
