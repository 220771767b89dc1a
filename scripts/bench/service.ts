// fairdice under load as a user starts it: a build's own `node dist/server.js`, configured only
// through the environment (the bench lifts the limits and nothing else), in a fresh working
// directory of its own, so the default SQLite store opens under its `./data` and a signing key is
// generated at start, as on a first `npm start`. The process has no channel to the bench: its port
// comes from its "Server listening at" log line, its CPU time from /proc (so Linux only).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pinProcess } from './cores.js';
import type { ServerHandle, StartOptions } from './http.js';
import type { ServerKind } from './workloads.js';

/** The entry point `npm start` runs, relative to a checkout. */
export const SERVICE_SCRIPT = 'dist/server.js';

/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process, every thread of it, in microseconds (fields 14 and 15 of /proc/PID/stat). */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLOCK_TICKS_PER_SECOND;
}

/** The port of fastify's "Server listening at http://HOST:PORT" line (src/server.ts writes it). */
export function listeningPort(line: string): number | undefined {
  const port = /Server listening at http:\/\/[^\s"]+:(\d+)/.exec(line)?.[1];
  return port === undefined ? undefined : Number(port);
}

/**
 * Starts `checkout`'s dist/server.js on 127.0.0.1 with an OS-chosen port and `options.env` on
 * top of this process's environment, in a new temporary working directory (removed on stop).
 */
export async function startService(
  kind: ServerKind,
  checkout: string,
  options: StartOptions = {},
): Promise<ServerHandle> {
  const script = resolve(checkout, SERVICE_SCRIPT);
  if (!existsSync(script)) throw new Error(`${checkout} is not built: no ${script} (npm run build there)`);
  const cwd = mkdtempSync(join(tmpdir(), 'fairdice-bench-service-'));
  const node = [process.execPath, ...(options.nodeFlags ?? []), script];
  const command = options.core === undefined ? node : ['taskset', '-c', String(options.core), ...node];
  const child = spawn(command[0]!, command.slice(1), {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env, HOST: '127.0.0.1', PORT: '0' },
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-4000);
  });
  const lines = createInterface({ input: child.stdout });
  let port: number;
  try {
    port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error(`${script} did not listen within 60 s`)), 60_000);
      lines.on('line', (line) => {
        const found = listeningPort(line);
        if (found === undefined) return;
        clearTimeout(timer);
        resolvePort(found);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${script} exited (${code}) before listening: ${stderr.trim()}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
    throw error;
  }
  // Its log is written as in production and read by nobody from now on (per-request lines are off).
  lines.removeAllListeners('line');
  if (!options.quietStdout) lines.on('line', (line) => process.stderr.write(`${line}\n`));
  if (options.core !== undefined) pinProcess(child.pid!, options.core);
  return {
    kind,
    port,
    workingDirectory: cwd,
    async cpuMicros() {
      return processCpuMicros(child.pid!);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // A graceful shutdown (src/shutdown.ts), so that --cpu-prof writes its profile.
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
