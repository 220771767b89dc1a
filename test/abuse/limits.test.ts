// Abuse, in one process: what one request may cost (the throws budget), what one address may hold
// (connections), how long a request may take to arrive, and what every answer carries. Every loop
// is bounded; every socket is on 127.0.0.1.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createConnection, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Config, defaultConfig } from '../../src/config.js';
import { MESSAGES } from '../../src/errors.js';
import { buildApp } from '../../src/http/app.js';
import { addressKey, requestKeys } from '../../src/http/connections.js';
import { countingItself, rateLimitPlugin } from '../../src/http/rate-limit.js';
import { MemoryRateStore } from '../../src/http/rate-limit-store.js';
import { LIMITS } from '../../src/limits.js';
import { logCollector } from '../support/app.js';
import { until } from '../support/wait.js';

/** Every die lands on 1: `r<N` rerolls it every time, to the reroll cap. */
const ones = { die: () => 1 };
/** The worst plain sum: 1000 dice, each rerolled 100 times. */
const WORST = '1000d4294967296r<4294967295';
/** The largest roll of that kind under the default budget: 49 dice x 101 throws = 4,949 throws. */
const WORST_UNDER_BUDGET = '49d4294967296r<4294967295';

let app: FastifyInstance | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await app?.close();
  app = undefined;
});

const make = async (overrides: Partial<Config> = {}) => {
  app = await buildApp(defaultConfig({ logLevel: 'silent', rateLimitMax: 10_000, ...overrides }), {
    random: ones,
  });
  return app;
};

const listen = async (overrides: Partial<Config>) => {
  const built = await make(overrides);
  await built.listen({ host: '127.0.0.1', port: 0 });
  return (built.server.address() as AddressInfo).port;
};

interface RawExchange {
  socket: Socket;
  /** Everything the server sent until it closed the connection. */
  closed: Promise<string>;
  /** Resolves once one whole answer is in (its headers and Content-Length bytes of body). */
  answered: Promise<void>;
}

/** A raw connection (optionally from another loopback address) that records what comes back. */
function connect(port: number, localAddress = '127.0.0.1'): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port, localAddress });
    sockets.push(socket);
    let received = '';
    let answeredNow: () => void;
    const answered = new Promise<void>((done) => {
      answeredNow = done;
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(received.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && received.length - end - 4 >= Number(length)) answeredNow();
    });
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.once('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed, answered }));
    socket.once('error', reject);
  });
}

const bodyOf = (raw: string) =>
  JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as {
    error: { code: string; message: string };
  };

describe('the throws budget', () => {
  it('refuses the worst formula with too_many_dice after at most the budget of throws', async () => {
    let thrown = 0;
    app = await buildApp(defaultConfig({ logLevel: 'silent' }), {
      random: {
        die: () => {
          thrown += 1;
          return 1;
        },
      },
    });
    const answer = await app.inject({ method: 'GET', url: `/v1/roll?formula=${encodeURIComponent(WORST)}` });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      error: {
        code: 'too_many_dice',
        message: `This request threw more than ${LIMITS.throwsPerRequest} dice counting rerolls and explosions; a request may throw at most ${LIMITS.throwsPerRequest}.`,
      },
    });
    // Checked once per die: at most one chain (101 throws) past the budget.
    expect(thrown).toBeGreaterThan(LIMITS.throwsPerRequest);
    expect(thrown).toBeLessThanOrEqual(LIMITS.throwsPerRequest + 101);
  });

  it('answers the largest such roll under the budget in full, every throw listed', async () => {
    const built = await make();
    const answer = await built.inject({
      method: 'GET',
      url: `/v1/roll?formula=${encodeURIComponent(WORST_UNDER_BUDGET)}`,
    });
    expect(answer.statusCode).toBe(200);
    const [group] = answer.json().dice as { results: number[]; kept: number[] }[];
    expect(group?.results).toHaveLength(49 * 101);
    expect(group?.kept).toHaveLength(49);
    // About 45 bytes per throw (its entry in `results` and in `throws`): the budget bounds the
    // answer too.
    expect(answer.rawPayload.length).toBeLessThan(LIMITS.throwsPerRequest * 50);
  });

  it('spends one budget over all the rolls of a batch', async () => {
    const built = await make();
    const rolls = Array.from({ length: 20 }, () => ({ formula: '25d4294967296r<4294967295' }));
    const answer = await built.inject({ method: 'POST', url: '/v1/roll/batch', payload: { rolls } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe('too_many_dice');
    const fewer = await built.inject({
      method: 'POST',
      url: '/v1/roll/batch',
      payload: { rolls: rolls.slice(0, 1) },
    });
    expect(fewer.statusCode).toBe(200);
  });

  it('is configurable, and leaves ordinary rolls as they were', async () => {
    const built = await make({ throwsPerRequest: 500 });
    expect((await built.inject('/v1/roll?formula=500d6')).statusCode).toBe(200);
    const over = await built.inject('/v1/roll?formula=499d6%2B2d6');
    expect(over.statusCode).toBe(400);
    expect(over.json().error.message).toContain('a request may throw at most 500.');
    const normal = await built.inject('/v1/roll?formula=4d6kh3%2B2');
    expect(normal.json()).toMatchObject({ formula: '4d6kh3+2', total: 5, modifier: 2 });
  });
});

