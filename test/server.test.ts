// The built server as a process: it serves on the configured port, refuses a bad configuration
// with one line, and on SIGTERM lets an in-flight request finish, then exits 0 without waiting
// for kept-alive connections (a client's, a proxy's, an event stream's) to time out.
import { request as httpRequest } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { killServer, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess | undefined;
afterEach(() => killServer(server));

/** A kept-alive client connection as bytes: everything it reads, and whether the server ended it. */
async function keptAlive(
  port: number,
): Promise<{ socket: Socket; text: () => string; ended: Promise<void> }> {
  const socket = createConnection({ host: '127.0.0.1', port });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  return { socket, text: () => text, ended };
}

/** Starts the server with `env` and resolves with its port once it listens. */
async function listening(env: Record<string, string>): Promise<{ running: ServerProcess; port: number }> {
  const running = startServer({ PORT: '0', LOG_LEVEL: 'info', ...env });
  server = running;
  const line = await running.waitForLine(
    (entry) => /Server listening at/.test(entry.msg ?? ''),
    'Server listening at',
  );
  return { running, port: Number(/127\.0\.0\.1:(\d+)/.exec(line.msg ?? '')?.[1]) };
}

/** SIGTERM, resolved once the server says it is shutting down. */
async function terminate(running: ServerProcess): Promise<void> {
  const shuttingDown = running.waitForLine((line) => /shutting down/.test(line.msg ?? ''), 'shutting down');
  running.child.kill('SIGTERM');
  await shuttingDown;
}

// Kept-alive connections would hold the shutdown for the keep-alive timeout (10 minutes here),
// past the grace (30 s), and the process would exit 1 with "requests unfinished".
const LONG_KEEP_ALIVE = { KEEP_ALIVE_TIMEOUT_MS: '600000', SHUTDOWN_GRACE_MS: '30000' };

describe('the server process', () => {
  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const { running, port } = await listening({});
    expect(port).toBeGreaterThan(0);

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
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    // The request is in flight (headers and half a body sent) when the signal arrives.
    req.write('{"formula":');
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`);
    expect(health.status).toBe(200);
    await terminate(running);
    req.end('"2d6"}');

    const { status, body } = await answer;
    expect(status).toBe(200);
    expect((JSON.parse(body) as { formula: string }).formula).toBe('2d6');
    expect(await running.exited()).toBe(0);
  });

  it('answers a request in flight on a kept-alive connection with connection: close, then exits 0', async () => {
    const { running, port } = await listening(LONG_KEEP_ALIVE);
    const client = await keptAlive(port);
    client.socket.write(
      'POST /v1/roll HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 17\r\n\r\n{"formula":',
    );
    await terminate(running);
    client.socket.write('"2d6"}');
    await client.ended;
    const [head, body] = client.text().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect((JSON.parse(body!) as { formula: string }).formula).toBe('2d6');
    expect(await running.exited(), JSON.stringify(running.lines.slice(-3))).toBe(0);
  }, 90_000);

  it('ends an open event stream and its kept-alive connection, then exits 0', async () => {
    const { running, port } = await listening(LONG_KEEP_ALIVE);
    const created = await fetch(`http://127.0.0.1:${port}/v1/tables`, { method: 'POST' });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const client = await keptAlive(port);
    client.socket.write(`GET /v1/tables/${id}/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    await expect.poll(() => client.text()).toMatch(/event: head/);
    await terminate(running);
    await client.ended;
    // The chunked stream's last chunk: the stream ended, and then its connection.
    expect(client.text()).toMatch(/\r\n0\r\n\r\n$/);
    expect(await running.exited(), JSON.stringify(running.lines.slice(-3))).toBe(0);
  }, 90_000);

  // An answer of about 11 MB: more than the kernel's socket buffers hold, so most of it is still in
  // the process's write buffer when the shutdown begins.
  const LARGE_ANSWER = {
    ...LONG_KEEP_ALIVE,
    DICE_PER_ROLL: '6000',
    DICE_PER_BATCH: '120000',
    THROWS_PER_REQUEST: '1000000',
    THROWS_BURST: '10000000',
  };
  const largeBatch = JSON.stringify({
    rolls: Array.from({ length: 20 }, () => ({
      formula: Array.from({ length: 6 }, () => '1000d2!').join('+'),
    })),
  });
  /** Asks for the large answer and resolves once its first bytes are in, with the client no longer reading. */
  async function largeAnswerPaused(port: number) {
    const client = await keptAlive(port);
    const firstBytes = new Promise<void>((resolve) =>
      client.socket.once('data', () => {
        client.socket.pause();
        resolve();
      }),
    );
    client.socket.write(
      `POST /v1/roll/batch HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(largeBatch)}\r\n\r\n${largeBatch}`,
    );
    await firstBytes;
    return client;
  }

  it('sends the whole of a large answer to a client still reading it, then exits 0', async () => {
    const { running, port } = await listening(LARGE_ANSWER);
    const client = await largeAnswerPaused(port);
    await terminate(running);
    // Node's server.close() would cut the answer here, at what the kernel had taken of it.
    client.socket.resume();
    await client.ended;
    const text = client.text();
    const split = text.indexOf('\r\n\r\n');
    const length = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, split))?.[1]);
    expect(length).toBeGreaterThan(8_000_000);
    expect(Buffer.byteLength(text.slice(split + 4))).toBe(length);
    expect((JSON.parse(text.slice(split + 4)) as { rolls: unknown[] }).rolls).toHaveLength(20);
    expect(await running.exited(), JSON.stringify(running.lines.slice(-3))).toBe(0);
  }, 90_000);

  it('does not wait for a client that stopped reading its answer: exits 0 within the grace', async () => {
    const { running, port } = await listening(LARGE_ANSWER);
    const client = await largeAnswerPaused(port);
    await terminate(running);
    // Past the grace (30 s) the process would exit 1; it gives the silent client 3 s.
    expect(await running.exited(), JSON.stringify(running.lines.slice(-3))).toBe(0);
    // What the kernel had taken of the answer is all the client gets.
    client.socket.resume();
    await client.ended;
    expect(client.text().length).toBeLessThan(8_000_000);
  }, 90_000);

  it('refuses a bad configuration with one line and exit code 1', async () => {
    server = startServer({ PORT: 'eighty' });
    expect(await server.exited()).toBe(1);
    expect(server.stderr().trim().split('\n')).toHaveLength(1);
    expect(server.stderr()).toMatch(/PORT must be an integer from 0 to 65535/);
  });
});
