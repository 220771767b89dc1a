// The built server as a process: it serves on the configured port, refuses a bad configuration
// with one line, and on SIGTERM lets an in-flight request finish, then exits 0.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { killServer, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess | undefined;
afterEach(() => killServer(server));

describe('the server process', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    server = startServer({ PORT: '0', LOG_LEVEL: 'info' });
    const { child } = server;
    const listening = await server.waitForLine(
      (line) => /Server listening at/.test(line.msg ?? ''),
      'Server listening at',
    );
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(listening.msg ?? '')?.[1]);
    expect(port).toBeGreaterThan(0);

    const running = server;
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
        try {
          const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
          expect(health.status).toBe(200);
          const shuttingDown = running.waitForLine(
            (line) => /shutting down/.test(line.msg ?? ''),
            'shutting down',
          );
          child.kill('SIGTERM');
          await shuttingDown;
          req.end('"2d6"}');
        } catch (error) {
          reject(error);
        }
      });
    });

    const { status, body } = await answer;
    expect(status).toBe(200);
    expect((JSON.parse(body) as { formula: string }).formula).toBe('2d6');
    expect(await server.exited()).toBe(0);
  });

  it('refuses a bad configuration with one line and exit code 1', async () => {
    server = startServer({ PORT: 'eighty' });
    expect(await server.exited()).toBe(1);
    expect(server.stderr().trim().split('\n')).toHaveLength(1);
    expect(server.stderr()).toMatch(/PORT must be an integer from 0 to 65535/);
  });
});