describe('timeouts', () => {
  it('cuts a body stalled after its headers at the request timeout, in the error envelope', async () => {
    const port = await listen({ requestTimeoutMs: 400, headersTimeoutMs: 200 });
    const { socket, closed } = await connect(port);
    socket.write(
      'POST /v1/roll HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"formula":',
    );
    const raw = await closed;
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('X-Content-Type-Options: nosniff');
    expect(bodyOf(raw)).toEqual({
      error: { code: 'invalid_request', message: 'The request took too long to arrive.' },
    });
  });

  it('cuts headers that never end at the headers timeout', async () => {
    const port = await listen({ requestTimeoutMs: 5_000, headersTimeoutMs: 200 });
    const { socket, closed } = await connect(port);
    socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n');
    expect(await closed).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('closes a connection whose client stopped reading its answers, not one that reads them slowly', async () => {
    // An answer may wait unsent max(request, keep-alive timeout) + 1 s: 1.3 s here.
    const port = await listen({ requestTimeoutMs: 300, headersTimeoutMs: 200, keepAliveTimeoutMs: 300 });
    const server = app!.server;
    const connections = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
    // Pipelined OpenAPI documents: more than the server's send buffer and the client's receive
    // buffer can hold at their largest, so the answers cannot all leave unread.
    const documentBytes = (await app!.inject('/openapi.json')).rawPayload.length;
    const largest = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/).at(-1));
    const buffers = largest('/proc/sys/net/ipv4/tcp_wmem') + largest('/proc/sys/net/ipv4/tcp_rmem');
    const count = Math.ceil((1.5 * buffers) / documentBytes);
    const requests = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count);
    /** Opens a connection that counts the answers it reads (it reads only while flowing). */
    const open = async () => {
      const socket = createConnection({ host: '127.0.0.1', port });
      sockets.push(socket);
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('connect', resolve));
      const read = { answers: 0, closed: false };
      // A status line split between two chunks is counted once: what is kept of a chunk is too
      // short to hold a whole one (a longer tail counted one that ended a chunk twice).
      const statusLine = 'HTTP/1.1 200 OK';
      let tail = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        const text = tail + chunk;
        read.answers += text.split(statusLine).length - 1;
        tail = text.slice(-(statusLine.length - 1));
      });
      socket.once('close', () => {
        read.closed = true;
      });
      return { socket, read };
    };

    // Never reads: the server closes its side once nothing has left for the limit ...
    const stalled = await open();
    stalled.socket.pause();
    stalled.socket.write(requests);
    await until(async () => (await connections()) === 0, 'the stalled connection closed by the server');
    // ... and what the client finds once it reads again is a connection cut short.
    stalled.socket.resume();
    await until(() => stalled.read.closed, 'the client to see the close');
    expect(stalled.read.answers).toBeLessThan(count);

    // Reads a tenth of it every 400 ms: each wait is shorter than the limit and something leaves
    // every time, so it gets every answer, over longer than the limit in all (the keep-alive
    // timeout may close it once the last answer has left: that is not a cut).
    const slow = await open();
    slow.socket.pause();
    const sip = (count * documentBytes) / 10;
    let sipped = 0;
    slow.socket.on('data', (chunk: string) => {
      sipped += chunk.length;
      if (sipped >= sip) slow.socket.pause();
    });
    slow.socket.write(requests);
    let sips = 0;
    const sipping = setInterval(() => {
      sips++;
      sipped = 0;
      slow.socket.resume();
    }, 400);
    try {
      // Ten sips take 4 s on a quiet machine; a loaded one may take several times that. A cut
      // ends the wait at once, and the count below says so.
      await until(() => slow.read.answers === count || slow.read.closed, 'every answer read slowly', {
        attempts: 900,
      });
    } finally {
      clearInterval(sipping);
    }
    // Every answer arrived (a cut connection would end short), over more sips than the limit lasts.
    expect({
      answers: slow.read.answers,
      closedEarly: slow.read.answers < count && slow.read.closed,
    }).toEqual({
      answers: count,
      closedEarly: false,
    });
    expect(sips).toBeGreaterThan(4);
  }, 90_000);

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const port = await listen({ keepAliveTimeoutMs: 200 });
    const { socket, closed } = await connect(port);
    socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    const raw = await closed;
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toContain('Keep-Alive: timeout=');
  });
});

