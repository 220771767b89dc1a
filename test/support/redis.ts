// A real redis-server for tests: its own child process on a free loopback port, with the faults
// the service must survive (killed, restarted, stalled) and guaranteed clean-up.

import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { describe, it } from 'vitest';
import { hasExited, trackChild } from './children.js';
import { findExecutable } from './executables.js';
import { freePort } from './http.js';
import { sleep } from './wait.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/** The redis-server executable, or undefined when it is not installed. */
const findRedisServer = (): string | undefined => findExecutable('redis-server');

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:port */
  readonly url: string;
  /** Whether the process is currently running (not killed or stopped). */
  readonly running: boolean;
  /** Graceful SHUTDOWN-by-signal; waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILL: Redis dies without closing anything, as in a crash. Waits for the exit. */
  kill(): Promise<void>;
  /** Starts a fresh, empty redis-server on the same port (after stop or kill). */
  restart(): Promise<void>;
  /** SIGSTOP: the socket stays open but nothing answers, as in a stalled server. */
  pause(): void;
  /** SIGCONT after pause. */
  resume(): void;
}

/** One PING over a raw socket; true when the server answers +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function waitForExit(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function launch(executable: string, port: number): { child: ChildProcess; output: () => string } {
  const child = spawn(
    executable,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      tmpdir(),
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  trackChild(child);
  return { child, output: () => output };
}

async function launchUntilReady(executable: string, port: number): Promise<ChildProcess> {
  const { child, output } = launch(executable, port);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited(child)) {
      throw new Error(`redis-server exited during start-up on port ${port}:\n${output()}`);
    }
    if (await ping(port)) return child;
    await sleep(25);
  }
  child.kill('SIGKILL');
  throw new Error(
    `redis-server did not answer PING on port ${port} within ${READY_TIMEOUT_MS} ms:\n${output()}`,
  );
}

/** Starts redis-server on a free loopback port and waits until it answers PING. */
export async function startRedis(executable = findRedisServer()): Promise<RedisServer> {
  if (executable === undefined) throw new Error('redis-server is not on PATH');
  let child: ChildProcess | undefined;
  let port = 0;
  // Another process may take the free port between the probe and redis binding it: try again.
  for (let attempt = 1; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launchUntilReady(executable, port);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
  let current: ChildProcess = child;
  let paused = false;

  const terminate = async (signal: NodeJS.Signals) => {
    if (hasExited(current)) return;
    // A stopped process cannot act on SIGTERM, so a paused server is always killed outright.
    current.kill(paused ? 'SIGKILL' : signal);
    paused = false;
    const timer = setTimeout(() => current.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await waitForExit(current);
    clearTimeout(timer);
  };

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return !hasExited(current) && !paused;
    },
    stop: () => terminate('SIGTERM'),
    kill: () => terminate('SIGKILL'),
    async restart() {
      await terminate('SIGKILL');
      current = await launchUntilReady(executable, port);
    },
    pause() {
      current.kill('SIGSTOP');
      paused = true;
    },
    resume() {
      current.kill('SIGCONT');
      paused = false;
    },
  };
}

/**
 * `describe` for suites that need a real redis-server. When it is absent the suite skips with a
 * loud banner, except under CI=true, where it fails: CI must exercise the real component.
 */
export function describeWithRedis(name: string, suite: (redisServer: string) => void): void {
  const executable = findRedisServer();
  if (executable !== undefined) {
    describe(name, () => suite(executable));
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs redis-server on PATH', () => {
        throw new Error(
          'redis-server is not on PATH but CI=true: these tests must run under CI (.ci/run installs redis-server)',
        );
      });
    });
    return;
  }
  console.warn(
    [
      '',
      '!'.repeat(78),
      `!! SKIPPED "${name}": redis-server is not on PATH.`,
      '!! Install it (apt-get install redis-server) to run the shared-rate-limit tests.',
      '!! Under CI=true these tests fail instead of skipping.',
      '!'.repeat(78),
      '',
    ].join('\n'),
  );
  describe.skip(name, () => suite(''));
}
