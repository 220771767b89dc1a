// The built server as processes with a real Redis: WORKERS=2 on one port with one shared limit, a
// dead worker replaced, and graceful shutdown under in-flight requests (single process and cluster).

import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDIS_CONNECTION_NAME, REDIS_KEY_PREFIX } from '../src/http/rate-limit-store.js';
import { FORCED_EXIT_CODE } from '../src/shutdown.js';
import { freePort, get, holdRoll, tryConnect } from './support/http.js';
import { describeWithRedis, type RedisServer, startRedis } from './support/redis.js';
import { killServer, type ServerProcess, said, startServer } from './support/server-process.js';
import { until } from './support/wait.js';

// A test here starts up to four processes (the primary, two workers, a replacement), each loading
// the whole service: about a second of CPU apiece, which on a 2-core machine busy with a full test
// suite and more stretches to 10-20 s of wall time. Waits are on the processes' own log lines,
// bounded by this timeout rather than by a poll count.
vi.setConfig({ testTimeout: 120_000 });

const RATE_LIMIT_KEY = `${REDIS_KEY_PREFIX}127.0.0.1`;

describe('WORKERS without Redis', () => {
  it('refuses WORKERS=2 without REDIS_URL with one clear line and exit code 1', async () => {
    const server = startServer({ WORKERS: '2', PORT: String(await freePort()) });
    try {
      expect(await server.exited()).toBe(1);
      expect(server.stderr()).toBe(
        'fairdice: Invalid configuration: WORKERS=2 needs REDIS_URL (in memory, each worker would count its own rate limit, multiplying it by 2).\n',
      );
    } finally {
      await killServer(server);
    }
  });
});