describe('connection caps', () => {
  it('answers the connection over the per-address cap with 429, and serves other addresses meanwhile', async () => {
    const cap = 4;
    const port = await listen({ connectionsPerAddress: cap });
    const held = [];
    for (let i = 0; i < cap; i++) held.push(await connect(port));
    const server = app!.server;
    await until(
      () => new Promise<boolean>((resolve) => server.getConnections((_e, n) => resolve(n === cap))),
      'the held connections to be open',
    );
    const refused = await connect(port);
    const raw = await refused.closed;
    expect(raw).toMatch(/^HTTP\/1\.1 429 /);
    expect(bodyOf(raw)).toEqual({ error: { code: 'rate_limited', message: MESSAGES.tooManyConnections } });

    // Another client address is not affected by this one's connections.
    const other = await connect(port, '127.0.0.2');
    other.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await other.closed).toMatch(/^HTTP\/1\.1 200 /);

    // Closing one of the held connections makes room again.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await until(
      () => new Promise<boolean>((resolve) => server.getConnections((_e, n) => resolve(n === cap - 1))),
      'the closed connection to be gone',
    );
    const again = await connect(port);
    again.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await again.closed).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('drops connections over the global cap unanswered, whoever sends them, and takes them again once one closes', async () => {
    const cap = 3;
    const port = await listen({ maxConnections: cap, connectionsPerAddress: 32 });
    const server = app!.server;
    const count = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
    // Three clients from three addresses, each far under its own cap, fill the process's cap.
    const held = [];
    for (const address of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) held.push(await connect(port, address));
    await until(async () => (await count()) === cap, 'the held connections to be open');
    // A fourth address is dropped before any byte is read: no answer, and nothing counted.
    const dropped = await connect(port, '127.0.0.4');
    dropped.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await dropped.closed).toBe('');
    expect(await count()).toBe(cap);
    // Once a held connection closes, the next client is served.
    held[1]!.socket.destroy();
    await held[1]!.closed;
    await until(async () => (await count()) === cap - 1, 'the closed connection to be gone');
    const served = await connect(port, '127.0.0.4');
    served.socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(await served.closed).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuses an address asking at twice its limit when it connects, until its window ends', async () => {
    const cap = 3;
    const port = await listen({ rateLimitMax: 2, connectionsPerAddress: cap });
    // Every request node parses: a refused connection's must never be among them.
    let parsed = 0;
    app!.server.on('request', () => {
      parsed += 1;
    });
    const ask = async (localAddress = '127.0.0.1') => {
      const { socket, closed, answered } = await connect(port, localAddress);
      socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
      // A kept-alive answer leaves the socket open: the test closes it once the answer is whole,
      // however long the machine takes.
      await Promise.race([closed, answered]);
      socket.destroy();
      return await closed;
    };
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    // The first refusal comes from the app on a connection that stays usable...
    const first = await ask();
    expect(first).toMatch(/^HTTP\/1\.1 429 /);
    expect(first).toMatch(/connection: keep-alive/i);
    // ...the second (twice the limit asked) closes its connection...
    const second = await ask();
    expect(second).toMatch(/^HTTP\/1\.1 429 /);
    expect(second).toMatch(/connection: close/i);
    expect(parsed).toBe(4);
    // ...and from then on the 429 comes on connecting, after the hold, the request never parsed.
    const started = performance.now();
    const third = await ask('127.0.0.1');
    expect(performance.now() - started).toBeGreaterThanOrEqual(LIMITS.blockedHoldMs - 50);
    expect(third).toMatch(/^HTTP\/1\.1 429 /);
    expect(third).toMatch(/X-RateLimit-Remaining: 0\r\n/);
    expect(Number(/Retry-After: (\d+)/.exec(third)?.[1])).toBeGreaterThan(0);
    expect(bodyOf(third).error.code).toBe('rate_limited');
    expect(parsed).toBe(4);

    // While it holds its cap of connections, one more is reset at once, unanswered; a client that
    // resets a held connection itself harms nothing.
    const server = app!.server;
    const connections = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
    await until(async () => (await connections()) === 0, 'the earlier connections to close');
    const held = [];
    for (let i = 0; i < cap; i++) held.push(await connect(port));
    for (const { socket } of held) socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(async () => (await connections()) === cap, 'the held connections');
    const over = createConnection({ host: '127.0.0.1', port, localAddress: '127.0.0.1' });
    sockets.push(over);
    let overReceived = '';
    over.on('data', (chunk: Buffer) => {
      overReceived += chunk.toString();
    });
    over.on('error', () => undefined);
    await new Promise((resolve) => over.once('close', resolve));
    expect(overReceived).toBe('');
    held[0]!.socket.resetAndDestroy();
    expect(await held[0]!.closed).toBe('');
    for (const { closed } of held.slice(1)) expect(await closed).toMatch(/^HTTP\/1\.1 429 /);
    expect(parsed).toBe(4);

    // Another address is served as ever.
    expect(await ask('127.0.0.2')).toMatch(/^HTTP\/1\.1 200 /);
    expect(parsed).toBe(5);
  });

  it('counts IPv6 clients per prefix: one /64 is one address', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1', 64)).toBe(addressKey('2001:db8:1:2:bbbb::9', 64));
    expect(addressKey('2001:db8:1:2::1', 64)).not.toBe(addressKey('2001:db8:1:3::1', 64));
    expect(addressKey('2001:db8:1:2:aaaa::1', 128)).not.toBe(addressKey('2001:db8:1:2:bbbb::9', 128));
    expect(addressKey('::ffff:10.1.2.3', 64)).toBe('10.1.2.3');
    expect(addressKey('10.1.2.3', 64)).toBe('10.1.2.3');
  });

  it('writes IPv6 keys in the form @fastify/rate-limit wrote them, as the Redis keys of earlier versions', () => {
    // RFC 5952: lower case, no leading zeros, the longest run of zero groups as `::`.
    for (const [address, prefixLength, key] of [
      ['2001:db8:1:2:aaaa::1', 64, '2001:db8:1:2::'],
      ['2001:DB8:0:0:1::1', 128, '2001:db8::1:0:0:1'],
      ['2001:0db8:0000:0000:0000:ff00:0042:8329', 128, '2001:db8::ff00:42:8329'],
      ['1:0:0:1:0:0:0:1', 128, '1:0:0:1::1'],
      ['2001:db8::', 48, '2001:db8::'],
      ['::1', 64, '::'],
      ['::1', 128, '::1'],
      ['fe80::1%eth0', 64, 'fe80::'],
      ['::ffff:a01:203', 64, '10.1.2.3'],
      // Not an address at all (an X-Forwarded-For entry behind a trusted proxy): itself, lower case.
      ['Foo:Bar', 64, 'foo:bar'],
    ] as const) {
      expect(addressKey(address, prefixLength), `${address}/${prefixLength}`).toBe(key);
    }
  });

  it("computes a request's key once and keeps it on the request for every limit to read", async () => {
    const bare = Fastify();
    const keyOf = requestKeys(bare, 64);
    bare.get('/', (request) => {
      const before = request.clientKey;
      const first = keyOf(request);
      const kept = request.clientKey;
      // A second read takes the kept key, not request.ip's again.
      request.clientKey = 'kept';
      return { before, first, kept, second: keyOf(request) };
    });
    try {
      const answer = await bare.inject({ method: 'GET', url: '/', remoteAddress: '2001:db8:0:1::7' });
      expect(answer.json()).toEqual({
        before: '',
        first: addressKey('2001:db8:0:1::7', 64),
        kept: addressKey('2001:db8:0:1::7', 64),
        second: 'kept',
      });
      expect(answer.json().first).toBe(addressKey('2001:db8:0:1::8', 64));
    } finally {
      await bare.close();
    }
  });
});

