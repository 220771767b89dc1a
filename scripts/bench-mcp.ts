// `npm run bench:mcp`: what a `roll` tool call over /mcp costs the server against GET /v1/roll,
// in one run on one server (the built dist/server.js), rounds interleaved. The figure is server
// CPU per answered request (read from /proc, so Linux only); the target is a ratio of at most 3
// (docs/performance.md#mcp-tool-calls). Only a ratio from one run means anything: the machine is shared.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { processCpuMicros } from './bench/service.js';

const SERVER_JS = fileURLToPath(new URL('../dist/server.js', import.meta.url));
const MAX_RATIO = 3;

interface Load {
  readonly label: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const REST: Load = { label: 'GET /v1/roll?formula=1d20', method: 'GET', path: '/v1/roll?formula=1d20' };
const MCP: Load = {
  label: 'POST /mcp tools/call roll 1d20',
  method: 'POST',
  path: '/mcp',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-11-25',
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'roll', arguments: { formula: '1d20' } },
  }),
};

interface Round {
  requests: number;
  non2xx: number;
  cpuMicrosPerRequest: number;
}

export interface McpBenchReport {
  benchmark: 'fairdice-mcp';
  config: { rounds: number; seconds: number; connections: number };
  rest: Round[];
  mcp: Round[];
  /** Median over rounds of MCP CPU per call divided by REST CPU per request, same round. */
  ratio: number;
  target: { max: number; pass: boolean };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_JS], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_MAX: '1000000000',
      THROWS_PER_SECOND: '1000000000',
      LOG_LEVEL: 'warn',
    },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`${base}/v1/health`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('dist/server.js did not answer /v1/health within 10 s (run `npm run build`)');
}

/** One request, checked before any load: a refusal would otherwise be measured as speed. */
async function check(base: string, load: Load): Promise<void> {
  const response = await fetch(`${base}${load.path}`, {
    method: load.method,
    ...(load.headers ? { headers: load.headers } : {}),
    ...(load.body ? { body: load.body } : {}),
  });
  const text = await response.text();
  const ok =
    response.status === 200 &&
    (load === MCP ? JSON.parse(text).result?.structuredContent?.total > 0 : JSON.parse(text).total > 0);
  if (!ok) throw new Error(`${load.label} answered ${response.status}: ${text}`);
}

async function run(
  base: string,
  pid: number,
  load: Load,
  seconds: number,
  connections: number,
): Promise<Round> {
  const before = processCpuMicros(pid);
  const result = await autocannon({
    url: `${base}${load.path}`,
    method: load.method,
    connections,
    duration: seconds,
    maxOverallRequests: 500_000,
    sampleInt: 100,
    timeout: 10,
    ...(load.headers ? { headers: load.headers } : {}),
    ...(load.body ? { body: load.body } : {}),
  });
  const requests = result.requests.total;
  return {
    requests,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: requests > 0 ? (processCpuMicros(pid) - before) / requests : Number.NaN,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
    },
  });
  const config = values.smoke
    ? { rounds: 1, seconds: 0.5, connections: 2 }
    : { rounds: 5, seconds: 2, connections: 10 };
  const { child, base } = await startServer();
  try {
    await check(base, REST);
    await check(base, MCP);
    // Warm-up, unrecorded: both paths compiled before round one.
    await run(base, child.pid!, REST, config.seconds / 2, config.connections);
    await run(base, child.pid!, MCP, config.seconds / 2, config.connections);
    const rest: Round[] = [];
    const mcp: Round[] = [];
    for (let round = 0; round < config.rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? [REST, MCP] : [MCP, REST];
      for (const load of order) {
        (load === REST ? rest : mcp).push(
          await run(base, child.pid!, load, config.seconds, config.connections),
        );
      }
    }
    const ratio = median(rest.map((r, i) => mcp[i]!.cpuMicrosPerRequest / r.cpuMicrosPerRequest));
    const report: McpBenchReport = {
      benchmark: 'fairdice-mcp',
      config,
      rest,
      mcp,
      ratio,
      target: { max: MAX_RATIO, pass: ratio <= MAX_RATIO },
    };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    const line = (load: Load, rounds: Round[]) =>
      `${load.label.padEnd(34)} ${median(rounds.map((r) => r.cpuMicrosPerRequest))
        .toFixed(0)
        .padStart(6)} µs CPU/request  (${rounds.map((r) => r.requests).join(', ')} requests)`;
    process.stdout.write(
      [
        `fairdice MCP bench: ${config.rounds} rounds of ${config.seconds} s, ${config.connections} connections`,
        line(REST, rest),
        line(MCP, mcp),
        `tool call / REST request, server CPU: ${ratio.toFixed(2)} (target ≤ ${MAX_RATIO}: ${report.target.pass ? 'met' : 'MISSED'})`,
        '',
      ].join('\n'),
    );
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