describeWithRedis('the server process with Redis', (executable) => {
  let redis: RedisServer | undefined;
  let server: ServerProcess | undefined;
  let client: Redis | undefined;

  const setUp = async (env: Record<string, string>) => {
    redis = await startRedis(executable);
    client = new Redis(redis.url);
    const port = await freePort();
    server = startServer({ PORT: String(port), REDIS_URL: redis.url, LOG_LEVEL: 'info', ...env });
    return { port, redis, client, server };
  };
  /** Requests counted so far in Redis: a request is in flight once the limiter has counted it. */
  const counted = async () => Number((await client?.get(RATE_LIMIT_KEY)) ?? 0);
  const fairdiceClients = async () =>
    String(await client?.call('CLIENT', 'LIST'))
      .split('\n')
      .filter((entry) => entry.includes(`name=${REDIS_CONNECTION_NAME}`)).length;

  afterEach(async () => {
    await killServer(server);
    client?.disconnect();
    await redis?.stop();
    server = undefined;
    client = undefined;
    redis = undefined;
  });

  it('runs two workers on one port sharing the limit through Redis, and replaces a dead worker', async () => {
    const max = 10;
    const { port, server } = await setUp({ WORKERS: '2', RATE_LIMIT_MAX: String(max) });
    await server.waitForLines(said('worker listening'), 2, 'two workers listening');
    const workers = server.lines.filter(said('worker listening')).map((line) => line.worker);
    expect(new Set(workers).size).toBe(2);
    expect(workers).not.toContain(server.child.pid);
    expect(server.lines.filter((line) => line.port === port)).toHaveLength(2);
    await server.waitForLines(
      said('Redis connected: rate limits are shared by every instance'),
      2,
      'both workers on Redis',
    );
    // The two workers log from their own processes.
    const redisPids = new Set(
      server.lines
        .filter(said('Redis connected: rate limits are shared by every instance'))
        .map((line) => line.pid),
    );
    expect([...redisPids].sort()).toEqual([...workers].sort());

    // Every request on a fresh connection; node:cluster hands them to the workers in turn. Per-worker
    // counting would give 9,9,8,8,...; one count in Redis gives 9,8,7,... and a 429 at max+1.
    const remaining: number[] = [];
    for (let i = 0; i < max; i++) {
      const answer = await get(port);
      expect(answer.status, answer.body).toBe(200);
      remaining.push(Number(answer.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect((await get(port)).status).toBe(429);
    expect((await get(port)).status).toBe(429);

    const victim = Number(workers[0]);
    process.kill(victim, 'SIGKILL');
    await server.waitForLine(
      (line) => line.msg === 'worker died: starting a replacement' && line.worker === victim,
      'the replacement log line',
    );
    await server.waitForLines(said('worker listening'), 3, 'the replacement listening');
    const replacement = server.lines.filter(said('worker listening'))[2]?.worker;
    expect(workers).not.toContain(replacement);
    // Still served, still limited: the count lives in Redis, not in the worker that died.
    for (let i = 0; i < 4; i++) expect((await get(port)).status).toBe(429);

    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    expect(server.lines.some(said('all workers stopped'))).toBe(true);
    expect(server.lines.filter(said('shutdown complete'))).toHaveLength(2);
  });

  it('cluster: SIGTERM lets in-flight requests finish with 200, refuses new connections, exits 0', async () => {
    const { port, server } = await setUp({ WORKERS: '2', SHUTDOWN_GRACE_MS: '10000' });
    await server.waitForLines(said('worker listening'), 2, 'two workers listening');
    // Until a worker has connected it counts locally, and the held requests would not show in Redis.
    await server.waitForLines(
      said('Redis connected: rate limits are shared by every instance'),
      2,
      'both workers on Redis',
    );
    const held = Array.from({ length: 4 }, () => holdRoll(port));
    await until(async () => (await counted()) === held.length, 'the held requests to reach the workers');

    server.child.kill('SIGTERM');
    await until(
      () =>
        server.lines.filter(said('shutting down: refusing new connections, finishing in-flight requests'))
          .length === 2,
      'both workers draining',
    );
    await until(async () => (await tryConnect(port)) === 'refused', 'the port to refuse connections');

    for (const request of held) request.finish();
    const answers = await Promise.all(held.map((request) => request.answer));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    for (const answer of answers)
      expect((JSON.parse(answer.body) as { formula: string }).formula).toBe('2d6');
    expect(await server.exited()).toBe(0);
  });

  it('single process: SIGTERM finishes in-flight requests, refuses new connections, closes Redis, exits 0', async () => {
    const { port, server } = await setUp({ SHUTDOWN_GRACE_MS: '10000' });
    await server.waitForLine(
      said('Redis connected: rate limits are shared by every instance'),
      'Redis connected',
    );
    // The server listens once Redis has answered, so only then does it accept connections.
    await server.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening'),
      'the server listening',
    );
    expect(await fairdiceClients()).toBe(1);
    const held = Array.from({ length: 3 }, () => holdRoll(port));
    await until(async () => (await counted()) === held.length, 'the held requests to reach the server');

    server.child.kill('SIGTERM');
    await server.waitForLine(
      said('shutting down: refusing new connections, finishing in-flight requests'),
      'draining',
    );
    await until(async () => (await tryConnect(port)) === 'refused', 'the port to refuse connections');
    // Redis stays open while requests are in flight: they are still counted in it.
    expect(await fairdiceClients()).toBe(1);

    for (const request of held) request.finish();
    const answers = await Promise.all(held.map((request) => request.answer));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(await server.exited()).toBe(0);
    const messages = server.lines.map((line) => line.msg);
    expect(messages).toContain('shutdown complete');
    expect(messages).not.toContain(
      'Redis unavailable: rate limits are counted per instance until it is back',
    );
    expect(await fairdiceClients()).toBe(0);
  });

  it('a second signal exits at once, abandoning the request in flight', async () => {
    const { port, server } = await setUp({ SHUTDOWN_GRACE_MS: '60000' });
    await server.waitForLine(
      said('Redis connected: rate limits are shared by every instance'),
      'Redis connected',
    );
    // The server listens once Redis has answered, so only then does it accept connections.
    await server.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening'),
      'the server listening',
    );
    const held = holdRoll(port);
    await until(async () => (await counted()) === 1, 'the held request to reach the server');

    server.child.kill('SIGTERM');
    await server.waitForLine(
      said('shutting down: refusing new connections, finishing in-flight requests'),
      'draining',
    );
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(FORCED_EXIT_CODE);
    await expect(held.answer).rejects.toThrow();
    expect(server.lines.some(said('second signal: exiting now'))).toBe(true);
  });
});
