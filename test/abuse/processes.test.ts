// Abuse against the built server as processes: a worker killed under load leaves no client waiting
// and nothing behind in the primary, its replacement never hands out a fresh budget, and the
// shutdown grace bounds the whole shutdown even with a hundred of the costliest batches in flight.
// Every loop is bounded in count and time; every socket is on 127.0.0.1.
import { readdirSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FORCED_EXIT_CODE } from '../../src/shutdown.js';
import { type Answer, freePort, get, holdRoll } from '../support/http.js';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.js';
import { killServer, type ServerProcess, said, startServer } from '../support/server-process.js';
import { sleep, until } from '../support/wait.js';

const REDIS_CONNECTED = 'Redis connected: rate limits are shared by every instance';
const REDIS_FALLBACK = 'Redis unavailable: rate limits are counted per instance until it is back';

/** Sockets a process holds open (listening sockets and connections alike). */
const socketsOf = (pid: number): number =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;

/** Settles with 'answered' or 'failed', or 'hung' if neither happens within `ms`. */
const settleWithin = (answer: Promise<Answer>, ms: number) =>
  Promise.race([
    answer.then(
      () => 'answered' as const,
      () => 'failed' as const,
    ),
    sleep(ms).then(() => 'hung' as const),
  ]);

// Each test starts a cluster and replaces workers in it: every process loads the whole service
// (about a second of CPU), which a 2-core machine busy with a full test suite stretches to 10-20 s
// of wall time apiece. Waits are on the processes' own log lines, bounded by this timeout.
vi.setConfig({ testTimeout: 120_000 });

let server: ServerProcess | undefined;
let redis: RedisServer | undefined;
afterEach(async () => {
  await killServer(server);
  await redis?.stop();
  server = undefined;
  redis = undefined;
});

describeWithRedis('a cluster under attack', (executable) => {
  const startCluster = async (env: Record<string, string>) => {
    redis = await startRedis(executable);
    const port = await freePort();
    const started = startServer({ PORT: String(port), REDIS_URL: redis.url, WORKERS: '2', ...env });
    server = started;
    await started.waitForLines(said('worker listening'), 2, 'two workers listening');
    return { port, server: started };
  };
  const listeningWorkers = (running: ServerProcess) => {
    const died = new Set(
      running.lines.filter(said('worker died: starting a replacement')).map((line) => line.worker),
    );
    return running.lines
      .filter(said('worker listening'))
      .map((line) => Number(line.worker))
      .filter((pid) => !died.has(pid));
  };

  it('a killed worker fails only its own requests, at once, and leaves no socket in the primary', async () => {
    const { port, server } = await startCluster({ RATE_LIMIT_MAX: '1000' });
    const primary = server.child.pid!;
    const before = socketsOf(primary);
    for (let cycle = 0; cycle < 2; cycle++) {
      // Requests in flight on both workers: headers and half a body sent.
      const held = Array.from({ length: 8 }, () => holdRoll(port));
      await sleep(200);
      const [victim] = listeningWorkers(server);
      const seen = server.lines.filter(said('worker listening')).length;
      process.kill(victim!, 'SIGKILL');
      await server.waitForLines(said('worker listening'), seen + 1, 'the replacement listening');
      for (const request of held) request.finish();
      const outcomes = await Promise.all(held.map((request) => settleWithin(request.answer, 5_000)));
      // The dead worker's share fails at once (reset); the survivor's is answered.
      expect(outcomes).not.toContain('hung');
    }
    // The primary holds its listening socket and one IPC channel per live worker, as before.
    await until(() => socketsOf(primary) === before, 'the primary back to its sockets before the kills');
    expect(socketsOf(primary)).toBe(before);
    expect((await get(port)).status).toBe(200);
  });

  it('a replacement worker never grants a fresh budget: 200s after the restart measured at zero', {
    timeout: 240_000,
  }, async () => {
    const max = 5;
    // A window that outlasts two slow restarts: with the default minute, the budget could come
    // back by itself, and a 200 would prove nothing.
    const { port, server } = await startCluster({
      RATE_LIMIT_MAX: String(max),
      RATE_LIMIT_WINDOW_MS: '600000',
    });
    await server.waitForLines(said(REDIS_CONNECTED), 2, 'both workers on Redis');
    for (let i = 0; i < max; i++) expect((await get(port)).status).toBe(200);
    expect((await get(port)).status).toBe(429);

    const statuses: number[] = [];
    let failures = 0;
    for (let cycle = 0; cycle < 2; cycle++) {
      const [victim] = listeningWorkers(server);
      const seen = server.lines.filter(said('worker listening')).length;
      process.kill(victim!, 'SIGKILL');
      // Ask all through the restart, and a while after the replacement listens.
      let after = 0;
      const started = performance.now();
      // A refused address's connections are held a second each: 20 answers after a restart take
      // about 15 s, and a replacement may take 20 s to start on a loaded machine.
      for (let i = 0; i < 5_000 && after < 20 && performance.now() - started < 90_000; i++) {
        try {
          statuses.push((await get(port)).status);
        } catch {
          failures += 1;
        }
        if (server.lines.filter(said('worker listening')).length > seen) after += 1;
      }
      expect(after).toBe(20);
    }
    // Every replacement waited for Redis (none fell back to counting locally) ...
    expect(server.lines.filter(said(REDIS_FALLBACK))).toEqual([]);
    // ... so not one request got through.
    expect(statuses.length).toBeGreaterThan(40);
    expect(statuses.filter((status) => status !== 429)).toEqual([]);
    // Only connections that reached the dying worker can fail.
    expect(failures).toBeLessThan(statuses.length);
  });

  it('a worker whose Redis does not answer listens after the start-up wait, counting locally', async () => {
    const port = await freePort();
    const deadRedis = await freePort();
    server = startServer({
      PORT: String(port),
      REDIS_URL: `redis://127.0.0.1:${deadRedis}`,
      REDIS_STARTUP_WAIT_MS: '300',
      LOG_LEVEL: 'info',
    });
    const listening = await server.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening'),
      'the server listening',
    );
    const fallback = server.lines.findIndex(said(REDIS_FALLBACK));
    expect(fallback).toBeGreaterThanOrEqual(0);
    expect(fallback).toBeLessThan(server.lines.indexOf(listening));
    expect((await get(port)).status).toBe(200);
  });
});

