// Fastify puts `finish` and `error` listeners on every response (and reads the clock twice) when
// it has a logger of its own or an onResponse hook, even with per-request logging off. fairdice
// gives fastify no logger and has no onResponse hook, so a response carries only the listeners
// node itself puts on it (docs/performance.md#logging-off-the-request-path). Every line fairdice logs
// still goes to its own pino logger (test/http/request-log.test.ts, test/server.test.ts).
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, makeApp } from '../support/app.js';

type Counts = { finish: number; error: number; close: number };
const countsOf = (res: ServerResponse): Counts => ({
  finish: res.listenerCount('finish'),
  error: res.listenerCount('error'),
  close: res.listenerCount('close'),
});

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** The listeners node's own HTTP server puts on a response, read as the request arrives. */
async function nodeCounts(): Promise<Counts> {
  let counts: Counts | undefined;
  const server = createServer((_req, res) => {
    counts = countsOf(res);
    res.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).text();
  return counts!;
}

describe('response listeners', () => {
  it('a fairdice response carries no listener beyond what node puts on it', async () => {
    const expected = await nodeCounts();
    const app = await makeApp({ logLevel: 'trace' });
    closers.push(() => app.close());
    const seen: Counts[] = [];
    // Node calls the server's `request` listeners in order: fastify's routes the request
    // (and would add its listeners) first, then this one reads the response as fastify left it.
    app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      seen.push(countsOf(res));
    });
    const base = await listen(app);
    for (const path of ['/v1/roll?formula=1d20', '/v1/roll?formula=1d20adv', '/v1/nothing-here']) {
      await (await fetch(`${base}${path}`)).text();
    }
    expect(seen).toHaveLength(3);
    for (const counts of seen) expect(counts).toEqual(expected);
  });

  it("nothing in src/ writes through fastify's own logger, which writes nowhere", () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(20);
    const uses = files.flatMap((file) =>
      readFileSync(join(src, file), 'utf8')
        .split('\n')
        // Code only: the comments that say so name it too.
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .filter((line) => /\b(app|fastify|instance|scope|server)\.log\b/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(uses).toEqual([]);
  });
});
