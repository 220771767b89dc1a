// wrk, the C load generator (Debian package `wrk`), as the bench's main HTTP load: it needs a
// fraction of the CPU per request that autocannon's JavaScript does (the report shows both), so a
// ratio measures the servers rather than the tool. Found on PATH, installed with apt-get when missing (as root), or reported
// absent so the bench falls back to autocannon. Each run is a child process bounded in time
// (`-d`, plus a kill timer); its figures come from a Lua `done` hook that prints one JSON line.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPath, type Pinning } from './cores.js';
import type { ServerHandle } from './http.js';
import type { HttpRound } from './report.js';
import type { HttpScenario } from './workloads.js';

/** `wrk 4.1.0 ...`, or undefined when wrk cannot run. */
function wrkVersion(): string | undefined {
  if (!onPath('wrk')) return undefined;
  // `wrk -v` prints its version (and usage) and exits 1.
  const output = spawnSyncText('wrk', ['-v']);
  return /^wrk\s+\S+/m.exec(output)?.[0];
}

function spawnSyncText(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
}

export type WrkAvailability = { readonly version: string } | { readonly missing: string };

/**
 * wrk's version, installing the Debian package first when it is missing and we may (root with
 * apt-get, bounded to two minutes); otherwise why it is missing.
 */
export async function ensureWrk(install: boolean, log: (line: string) => void): Promise<WrkAvailability> {
  const found = wrkVersion();
  if (found) return { version: found };
  if (!install) return { missing: 'wrk is not on PATH' };
  if (process.getuid?.() !== 0 || !onPath('apt-get')) {
    return { missing: 'wrk is not on PATH, and apt-get cannot install it here (needs root and apt-get)' };
  }
  log('wrk is missing: apt-get install -y wrk');
  const apt = (args: string[]) =>
    new Promise<boolean>((resolve) => {
      execFile(
        'apt-get',
        args,
        { timeout: 120_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
        (error) => resolve(error === null),
      );
    });
  // A fresh container has no package lists yet: update once, then try again.
  if (!(await apt(['install', '-y', 'wrk']))) await apt(['update']).then(() => apt(['install', '-y', 'wrk']));
  const installed = wrkVersion();
  return installed
    ? { version: installed }
    : { missing: 'wrk is not on PATH and apt-get could not install it' };
}

/** A Lua string literal holding `text` exactly: a long bracket whose level the text never closes. */
function luaLongString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  // A newline right after the opening bracket would be dropped by Lua: start with none.
  return `[${level}[${text}]${level}]`;
}

/**
 * The scenario's request (method, body, content-type) and a `done` hook printing one JSON line:
 * requests, duration, errors by kind (`status` counts answers >= 400) and latency percentiles
 * from wrk's own histogram, which records every request at microsecond resolution.
 */
export function wrkScript(scenario: HttpScenario): string {
  const lines = [`wrk.method = "${scenario.method}"`];
  if (scenario.body !== undefined) {
    lines.push(`wrk.body = ${luaLongString(JSON.stringify(scenario.body))}`);
    lines.push('wrk.headers["Content-Type"] = "application/json"');
  }
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'WRK_RESULT {"requests":%d,"durationMicros":%d,"bytes":%d,' +
      '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' +
      '"p50Micros":%d,"p99Micros":%d,"maxMicros":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(99), latency.max))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

export interface WrkResult {
  readonly requests: number;
  readonly durationMicros: number;
  readonly bytes: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly status: number;
  readonly timeout: number;
  readonly p50Micros: number;
  readonly p99Micros: number;
  readonly maxMicros: number;
}

/** The `done` hook's line from wrk's output, and the CPU wrk used (bash's `times`, children line). */
export function parseWrkOutput(output: string): { result: WrkResult; cpuMicros: number } {
  const line = /^WRK_RESULT (\{.*\})$/m.exec(output);
  if (!line) throw new Error(`wrk printed no result line:\n${output.slice(-2000)}`);
  const result = JSON.parse(line[1]!) as WrkResult;
  // `times` prints two lines, the shell's then its children's: `0m1.234s 0m0.567s`.
  const times = [...output.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)];
  const children = times.at(-1);
  const seconds = children
    ? Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4])
    : Number.NaN;
  return { result, cpuMicros: seconds * 1e6 };
}

export interface WrkLoad {
  /** Whole seconds: wrk takes no fractions. */
  readonly seconds: number;
  readonly connections: number;
  readonly pinning: Pinning | undefined;
}

/** One wrk run against one server: one thread, `connections` keep-alive connections. */
export async function runWrk(
  server: ServerHandle,
  scenario: HttpScenario,
  load: WrkLoad,
): Promise<HttpRound> {
  const dir = mkdtempSync(join(tmpdir(), 'fairdice-wrk-'));
  try {
    const script = join(dir, 'scenario.lua');
    writeFileSync(script, wrkScript(scenario));
    const wrk = [
      ...(load.pinning ? ['taskset', '-c', String(load.pinning.loadCore)] : []),
      'wrk',
      '-t1',
      `-c${load.connections}`,
      `-d${Math.max(1, Math.round(load.seconds))}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      `http://127.0.0.1:${server.port}${scenario.path}`,
    ];
    const cpuBefore = await server.cpuMicros();
    const output = await new Promise<string>((resolve, reject) => {
      // bash runs wrk, then `times` reports the CPU its child used; "$@" keeps every argument whole.
      const child = spawn('bash', ['-c', '"$@"; status=$?; times; exit $status', 'bash', ...wrk], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), (load.seconds + 20) * 1000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(text);
        else reject(new Error(`wrk exited with ${code}:\n${text.slice(-2000)}`));
      });
    });
    const cpuAfter = await server.cpuMicros();
    const { result, cpuMicros } = parseWrkOutput(output);
    const answered = result.requests;
    return {
      requestsPerSecond: answered / (result.durationMicros / 1e6),
      p50Ms: result.p50Micros / 1000,
      p99Ms: result.p99Micros / 1000,
      serverCpuMicrosPerRequest: answered > 0 ? (cpuAfter - cpuBefore) / answered : Number.NaN,
      loadCpuMicrosPerRequest: answered > 0 ? cpuMicros / answered : Number.NaN,
      requests: answered,
      non2xx: result.status,
      errors: result.connect + result.read + result.write + result.timeout,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