describe('the rate limit per address', () => {
  it('stops at start-up a route whose own counting and scope disagree', async () => {
    const config = defaultConfig({ logLevel: 'silent' });
    // Returned inside an object: a fastify instance is itself awaitable (it boots).
    const withLimit = async () => {
      const bare = Fastify();
      await bare.register(rateLimitPlugin, {
        max: config.rateLimitMax,
        windowMs: config.rateLimitWindowMs,
        log: bare.log,
        keyOf: requestKeys(bare, config.ipv6PrefixLength),
      });
      return { bare };
    };
    // A limit of its own outside a countingItself() scope would be counted twice.
    const { bare: outside } = await withLimit();
    expect(() => outside.get('/own', { config: { rateLimit: { max: 5 } } }, () => 'x')).toThrow(
      /counts its own requests: register it with countingItself/,
    );
    await outside.close();
    // A route counting nothing inside one would go uncounted.
    const { bare: inside } = await withLimit();
    const scoped = countingItself(inside, (scope) => {
      scope.get('/free', () => 'x');
    });
    await expect(Promise.resolve(scoped)).rejects.toThrow(/counts nothing itself/);
    await inside.close().catch(() => undefined);
    // Agreeing options and scopes start; the route outside the scope is counted at the root.
    const { bare: agreeing } = await withLimit();
    try {
      await countingItself(agreeing, (scope) => {
        scope.get('/own', { config: { rateLimitInHandler: true } }, () => 'x');
      });
      agreeing.get('/counted', () => 'x');
      const counted = await agreeing.inject({ url: '/counted' });
      expect(counted.statusCode).toBe(200);
      expect(counted.headers['x-ratelimit-remaining']).toBe(String(config.rateLimitMax - 1));
      const own = await agreeing.inject({ url: '/own' });
      expect(own.statusCode).toBe(200);
      expect(own.headers['x-ratelimit-remaining']).toBeUndefined();
    } finally {
      await agreeing.close();
    }
  });

  it('shares one budget between addresses of one IPv6 /64', async () => {
    const built = await make({ rateLimitMax: 3 });
    const from = (remoteAddress: string) => built.inject({ method: 'GET', url: '/v1/health', remoteAddress });
    expect((await from('2001:db8:0:1::1')).headers['x-ratelimit-remaining']).toBe('2');
    expect((await from('2001:db8:0:1::2')).headers['x-ratelimit-remaining']).toBe('1');
    expect((await from('2001:db8:0:1:ffff::3')).headers['x-ratelimit-remaining']).toBe('0');
    expect((await from('2001:db8:0:1::4')).statusCode).toBe(429);
    expect((await from('2001:db8:0:2::1')).statusCode).toBe(200);
  });

  it('remembers 100,000 addresses: one at its limit stays there while 99,999 others arrive', () => {
    const store = new MemoryRateStore(60_000);
    const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    expect(store.hit('198.51.100.1').current).toBe(1);
    for (let i = 1; i < LIMITS.rateLimitAddresses; i++) store.hit(address(i));
    expect(store.hit('198.51.100.1').current).toBe(2);
    // One more address: the least recently counted one (not 198.51.100.1, counted last) is forgotten.
    store.hit(address(LIMITS.rateLimitAddresses));
    expect(store.size).toBe(LIMITS.rateLimitAddresses);
    expect(store.hit('198.51.100.1').current).toBe(3);
    expect(store.hit(address(1)).current).toBe(1);
  });
});