describe('shutdown under load', () => {
  it('the grace bounds the whole shutdown, with 100 of the costliest batches in flight', async () => {
    const graceMs = 2_000;
    const port = await freePort();
    const running = startServer({
      PORT: String(port),
      SHUTDOWN_GRACE_MS: String(graceMs),
      RATE_LIMIT_MAX: '1000',
      // 100 connections from one test address; the default cap (32) would refuse most of them.
      CONNECTIONS_PER_ADDRESS: '1000',
      // The throws budget per address would refuse all but the first few batches before any work.
      THROWS_PER_SECOND: '1000000000',
      LOG_LEVEL: 'info',
    });
    server = running;
    await running.waitForLine(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening'),
      'the server listening',
    );
    // Two requests that never finish keep the shutdown waiting until the grace is over.
    const stalled = [holdRoll(port), holdRoll(port)];
    // 100 batches in flight (headers and half the body sent): 20 rolls of 2 dice rerolled to the
    // cap, 4,040 throws each, under the throws budget. Their bodies complete during the grace.
    const rolls = Array.from({ length: 20 }, () => ({ formula: '2d4294967296r<4294967295' }));
    const payload = JSON.stringify({ rolls });
    const half = payload.length >> 1;
    const batches = Array.from({ length: 100 }, () => {
      const request = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/roll/batch',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length) },
      });
      const status = new Promise<number>((resolve) => {
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', () => resolve(0));
      });
      request.write(payload.slice(0, half));
      return { request, status };
    });
    await until(
      () => new Promise<boolean>((resolve) => resolve(batches.length === 100)),
      'the batches to be sent',
    );
    await sleep(300);
    const signalled = performance.now();
    running.child.kill('SIGTERM');
    await running.waitForLine(
      said('shutting down: refusing new connections, finishing in-flight requests'),
      'draining',
    );
    for (const { request } of batches) request.end(payload.slice(half));
    const code = await running.exited();
    const elapsed = performance.now() - signalled;
    expect(code).toBe(FORCED_EXIT_CODE);
    expect(running.lines.some(said('shutdown grace period over: exiting with requests unfinished'))).toBe(
      true,
    );
    // The bound the operator set: not a second before it, and soon after (a loaded machine may
    // take a few seconds to deliver the signal, exit and tell this process).
    expect(elapsed).toBeGreaterThan(graceMs - 1_000);
    expect(elapsed).toBeLessThan(graceMs + 5_000);
    // The batches were answered during the grace (those the process got to before it).
    const statuses = await Promise.all(batches.map(({ status }) => status));
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
    for (const request of stalled) await request.answer.catch(() => undefined);
  });
});
