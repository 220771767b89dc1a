// `npm run bench:trust`: what receipts cost. (1) In-process, interleaved rounds of CPU time:
// an unsigned POST /v1/roll, the same with "receipt": true, and a roll at a table (both signed
// and stored in SQLite), plus rollOne beside the receipt-aware wrapper every roll now goes
// through (the unsigned path must not slow down). (2) SSE fan-out: a server process, N
// subscribers on one table (default 1,000), one roll: the time until the last subscriber has it.
// Options: --subscribers N, --rolls N, --rounds N, --slice-ms N. docs/performance.md#receipts-and-tables.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { rollOne } from '../dist/api/roll.js';
import { StatsService } from '../dist/api/stats-service.js';
import { rollOneMaybeSigned } from '../dist/api/tables.js';
import { defaultConfig } from '../dist/config.js';
import { buildApp } from '../dist/http/app.js';
import { cryptoRandom } from '../dist/index.js';
import { interleave } from './bench/micro.js';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} takes a positive integer`);
  return value;
}

const SUBSCRIBERS = option('subscribers', 1000);
const ROLLS = option('rolls', 5);
const ROUNDS = option('rounds', 5);
const SLICE_MS = option('slice-ms', 500);
const TIMEOUT_MS = 60_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

async function inProcess(): Promise<void> {
  const app = await buildApp(
    defaultConfig({
      dataDir: mkdtempSync(join(tmpdir(), 'fairdice-bench-trust-')),
      rateLimitMax: 1_000_000_000,
      throwsPerSecond: 1_000_000_000,
      logLevel: 'silent',
    }),
  );
  const table = (await app.inject({ method: 'POST', url: '/v1/tables' })).json() as { id: string };
  const body = (extra: object) => JSON.stringify({ formula: '4d6kh3+2', ...extra });
  const payloads = { unsigned: body({}), signed: body({ receipt: true }) };
  let tableRolls = 0;
  // inject is asynchronous: each contender's slice runs its requests one after another.
  const timed = async (name: string, payload: () => string, count: number) => {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/roll',
        headers: { 'content-type': 'application/json' },
        payload: payload(),
      });
      if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${response.body}`);
    }
    const used = process.cpuUsage(start);
    return (count * 1e6) / (used.user + used.system);
  };
  const perRound: Record<string, number[]> = { unsigned: [], 'receipt: true': [], 'at a table': [] };
  const perSlice = Math.max(200, SLICE_MS * 4);
  await timed('warm-up', () => payloads.signed, perSlice);
  for (let round = 0; round < ROUNDS; round++) {
    perRound.unsigned!.push(await timed('unsigned', () => payloads.unsigned, perSlice));
    perRound['receipt: true']!.push(await timed('signed', () => payloads.signed, perSlice));
    // A new table whenever one fills up, so every round measures appends, not 409s.
    perRound['at a table']!.push(
      await timed(
        'table',
        () => {
          tableRolls++;
          return body({ table: table.id });
        },
        Math.min(perSlice, 9_000 - (tableRolls % 9_000)),
      ),
    );
  }
  await app.close();
  console.log('POST /v1/roll in process (app.inject), requests per CPU second, median of rounds:');
  for (const [name, values] of Object.entries(perRound)) {
    const ops = median(values);
    console.log(
      `  ${name.padEnd(14)} ${fmt(ops).padStart(8)} /s   ${fmt(1e6 / ops, 1).padStart(6)} us per request`,
    );
  }

  // The stats service starts no worker until asked for a distribution, which these rolls never do.
  const context = {
    log: { warn() {} },
    random: cryptoRandom,
    dicePerRoll: 1000,
    dicePerBatch: 1000,
    stats: new StatsService({ dicePerRoll: 1000 }),
  };
  const request = { formula: '4d6kh3+2' };
  const micro = interleave(
    [
      {
        name: 'rollOne',
        run: (n) => {
          let t = 0;
          for (let i = 0; i < n; i++) t += rollOne(request, context).total;
          return t;
        },
      },
      {
        name: 'receipt-aware',
        run: (n) => {
          let t = 0;
          for (let i = 0; i < n; i++) t += (rollOneMaybeSigned(request, context) as { total: number }).total;
          return t;
        },
      },
    ],
    ROUNDS,
    SLICE_MS,
  );
  console.log('Unsigned roll, engine only (rolls per CPU second, median of rounds):');
  for (const [name, values] of Object.entries(micro))
    console.log(`  ${name.padEnd(14)} ${fmt(median(values)).padStart(10)} /s`);
}

