// The built server (dist/server.js) as a child process, with its JSON log lines collected so tests
// can wait for and inspect what the primary and the workers said.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasExited, trackChild } from './children.js';

const serverJs = fileURLToPath(new URL('../../dist/server.js', import.meta.url));

export interface ProcessLogLine {
  level: number;
  pid: number;
  msg?: string;
  [key: string]: unknown;
}

/** Matches a log line whose message is exactly `message` (for `waitForLine` and filters). */
export const said =
  (message: string) =>
  (line: ProcessLogLine): boolean =>
    line.msg === message;

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Every JSON line printed on stdout so far. */
  readonly lines: ProcessLogLine[];
  /** Everything printed on stderr so far. */
  stderr(): string;
  /** Resolves with the first line (already printed or yet to come) that matches. */
  waitForLine(match: (line: ProcessLogLine) => boolean, what: string): Promise<ProcessLogLine>;
  /**
   * Resolves with the matching lines once there are `count` of them. Like waitForLine it waits on
   * the process, not on a clock: a process starting slowly on a loaded machine is bounded by the
   * test's own timeout, and one that exits fails the wait at once.
   */
  waitForLines(
    match: (line: ProcessLogLine) => boolean,
    count: number,
    what: string,
  ): Promise<ProcessLogLine[]>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited(): Promise<number | null>;
}

export function startServer(env: Record<string, string>): ServerProcess {
  if (!existsSync(serverJs))
    throw new Error('dist/server.js is missing: run `npm run build` (npm test does)');
  const child = spawn(process.execPath, [serverJs], {
    // Its own DATA_DIR unless the test gives one: no test writes tables into the repository.
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'fairdice-data-')),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  const lines: ProcessLogLine[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      if (part.trim() === '') continue;
      try {
        lines.push(JSON.parse(part) as ProcessLogLine);
      } catch {
        lines.push({ level: 0, pid: 0, msg: part });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      for (const wake of waiters) wake();
      resolve(code);
    });
  });

  const waitForLines: ServerProcess['waitForLines'] = (match, count, what) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = lines.filter(match);
        if (found.length >= count) {
          waiters.delete(check);
          resolve(found);
        } else if (hasExited(child)) {
          waiters.delete(check);
          reject(new Error(`server exited before logging ${what}; stderr: ${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });

  return {
    child,
    lines,
    stderr: () => stderr,
    exited: () => exit,
    waitForLine(match, what) {
      return waitForLines(match, 1, what).then((found) => found[0]!);
    },
    waitForLines,
  };
}

/** Stops a server a test left running (SIGKILL: the test is over, nothing to finish). */
export async function killServer(server: ServerProcess | undefined): Promise<void> {
  if (server === undefined || hasExited(server.child)) return;
  server.child.kill('SIGKILL');
  await server.exited();
}
