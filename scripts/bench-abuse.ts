// `npm run bench:abuse`: what one address can cost the service at the default limits, whatever it
// sends. Three parts, each bounded in count and time, every socket on 127.0.0.1:
//   worst   the costliest requests in process, with production settings: how long each blocks
//           the event loop (CPU time of the process per request, and wall time)
//   memory  the in-memory limiter holding LIMITS.rateLimitAddresses addresses
//   attack  `NODE_ENV=production node dist/server.js` with the default limits; for one whole
//           rate-limit window one address (127.0.0.1) sends the costliest batch over 16
//           connections, twice: `paced`, all 16 at once and then one batch a second (the request
//           limit's average rate, waiting the retry-after of a 429: about the most the limits let
//           through), then, against a fresh server, `flood`, without pause (its 429s, then its
//           held connections). The server's
//           CPU over that window as a share of one core, and the /v1/health latency other
//           addresses see every 50 ms, before, during its first seconds, over the whole attack
//           and after. With `taskset` and 2 cores the server runs on core 0, this process on 1.
// `--smoke` runs every part briefly (for the test that keeps this script working); `--part`
// runs one part; `--attacker paced|flood` one attacker.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { defaultConfig } from '../dist/config.js';
import { buildApp } from '../dist/http/app.js';
import { MemoryRateStore } from '../dist/http/rate-limit-store.js';
import { LIMITS } from '../dist/limits.js';
import { corePinning, pinProcess } from './bench/cores.js';

const { values: args } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    part: { type: 'string' },
    attacker: { type: 'string' },
  },
});
const SMOKE = args.smoke === true;
// A misspelt part or attacker would run nothing and print nothing: refuse it by name.
for (const [option, value, known] of [
  ['part', args.part, ['worst', 'memory', 'attack']],
  ['attacker', args.attacker, ['paced', 'flood']],
] as const) {
  if (value !== undefined && !(known as readonly string[]).includes(value)) {
    throw new Error(`--${option} takes ${known.join(', ')}, not ${value}`);
  }
}
const runs = (part: string) => args.part === undefined || args.part === part;

/** The costliest batch under the throws budget: 20 rolls of 2 dice rerolled to the cap (4,040 throws). */
const WORST_BATCH = JSON.stringify({
  rolls: Array.from({ length: 20 }, () => ({ formula: '2d4294967296r<4294967295' })),
});
/** The costliest single requests: each rerolls every die to the cap. */
const WORST_REQUESTS: { name: string; method: 'GET' | 'POST'; url: string; payload?: string }[] = [
  {
    name: 'GET 49d4294967296r<4294967295 (4,949 throws)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('49d4294967296r<4294967295')}`,
  },
  {
    name: 'GET 1000d4294967296r<4294967295 (refused at the budget)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d4294967296r<4294967295')}`,
  },
  {
    name: 'POST batch 20 x 2d4294967296r<4294967295 (4,040 throws)',
    method: 'POST',
    url: '/v1/roll/batch',
    payload: WORST_BATCH,
  },
  { name: 'GET 1000d2! (about 2,000 throws)', method: 'GET', url: '/v1/roll?formula=1000d2!' },
  {
    name: 'GET 49d2u (unique rerolls to the cap, about 4,850 throws)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('49d2u')}`,
  },
  {
    name: 'GET 1000d2u (refused at the budget)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d2u')}`,
  },
  {
    name: 'GET 1000d4294967296u (1000 dice kept unique)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d4294967296u')}`,
  },
  {
    name: 'GET 1000d6mt (matching sets on 1000 dice)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d6mt')}`,
  },
  {
    name: 'GET 1000d6^4 (exact power of a 1000-dice sum)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('1000d6^4')}`,
  },
  {
    name: 'GET {500d6+500d8}kh500 (a pool of 1000 dice, keep)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('{500d6+500d8}kh500')}`,
  },
  {
    name: 'GET {500d2!+500d2!}kh500 (a pool of exploding dice, keep)',
    method: 'GET',
    url: `/v1/roll?formula=${encodeURIComponent('{500d2!+500d2!}kh500')}`,
  },
  { name: 'GET 1000d6', method: 'GET', url: '/v1/roll?formula=1000d6' },
];

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function worst(): Promise<void> {
  // Production settings (answers not re-checked against their schema), and neither limit per
  // address in the way: this part measures one request.
  const app = await buildApp(
    defaultConfig({
      logLevel: 'silent',
      rateLimitMax: 1_000_000,
      throwsPerSecond: 1_000_000_000,
      checkOutputs: false,
    }),
  );
  const count = SMOKE ? 3 : 200;
  console.log(
    'worst: per request in process, NODE_ENV=production settings: CPU time of the process (the work that blocks the event loop, plus the collector helper threads; other processes cannot stretch it) and wall time',
  );
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
    const cpu: number[] = [];
    const wall: number[] = [];
    let status = 0;
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const before = process.cpuUsage();
      const answer = await inject();
      const used = process.cpuUsage(before);
      wall.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
      status = answer.statusCode;
      bytes = answer.rawPayload.length;
    }
    cpu.sort((x, y) => x - y);
    wall.sort((x, y) => x - y);
    console.log(
      `  ${candidate.name}: ${status}, ${bytes} bytes, CPU median ${ms(percentile(cpu, 50))}, p99 ${ms(percentile(cpu, 99))}; wall median ${ms(percentile(wall, 50))}, p99 ${ms(percentile(wall, 99))}`,
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
  /** The retry-after of a 429, in seconds. */
  retryAfter: number;
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
      const retryAfter = Number(response.headers['retry-after'] ?? 0) || 0;
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes, retryAfter }));
      response.on('error', () => resolve({ status: 0, bytes, retryAfter }));
    });
    req.on('error', () => resolve({ status: 0, bytes: 0, retryAfter: 0 }));
    req.end(body);
  });
}