function post(port: number, path: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function fanOut(): Promise<void> {
  const serverJs = fileURLToPath(new URL('../dist/server.js', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [serverJs], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'fairdice-bench-fanout-')),
      RATE_LIMIT_MAX: '1000000000',
      THROWS_PER_SECOND: '1000000000',
      SSE_CONNECTIONS_PER_ADDRESS: String(SUBSCRIBERS + 10),
      CONNECTIONS_PER_ADDRESS: String(SUBSCRIBERS + 100),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the server did not start')), TIMEOUT_MS);
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const found = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(text);
        if (found) {
          clearTimeout(timer);
          resolve(Number(found[1]));
        }
      });
      child.once('exit', () => reject(new Error('the server exited')));
    });
    const table = JSON.parse((await post(port, '/v1/tables', {})).body) as { id: string };
    const arrivals: number[][] = Array.from({ length: ROLLS + 1 }, () => []);
    const requests: ReturnType<typeof httpRequest>[] = [];
    let ready = 0;
    const connected = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${ready} of ${SUBSCRIBERS} subscribers connected`)),
        TIMEOUT_MS,
      );
      for (let i = 0; i < SUBSCRIBERS; i++) {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: `/v1/tables/${table.id}/events`, agent: false },
          (res) => {
            if (res.statusCode !== 200) reject(new Error(`subscriber ${i}: ${res.statusCode}`));
            res.setEncoding('utf8');
            let first = true;
            res.on('data', (chunk: string) => {
              if (first) {
                first = false;
                if (++ready === SUBSCRIBERS) {
                  clearTimeout(timer);
                  resolve();
                }
              }
              for (const match of chunk.matchAll(/^id: (\d+)$/gm))
                arrivals[Number(match[1])]?.push(performance.now());
            });
          },
        );
        req.on('error', reject);
        req.end();
        requests.push(req);
      }
    });
    await connected;
    const toLast: number[] = [];
    const toFirst: number[] = [];
    for (let seq = 1; seq <= ROLLS; seq++) {
      const start = performance.now();
      const answer = await post(port, '/v1/roll', { formula: '1d20', table: table.id });
      if (answer.status !== 200) throw new Error(`roll ${seq}: ${answer.status}`);
      const deadline = Date.now() + TIMEOUT_MS;
      while (arrivals[seq]!.length < SUBSCRIBERS) {
        if (Date.now() > deadline)
          throw new Error(`roll ${seq} reached ${arrivals[seq]!.length} of ${SUBSCRIBERS}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      toFirst.push(Math.min(...arrivals[seq]!) - start);
      toLast.push(Math.max(...arrivals[seq]!) - start);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const req of requests) req.destroy();
    console.log(
      `SSE fan-out: one roll at a table to ${SUBSCRIBERS} subscribers (server process, SQLite store), ${ROLLS} rolls:`,
    );
    console.log(`  to the first subscriber: median ${fmt(median(toFirst), 1)} ms`);
    console.log(
      `  to the last subscriber:  median ${fmt(median(toLast), 1)} ms, max ${fmt(Math.max(...toLast), 1)} ms`,
    );
  } finally {
    killChild();
  }
}

await inProcess();
await fanOut();
process.exit(0);