describe('TRUST_PROXY=true', () => {
  it('is warned about at start: any client could forge its address', async () => {
    const log = logCollector();
    app = await buildApp(defaultConfig({ logLevel: 'info', trustProxy: true }), { logStream: log });
    const warnings = log.lines.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toEqual([
      expect.stringContaining('TRUST_PROXY=true trusts every X-Forwarded-For entry'),
    ]);
    const quiet = logCollector();
    await app.close();
    app = await buildApp(defaultConfig({ logLevel: 'info', trustProxy: 1 }), { logStream: quiet });
    expect(quiet.lines.filter((line) => line.level === 40)).toEqual([]);
  });
});

describe('every answer', () => {
  it('carries X-Content-Type-Options: nosniff, errors and 429s included', async () => {
    const built = await make({ rateLimitMax: 2 });
    for (const url of ['/v1/health', '/nowhere', '/v1/roll?formula=2d', '/v1/roll%']) {
      expect((await built.inject(url)).headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await built.inject('/v1/health')).statusCode).toBe(429);
    expect((await built.inject('/v1/health')).headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses a body with a Content-Encoding the service does not decode', async () => {
    const built = await make();
    const gzipped = await built.inject({
      method: 'POST',
      url: '/v1/roll',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
    });
    expect(gzipped.statusCode).toBe(400);
    expect(gzipped.json()).toEqual({
      error: { code: 'invalid_request', message: MESSAGES.unsupportedEncoding },
    });
    const identity = await built.inject({
      method: 'POST',
      url: '/v1/roll',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: { formula: '1d6' },
    });
    expect(identity.statusCode).toBe(200);
  });
});
