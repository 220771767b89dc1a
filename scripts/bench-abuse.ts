// `npm run bench:abuse`: what one address can cost the service at the default limits, whatever it
// sends. Three parts, each bounded in count and time, every socket on 127.0.0.1:
//   worst   the costliest requests in process: how long each blocks the event loop
//   attack  `node dist/server.js` with the defaults; one address (127.0.0.1) sends the costliest
//           batch over 16 connections: the server CPU and bytes its window's allowance costs, the
//           CPU of the 429 flood that follows, and meanwhile the /v1/health latency another
//           address (127.0.0.2) sees
//   memory  the in-memory limiter holding LIMITS.rateLimitAddresses addresses
// `--smoke` runs every part briefly (for the test that keeps this script working).
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import { defaultConfig } from '../dist/config.js';
import { buildApp } from '../dist/http/app.js';
import { LIMITS } from '../dist/limits.js';

const { values: args } = parseArgs({ options: { smoke: { type: 'boolean', default: false } } });
const SMOKE = args.smoke === true;

/** The costliest batch under the throws budget: 20 rolls of 4 dice rerolled to the cap (8,080 throws). */
const WORST_BATCH = JSON.stringify({
  rolls: Array.from({ length: 20 }, () => ({ formula: '4d4294967296r<4294967295' })),
});
/** The costliest single requests: each rerolls every die to the cap. */
const WORST_REQUESTS: { name: string; method: 'GET' | 'POST'; url: string; payload?: string }[] = [
  {
    name: 'GET 99d4294967296r<4294967295 (9,999 throws)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('99d4294967296r<4294967295')}`,
  },
  {
    name: 'GET 1000d4294967296r<4294967295 (refused at the budget)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d4294967296r<4294967295')}`,
  },
  {
    name: 'POST batch 20 x 4d4294967296r<4294967295 (8,080 throws)',
    method: 'POST',
    url: '/v1/roll/batch',
    payload: WORST_BATCH,
  },
  { name: 'GET 1000d2! (about 2,000 throws)', method: 'GET', url: '/v1/roll?formula=1000d2!' },
  { name: 'GET 1000d6', method: 'GET', url: '/v1/roll?formula=1000d6' },
];

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function worst(): Promise<void> {
  const app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 1_000_000 }));
  const runs = SMOKE ? 3 : 40;
  console.log('worst: time per request in process (the event loop is blocked for about this long)');
  for (const candidate of WORST_REQUESTS) {
    const inject = () =>
      app.inject({
        method: candidate.method,
        url: candidate.url,
        ...(candidate.payload === undefined
          ? {}
          : { payload: candidate.payload, headers: { 'content-type': 'application/json' } }),
      });
    for (let i = 0; i < 3; i++) await inject();
    const times: number[] = [];
    let status = 0;
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const answer = await inject();
      times.push(performance.now() - started);
      status = answer.statusCode;
      bytes = answer.rawPayload.length;
    }
    times.sort((a, b) => a - b);
    console.log(
      `  ${candidate.name}: ${status}, ${bytes} bytes, median ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}, max ${ms(times.at(-1)!)}`,
    );
  }
  await app.close();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** CPU seconds (user + system) the process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second here).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Shot {
  status: number;
  bytes: number;
}

function shoot(
  port: number,
  localAddress: string,
  method: string,
  path: string,
  body?: string,
): Promise<Shot> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      localAddress,
      method,
      path,
      agent: false,
      headers:
        body === undefined
          ? {}
          : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.setTimeout(15_000, () => req.destroy());
    req.on('response', (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
      response.on('error', () => resolve({ status: 0, bytes }));
    });
    req.on('error', () => resolve({ status: 0, bytes: 0 }));
    req.end(body);
  });
}

async function attack(): Promise<void> {
  const port = await freePort();
  const server: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('../dist/server.js', import.meta.url))],
    {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    for (let i = 0; i < 100; i++) {
      if ((await shoot(port, '127.0.0.2', 'GET', '/v1/health')).status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pid = server.pid!;
    // The same checker with no attack: what the machine itself gives.
    const baseline: number[] = [];
    for (let i = 0; i < (SMOKE ? 3 : 15); i++) {
      const started = performance.now();
      await shoot(port, '127.0.0.2', 'GET', '/v1/health');
      baseline.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    baseline.sort((a, b) => a - b);
    const floodSeconds = SMOKE ? 1 : 10;
    const connections = 16;
    const health: number[] = [];
    let stop = false;
    const checker = (async () => {
      // Sequential, one request at a time, as a well-behaved client, with a pause that keeps it
      // (baseline included) under its own limit of 60 per minute.
      while (!stop) {
        const started = performance.now();
        const shot = await shoot(port, '127.0.0.2', 'GET', '/v1/health');
        if (shot.status === 200 || shot.status === 429) health.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    })();

    // Phase 1: the window's allowance of the costliest batch, as fast as 16 connections go.
    const cpuBefore = cpuSeconds(pid);
    let allowed = 0;
    let bytes = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (allowed < LIMITS.rateLimitMax && refused === 0) {
          const shot = await shoot(port, '127.0.0.1', 'POST', '/v1/roll/batch', WORST_BATCH);
          if (shot.status === 200) {
            allowed += 1;
            bytes += shot.bytes;
          } else refused += 1;
        }
      }),
    );
    const allowanceCpu = cpuSeconds(pid) - cpuBefore;
    const windowSeconds = LIMITS.rateLimitWindowMs / 1000;
    console.log(
      `attack: one address, the costliest batch, ${connections} connections, default limits (${LIMITS.rateLimitMax} per ${windowSeconds} s)`,
    );
    console.log(
      `  its allowance: ${allowed} answers, ${(allowanceCpu * 1000).toFixed(0)} ms server CPU, ${(bytes / 1e6).toFixed(2)} MB -> over the window ${((allowanceCpu / windowSeconds) * 100).toFixed(2)} % of one core, ${(bytes / windowSeconds / 1e3).toFixed(1)} kB/s`,
    );

    // Phase 2: the same address keeps hammering at its limit: every answer is a 429.
    const floodStart = cpuSeconds(pid);
    const floodEnds = performance.now() + floodSeconds * 1000;
    let floodAnswers = 0;
    let floodBytes = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < floodEnds) {
          const shot = await shoot(port, '127.0.0.1', 'POST', '/v1/roll/batch', WORST_BATCH);
          floodAnswers += 1;
          floodBytes += shot.bytes;
        }
      }),
    );
    const floodCpu = cpuSeconds(pid) - floodStart;
    console.log(
      `  then ${floodSeconds} s of 429s: ${floodAnswers} answers (${(floodAnswers / floodSeconds).toFixed(0)}/s), ${((floodCpu / floodSeconds) * 100).toFixed(1)} % of one core, ${(floodBytes / floodSeconds / 1e3).toFixed(1)} kB/s`,
    );
    stop = true;
    await checker;
    health.sort((a, b) => a - b);
    console.log(
      `  another address's /v1/health with no attack (${baseline.length} requests): median ${ms(percentile(baseline, 50))}, p99 ${ms(percentile(baseline, 99))}, max ${ms(baseline.at(-1) ?? Number.NaN)}`,
    );
    console.log(
      `  another address's /v1/health meanwhile (${health.length} requests): median ${ms(percentile(health, 50))}, p99 ${ms(percentile(health, 99))}, max ${ms(health.at(-1) ?? Number.NaN)}`,
    );
  } finally {
    server.kill('SIGKILL');
  }
}

function memory(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const addresses = SMOKE ? 1_000 : LIMITS.rateLimitAddresses;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const store = new LocalStore(false, false, LIMITS.rateLimitAddresses);
  for (let i = 0; i < addresses; i++) {
    store.incr(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, () => undefined, 60_000, 60);
  }
  gc?.();
  const used = process.memoryUsage().heapUsed - before;
  console.log(
    `memory: the in-memory limiter holding ${addresses} IPv4 addresses: ${(used / 1e6).toFixed(1)} MB of heap (${(used / addresses).toFixed(0)} bytes each${gc === undefined ? ', without --expose-gc: approximate' : ''})`,
  );
  // Keeps the store alive until measured.
  if (store === undefined) throw new Error('unreachable');
}

await worst();
memory();
await attack();
