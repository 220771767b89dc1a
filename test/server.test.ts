// The built server as a process: it serves on the configured port, refuses a bad configuration
// with one line, and on SIGTERM lets an in-flight request finish, then exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const serverJs = fileURLToPath(new URL('../dist/server.js', import.meta.url));

function start(env: Record<string, string>): ChildProcess {
  if (!existsSync(serverJs))
    throw new Error('dist/server.js is missing: run `npm run build` (npm test does)');
  return spawn(process.execPath, [serverJs], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves with the first stdout line matching `pattern`. */
function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      const line = lines.find((candidate) => pattern.test(candidate));
      if (line !== undefined) {
        child.stdout?.off('data', onData);
        resolve(line);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before logging ${pattern}`)));
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

describe('the server process', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const child = start({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    try {
      const listening = await waitForLine(child, /Server listening at/);
      const port = Number(/127\.0\.0\.1:(\d+)/.exec(listening)?.[1]);
      expect(port).toBeGreaterThan(0);

      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/roll',
          headers: {
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
            connection: 'close',
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write('{"formula":');
        // The request is in flight (headers and half a body sent) when the signal arrives.
        setImmediate(async () => {
          const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
          expect(health.status).toBe(200);
          const shuttingDown = waitForLine(child, /shutting down/);
          child.kill('SIGTERM');
          await shuttingDown;
          req.end('"2d6"}');
        });
      });

      const { status, body } = await answer;
      expect(status).toBe(200);
      expect((JSON.parse(body) as { formula: string }).formula).toBe('2d6');
      expect(await exitOf(child)).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses a bad configuration with one line and exit code 1', async () => {
    const child = start({ PORT: 'eighty' });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    expect(await exitOf(child)).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/PORT must be an integer from 0 to 65535/);
  });
});