/**
 * The other clients: a worker thread (its own event loop, so the attacker's traffic in this
 * thread does not delay its clock) asking /v1/health every `everyMs` on a fresh connection, each
 * time from the next of 200 loopback addresses (127.0.1.x), so that none reaches its own limit.
 */
const CHECKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { request } = require('node:http');
const { port, everyMs } = workerData;
let stopped = false;
let n = 0;
parentPort.on('message', () => { stopped = true; });
const ask = () => new Promise((resolve) => {
  const started = performance.now();
  const req = request({ host: '127.0.0.1', port, localAddress: '127.0.1.' + (1 + (n++ % 200)), path: '/v1/health', agent: false });
  req.setTimeout(15000, () => req.destroy());
  req.on('response', (res) => { res.resume(); res.on('end', () => resolve({ at: Date.now(), ms: performance.now() - started, status: res.statusCode })); });
  req.on('error', () => resolve({ at: Date.now(), ms: performance.now() - started, status: 0 }));
  req.end();
});
(async () => {
  let next = performance.now();
  while (!stopped) {
    parentPort.postMessage(await ask());
    next += everyMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  parentPort.postMessage('done');
})();
`;

interface Sample {
  at: number;
  ms: number;
  status: number;
}

const summary = (samples: Sample[]) => {
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const failed = samples.filter((sample) => sample.status !== 200).length;
  return `${sorted.length} requests${failed > 0 ? ` (${failed} not 200)` : ''}: median ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? Number.NaN)}`;
};

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

type Attacker = 'paced' | 'flood';

async function attack(attacker: Attacker): Promise<void> {
  const port = await freePort();
  const pinning = corePinning();
  const server: ChildProcess = spawn(
    process.execPath,
    [fileURLToPath(new URL('../dist/server.js', import.meta.url))],
    {
      env: { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    for (let i = 0; i < 100; i++) {
      if ((await shoot(port, '127.0.0.2', 'GET', '/v1/health')).status === 200) break;
      await pause(100);
    }
    const pid = server.pid!;
    if (pinning !== undefined) {
      pinProcess(pid, pinning.serverCore);
      pinProcess(process.pid, pinning.loadCore);
    }
    const quietSeconds = SMOKE ? 2 : 10;
    const burstMs = SMOKE ? 1_000 : 5_000;
    const windowMs = SMOKE ? 3_000 : LIMITS.rateLimitWindowMs;
    const connections = 16;
    const samples: Sample[] = [];
    const checker = new Worker(CHECKER, { eval: true, workerData: { port, everyMs: 50 } });
    const checkerDone = new Promise<void>((resolve) =>
      checker.on('message', (message: Sample | 'done') => {
        if (message === 'done') resolve();
        else samples.push(message);
      }),
    );

    // Before: the other clients alone.
    const quietStart = Date.now();
    const quietCpuBefore = cpuSeconds(pid);
    await pause(quietSeconds * 1000);
    const quietCpu = cpuSeconds(pid) - quietCpuBefore;
    const quietEnd = Date.now();

    // One window of the costliest batch: 16 at once; then `paced` sends one a second (waiting
    // the retry-after of a 429), `flood` keeps its 16 connections busy without pause.
    const attackStart = Date.now();
    const attackEnds = performance.now() + windowMs;
    const cpuBefore = cpuSeconds(pid);
    let burstCpu = Number.NaN;
    const burstTimer = setTimeout(() => {
      burstCpu = cpuSeconds(pid) - cpuBefore;
    }, burstMs);
    const answered = new Map<number, number>();
    let bytes = 0;
    let firstRefusal = 0;
    const fire = async (): Promise<Shot> => {
      const shot = await shoot(port, '127.0.0.1', 'POST', '/v1/roll/batch', WORST_BATCH);
      answered.set(shot.status, (answered.get(shot.status) ?? 0) + 1);
      bytes += shot.bytes;
      if (shot.status !== 200 && firstRefusal === 0) firstRefusal = Date.now();
      return shot;
    };
    if (attacker === 'paced') {
      await Promise.all(Array.from({ length: connections }, fire));
      const everyMs = LIMITS.rateLimitWindowMs / LIMITS.rateLimitMax;
      let next = performance.now() + everyMs;
      while (next < attackEnds) {
        await pause(next - performance.now());
        const shot = await fire();
        next = Math.max(
          next + everyMs,
          performance.now() + (shot.status === 429 ? shot.retryAfter * 1000 : 0),
        );
      }
      await pause(Math.max(0, attackEnds - performance.now()));
    } else {
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < attackEnds) await fire();
        }),
      );
    }
    clearTimeout(burstTimer);
    const attackEnd = Date.now();
    const windowCpu = cpuSeconds(pid) - cpuBefore;
    const windowSeconds = (attackEnd - attackStart) / 1000;

    // After: the other clients alone again.
    await pause(quietSeconds * 1000);
    checker.postMessage('stop');
    await checkerDone;
    await checker.terminate();

    // The other clients' own requests cost the server something too: their rate when alone.
    const checkerShare = quietCpu / ((quietEnd - quietStart) / 1000);
    const share = windowCpu / windowSeconds;
    const statuses = [...answered.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ');
    console.log(
      `attack (${attacker}): one address, the costliest batch, ${connections} connections ${attacker === 'paced' ? 'at once, then one a second (waiting the retry-after of a 429)' : 'without pause'}, for one window at the default limits (${LIMITS.rateLimitMax} requests per ${LIMITS.rateLimitWindowMs / 1000} s, a throws budget of ${LIMITS.throwsBurst} refilled at ${LIMITS.throwsPerSecond}/s); pinning: ${pinning ? `server on core ${pinning.serverCore}, attacker and checker on core ${pinning.loadCore}` : 'none (needs taskset and 2 cores)'}; load average ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `  answers: ${statuses}; the first refusal after ${((firstRefusal - attackStart) / 1000).toFixed(2)} s`,
    );
    console.log(
      `  its first ${burstMs / 1000} s: ${(burstCpu * 1000).toFixed(0)} ms server CPU, ${((burstCpu / (burstMs / 1000)) * 100).toFixed(1)} % of one core`,
    );
    console.log(
      `  the whole window (${windowSeconds.toFixed(1)} s): ${(windowCpu * 1000).toFixed(0)} ms server CPU, ${(share * 100).toFixed(1)} % of one core (${((share - checkerShare) * 100).toFixed(1)} % without the other clients' own ${(checkerShare * 100).toFixed(1)} %), ${(bytes / 1e6).toFixed(1)} MB sent, ${(bytes / windowSeconds / 1e3).toFixed(1)} kB/s`,
    );
    const between = (from: number, to: number) =>
      samples.filter((sample) => sample.at >= from && sample.at < to);
    console.log(`  other addresses' /v1/health, one every 50 ms:`);
    console.log(`    before the attack: ${summary(between(quietStart, quietEnd))}`);
    console.log(
      `    its first ${burstMs / 1000} s (the burst): ${summary(between(attackStart, attackStart + burstMs))}`,
    );
    console.log(`    the whole attack: ${summary(between(attackStart, attackEnd))}`);
    console.log(`    after the attack: ${summary(between(attackEnd, Number.POSITIVE_INFINITY))}`);
  } finally {
    server.kill('SIGKILL');
  }
}

function memory(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const addresses = SMOKE ? 1_000 : LIMITS.rateLimitAddresses;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const store = new MemoryRateStore(60_000, LIMITS.rateLimitAddresses);
  for (let i = 0; i < addresses; i++) store.hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  gc?.();
  const used = process.memoryUsage().heapUsed - before;
  console.log(
    `memory: the in-memory limiter holding ${addresses} IPv4 addresses: ${(used / 1e6).toFixed(1)} MB of heap (${(used / addresses).toFixed(0)} bytes each${gc === undefined ? ', without --expose-gc: approximate' : ''})`,
  );
  // Keeps the store alive until measured.
  if (store === undefined) throw new Error('unreachable');
}

if (runs('worst')) await worst();
if (runs('memory')) memory();
if (runs('attack')) {
  for (const attacker of ['paced', 'flood'] as const) {
    if (args.attacker === undefined || args.attacker === attacker) await attack(attacker);
  }
}
