// The HTTP half of the benchmark: one process per server under test (pinned to its own core when
// it can be), fairdice's own dist/server.js (./service.ts) or a reference server's child, and
// autocannon in this process as the second-opinion load generator (the main one is wrk: ./wrk.ts).
// autocannon's latencies are timed here per response (its own histogram rounds to whole
// milliseconds, too coarse for loopback replies).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pinProcess } from './cores.js';
import type { HttpRound } from './report.js';
import type { ChildMessage, ParentMessage } from './server-child.js';
import { startService } from './service.js';
import { percentile } from './stats.js';
import { type ChildKind, type HttpScenario, SERVICE_KINDS, type ServerKind } from './workloads.js';

const CHILD_SCRIPT = fileURLToPath(new URL('./server-child.ts', import.meta.url));
/** This checkout: its dist/server.js is the `fairdice` server. */
const THIS_CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Loaded before tsx and the child script, so every reference server holds node's tick maps from
 * its first process.nextTick on, as dist/server.js does by importing it first (src/tick-maps.ts).
 */
const TICK_MAPS = new URL('../../dist/tick-maps.js', import.meta.url).href;

export interface ServerHandle {
  readonly kind: ServerKind;
  readonly port: number;
  /** A service's own working directory, where its default store lives (./service.ts). */
  readonly workingDirectory?: string;
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Extra node flags for the child, e.g. --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Send the child's stdout (its request log) to /dev/null instead of our stderr. */
  readonly quietStdout?: boolean;
  /** Once ready, run the child on this core only (see ./cores.ts). */
  readonly core?: number | undefined;
  /** The checkout whose dist/server.js a `fairdice` or `baseline` server runs (default: this one). */
  readonly checkout?: string | undefined;
}

function waitForMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`server child sent no '${type}' in ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: ChildMessage): void => {
      if (message.type === type) finish(undefined, message as Extract<ChildMessage, { type: T }>);
      else if (message.type === 'failed') finish(new Error(`server child failed: ${message.message}`));
    };
    const onExit = (code: number | null): void => finish(new Error(`server child exited (${code}) early`));
    function finish(error?: Error, message?: Extract<ChildMessage, { type: T }>): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message!);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * Starts one server under test: fairdice (and a --baseline build) as a user starts it, from its
 * checkout's dist/server.js (./service.ts); the reference servers in a child of ./server-child.ts.
 */
export function startServer(kind: ServerKind, options: StartOptions = {}): Promise<ServerHandle> {
  return SERVICE_KINDS.includes(kind as never)
    ? startService(kind, options.checkout ?? THIS_CHECKOUT, options)
    : startChild(kind as ChildKind, options);
}

async function startChild(kind: ChildKind, options: StartOptions): Promise<ServerHandle> {
  const node = [
    process.execPath,
    ...(options.nodeFlags ?? []),
    '--import',
    TICK_MAPS,
    '--import',
    'tsx',
    CHILD_SCRIPT,
    kind,
  ];
  // taskset execs node in its own process, so the pid, the IPC channel and the exit are node's.
  const command = options.core === undefined ? node : ['taskset', '-c', String(options.core), ...node];
  const child = spawn(command[0]!, command.slice(1), {
    // Never to our stdout: with --json, stdout carries the one JSON object only.
    stdio: ['ignore', options.quietStdout ? 'ignore' : 2, 2, 'ipc'],
    env: { ...process.env, ...options.env },
  });
  let ready: Extract<ChildMessage, { type: 'ready' }>;
  try {
    ready = await waitForMessage(child, 'ready', 60_000);
  } catch (error) {
    // A child that never got ready would hold this process open through its IPC channel.
    child.kill('SIGKILL');
    throw error;
  }
  if (options.core !== undefined) pinProcess(child.pid!, options.core);
  const post = (message: ParentMessage): void => {
    child.send(message);
  };
  return {
    kind,
    port: ready.port,
    async cpuMicros() {
      const reply = waitForMessage(child, 'cpu', 30_000);
      post({ type: 'cpu' });
      const usage = await reply;
      return usage.userMicros + usage.systemMicros;
    },
    async stop() {
      // A child killed by a signal has a null exitCode but will never emit 'exit' again.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      post({ type: 'shutdown' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The scenario's JSON body and its content-type, or nothing for a bodiless request. */
function requestBodyOf(scenario: HttpScenario): { body?: string; headers?: Record<string, string> } {
  return scenario.body === undefined
    ? {}
    : { body: JSON.stringify(scenario.body), headers: { 'content-type': 'application/json' } };
}

export interface LoadOptions {
  readonly seconds: number;
  readonly connections: number;
  /** Hard cap on requests per run, so a run is bounded in count as well as time. */
  readonly maxRequests: number;
}

export async function runAutocannon(
  server: ServerHandle,
  scenario: HttpScenario,
  load: LoadOptions,
): Promise<HttpRound> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const cpuBefore = await server.cpuMicros();
  const loadBefore = process.cpuUsage();
  const started = performance.now();
  let instance: autocannon.Instance | undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: `http://127.0.0.1:${server.port}${scenario.path}`,
        method: scenario.method,
        connections: load.connections,
        pipelining: 1,
        duration: load.seconds,
        maxOverallRequests: load.maxRequests,
        // autocannon checks its stop flag once per sample: at the default 1 s, a 0.2 s run lasts 1 s.
        sampleInt: 100,
        timeout: 10,
        ...requestBodyOf(scenario),
      },
      (error: unknown, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance!.on('response', (_client, _status, _bytes, responseTime) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await finished;
  const seconds = (performance.now() - started) / 1000;
  const generator = process.cpuUsage(loadBefore);
  const cpuAfter = await server.cpuMicros();
  const answered = result.requests.total;
  return {
    requestsPerSecond: answered / seconds,
    p50Ms: count > 0 ? percentile(latencies, 0.5, count) : Number.NaN,
    p99Ms: count > 0 ? percentile(latencies, 0.99, count) : Number.NaN,
    serverCpuMicrosPerRequest: answered > 0 ? (cpuAfter - cpuBefore) / answered : Number.NaN,
    loadCpuMicrosPerRequest: answered > 0 ? (generator.user + generator.system) / answered : Number.NaN,
    requests: answered,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** One request, checked, before any load: a wrong status would otherwise be benchmarked as speed. */
export async function checkScenario(server: ServerHandle, scenario: HttpScenario): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${server.port}${scenario.path}`, {
    method: scenario.method,
    ...requestBodyOf(scenario),
  });
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(
      `${scenario.name}: ${scenario.method} ${scenario.path} answered ${response.status}: ${text}`,
    );
  }
  JSON.parse(text);
}
