// Connection caps: a client address (an IPv6 client: its prefix) may hold CONNECTIONS_PER_ADDRESS
// sockets at once, and the process MAX_CONNECTIONS in total, so idle or stalled connections from
// one address can never use up the file descriptors every other client needs. An address that has
// spent its rate limit and keeps asking is refused when it connects, until its window ends,
// without a byte of its request being read or parsed: each such connection is held for
// LIMITS.blockedHoldMs before its 429, so the address gets at most CONNECTIONS_PER_ADDRESS
// answers per hold, however fast it reconnects (docs/operations.md#rate-limiting).
import type { Server, Socket } from 'node:net';
import { BlockList, isIPv6 } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Address6 } from 'ip-address';
import type { TrustProxy } from '../config.js';
import { DiceError, MESSAGES } from '../errors.js';
import { LIMITS } from '../limits.js';

/** IPv6 addresses whose key was computed lately (parsing one is costly), each with its key. */
const ipv6Keys = new Map<string, string>();
const IPV6_KEYS_REMEMBERED = 10_000;

/**
 * The key of an IPv6 address: an IPv4-mapped one as its IPv4 form, any other as the first address
 * of its prefix (all of it at 128), in RFC 5952's form (lower case, the longest run of zeros as
 * `::`). Anything else (an X-Forwarded-For entry that is no address) as itself, in lower case.
 * The keys of @fastify/rate-limit, which counted requests before: a Redis shared with an
 * instance of that version holds the same keys (src/http/rate-limit-store.ts).
 */
function ipv6Key(address: string, prefixLength: number): string {
  if (!isIPv6(address)) return address.toLowerCase();
  const parsed = new Address6(address);
  if (parsed.isMapped4()) return parsed.to4().correctForm();
  if (prefixLength >= 128) return parsed.correctForm();
  return new Address6(`${address}/${prefixLength}`).startAddress().correctForm();
}

/**
 * The key an address is counted under: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * its IPv4 form), an IPv6 address as the start of its prefix.
 */
export function addressKey(address: string, prefixLength: number): string {
  // An address without `:` is no IPv6 address: no parsing for it (every request asks).
  if (!address.includes(':')) return address.toLowerCase();
  const cacheKey = `${prefixLength}/${address}`;
  let key = ipv6Keys.get(cacheKey);
  if (key === undefined) {
    key = ipv6Key(address, prefixLength);
    // Bounded: the oldest entry goes first.
    if (ipv6Keys.size >= IPV6_KEYS_REMEMBERED) ipv6Keys.delete(ipv6Keys.keys().next().value as string);
    ipv6Keys.set(cacheKey, key);
  }
  return key;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client address's key (see addressKey), once `requestKeys`' function has read it; '' before. */
    clientKey: string;
  }
}

/**
 * Gives `app`'s requests a `clientKey` field and returns the function that reads it: the key of
 * `request.ip`, computed on the first read and kept. The rate limit, the fair turns and the
 * budgets all count a request under this key, so it is computed once per request.
 */
export function requestKeys(app: FastifyInstance, prefixLength: number): (request: FastifyRequest) => string {
  app.decorateRequest('clientKey', '');
  return (request) => {
    const known = request.clientKey;
    if (known !== '') return known;
    const key = addressKey(request.ip, prefixLength);
    request.clientKey = key;
    return key;
  };
}

/**
 * Whether a socket's peer is a proxy TRUST_PROXY trusts: its connections carry many clients, so
 * they are not capped per address. `true` and a hop count trust every peer; a list, only its
 * addresses and ranges.
 */
export function trustedPeer(trustProxy: TrustProxy): (address: string) => boolean {
  if (trustProxy === false || trustProxy === 0) return () => false;
  if (typeof trustProxy !== 'string') return () => true;
  const list = new BlockList();
  for (const entry of trustProxy.split(',')) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped !== undefined) return list.check(mapped, 'ipv4');
    return list.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
  };
}

export interface ConnectionCapOptions {
  connectionsPerAddress: number;
  maxConnections: number;
  ipv6PrefixLength: number;
  trustProxy: TrustProxy;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** How often node checks the request timeouts, and the sweep below checks stalled answers. */
export const checkingIntervalMs = (headersTimeoutMs: number): number =>
  Math.min(1_000, Math.max(10, Math.floor(headersTimeoutMs / 4)));

/**
 * How long an answer may wait without one write completing: longer than a request may take to
 * arrive and than a kept-alive connection may idle, so only a client that stopped reading meets it.
 */
export const stalledAnswerMs = (
  options: Pick<ConnectionCapOptions, 'requestTimeoutMs' | 'keepAliveTimeoutMs'>,
) => Math.max(options.requestTimeoutMs, options.keepAliveTimeoutMs) + 1_000;

/**
 * How long each socket's output has waited without a byte of it leaving (its client not reading):
 * per socket with output waiting, the bytes it had sent when last seen moving, and when.
 */
class OutputWaits {
  private readonly seen = new Map<Socket, { sent: number; sinceMs: number }>();

  /** How long `socket`'s output has not moved, as of `now`; undefined when none is waiting. */
  waitedMs(socket: Socket, now: number): number | undefined {
    if (socket.destroyed || socket.writableLength === 0) {
      this.seen.delete(socket);
      return undefined;
    }
    // bytesWritten counts what is still buffered too: what left is that minus the buffer.
    const sent = socket.bytesWritten - socket.writableLength;
    const seen = this.seen.get(socket);
    if (seen === undefined || seen.sent !== sent) {
      this.seen.set(socket, { sent, sinceMs: now });
      return 0;
    }
    return now - seen.sinceMs;
  }

  /** Leaves `ms` out of every wait. */
  leaveOut(ms: number): void {
    for (const seen of this.seen.values()) seen.sinceMs += ms;
  }

  /** Forgets the sockets no longer in `live` (closed). */
  keepOnly(live: ReadonlySet<Socket>): void {
    for (const [known] of this.seen) if (!live.has(known)) this.seen.delete(known);
  }
}

/**
 * Resets the sockets of `live` whose output has waited `stalledMs` without one write completing
 * (a client that stopped reading), looking every `everyMs` (time this process did not run does not
 * count); a reset frees what the kernel still holds for it at once. One sweep instead of node's
 * socket timeout (`server.timeout`), which re-arms a timer twice per request on every kept-alive
 * connection (docs/performance.md#no-socket-timeout). Returns the function that stops it.
 */
export function sweepStalledAnswers(
  live: ReadonlySet<Socket>,
  stalledMs: number,
  everyMs: number,
): () => void {
  const waits = new OutputWaits();
  let lastSweepMs = Date.now();
  const sweep = setInterval(() => {
    const now = Date.now();
    // Time this process did not run (a long garbage collection, a starved machine) is no client's
    // wait: after it, timers run before the writes that completed meanwhile are seen, so a client
    // that read all along would look stalled. Only that time is left out; the rest still counts.
    const pausedMs = now - lastSweepMs - everyMs;
    lastSweepMs = now;
    if (pausedMs > Math.max(everyMs, 250)) waits.leaveOut(pausedMs);
    waits.keepOnly(live);
    for (const socket of live) {
      // A reset socket stays in `live` until its close event; destroyed, it has no wait.
      if ((waits.waitedMs(socket, now) ?? 0) >= stalledMs) socket.resetAndDestroy();
    }
  }, everyMs);
  sweep.unref();
  return () => clearInterval(sweep);
}

function refusal(limit: number): string {
  const body = JSON.stringify(new DiceError('rate_limited', MESSAGES.tooManyConnections).toBody());
  return (
    'HTTP/1.1 429 Too Many Requests\r\n' +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'Access-Control-Allow-Origin: *\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `X-Connections-Limit: ${limit}\r\n` +
    'Retry-After: 1\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

function blockedAnswer(limit: number, secondsLeft: number): string {
  const body = JSON.stringify(new DiceError('rate_limited', MESSAGES.rateLimited).toBody());
  return (
    'HTTP/1.1 429 Too Many Requests\r\n' +
    'Content-Type: application/json; charset=utf-8\r\n' +
    'Access-Control-Allow-Origin: *\r\n' +
    'X-Content-Type-Options: nosniff\r\n' +
    `X-RateLimit-Limit: ${limit}\r\n` +
    'X-RateLimit-Remaining: 0\r\n' +
    `X-RateLimit-Reset: ${secondsLeft}\r\n` +
    `Retry-After: ${secondsLeft}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

export interface ConnectionGuard {
  /** Live connections per address key. */
  readonly open: Map<string, number>;
  /**
   * Records one 429 for `address` (a socket address, not one taken from X-Forwarded-For), whose
   * window ends at `untilMs` (Date.now() time). Once an address has been refused `limit` times in
   * a window (it keeps asking at twice its limit), its new connections are held, then answered
   * 429, before any byte is read, until the window ends. Returns true from then on (the caller
   * closes the connection after its 429).
   */
  refused(address: string, untilMs: number, limit: number): boolean;
  /** Whether connections from `address` are counted and blocked (false for trusted proxies). */
  guards(address: string): boolean;
  /** Resolves once no served connection has an answer still leaving (see answersSent). */
  answersSent(): Promise<void>;
}

/**
 * Caps `server`'s connections. Over the global cap node drops the socket unanswered (before any
 * byte is read); over an address's cap the socket gets one 429 `rate_limited` and is closed. A
 * socket from an address blocked by the rate limit is held for LIMITS.blockedHoldMs, then
 * answered 429 and closed (reset at once if the address already holds its cap). A refused socket
 * never reaches the HTTP server: what its client sends is never parsed. A served socket whose
 * answer stops leaving (its client stopped reading) is reset (sweepStalledAnswers).
 */
export function capConnections(
  server: Server,
  options: ConnectionCapOptions,
  /** Told of each refused socket: held for the rate limit, or over the address's cap (the metrics). */
  onRefused?: (kind: 'rate' | 'connections') => void,
): ConnectionGuard {
  server.maxConnections = options.maxConnections;
  const open = new Map<string, number>();
  const blocked = new Map<string, { untilMs: number; limit: number; refusals: number }>();
  const trusted = trustedPeer(options.trustProxy);
  const answer = refusal(options.connectionsPerAddress);
  const ignore = () => undefined;
  const refuse = (socket: Socket, text: string) => {
    socket.end(text);
    // Whatever the client sent is discarded, so that its close is seen at once; a client that
    // never closes its side (or keeps sending) does not keep the descriptor past a second.
    socket.resume();
    const cut = setTimeout(() => socket.destroy(), 1_000);
    socket.once('close', () => clearTimeout(cut));
  };
  const release = (key: string) => {
    const left = (open.get(key) ?? 1) - 1;
    if (left <= 0) open.delete(key);
    else open.set(key, left);
  };
  // The HTTP server's own listeners (node's, which parses the requests) run only for the sockets
  // let through; a refused socket is answered here and nothing reads what its client sends.
  const serve = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const served = new Set<Socket>();
  const stopSweep = sweepStalledAnswers(
    served,
    stalledAnswerMs(options),
    checkingIntervalMs(options.headersTimeoutMs),
  );
  server.once('close', stopSweep);
  const handOver = (socket: Socket) => {
    served.add(socket);
    for (const listener of serve) listener.call(server, socket);
  };
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) {
      socket.once('close', () => served.delete(socket));
      handOver(socket);
      return;
    }
    const key = addressKey(address, options.ipv6PrefixLength);
    const count = (open.get(key) ?? 0) + 1;
    const block = blocked.get(key);
    if (block !== undefined && block.refusals >= block.limit) {
      if (block.untilMs <= Date.now()) blocked.delete(key);
      else {
        // Without node's listeners nothing else handles this socket's errors (a client reset).
        socket.on('error', ignore);
        if (count > options.connectionsPerAddress) {
          onRefused?.('connections');
          socket.resetAndDestroy();
          return;
        }
        open.set(key, count);
        const hold = setTimeout(() => {
          const secondsLeft = Math.max(1, Math.ceil((block.untilMs - Date.now()) / 1000));
          onRefused?.('rate');
          refuse(socket, blockedAnswer(block.limit, secondsLeft));
        }, LIMITS.blockedHoldMs);
        socket.once('close', () => {
          clearTimeout(hold);
          release(key);
        });
        return;
      }
    }
    if (count > options.connectionsPerAddress) {
      socket.on('error', ignore);
      onRefused?.('connections');
      refuse(socket, answer);
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      release(key);
      served.delete(socket);
    });
    handOver(socket);
  });
  return {
    open,
    guards: (address) => !trusted(address),
    answersSent: () => answersSent(served, SHUTDOWN_QUIET_MS),
    refused(address, untilMs, limit) {
      const key = addressKey(address, options.ipv6PrefixLength);
      const known = blocked.get(key);
      if (known !== undefined && known.untilMs > Date.now()) {
        known.refusals += 1;
        known.untilMs = untilMs;
        return known.refusals >= known.limit;
      }
      blocked.delete(key);
      blocked.set(key, { untilMs, limit, refusals: 1 });
      // Bounded like the limiter's own memory: the oldest entry goes first.
      if (blocked.size > LIMITS.rateLimitAddresses) {
        const oldest = blocked.keys().next().value;
        if (oldest !== undefined) blocked.delete(oldest);
      }
      return limit <= 1;
    },
  };
}

/** During a shutdown, an answer whose client has read nothing for this long is not waited for. */
const SHUTDOWN_QUIET_MS = 3_000;

/**
 * Resolves once no socket of `live` has output still leaving: each has sent it all, closed, or
 * sent nothing for `quietMs` (its client stopped reading, and is not waited for).
 */
async function answersSent(live: ReadonlySet<Socket>, quietMs: number, everyMs = 25): Promise<void> {
  const waits = new OutputWaits();
  for (;;) {
    const now = performance.now();
    let leaving = false;
    // Every socket is looked at (no early exit), so that each one's wait is measured.
    for (const socket of live) if ((waits.waitedMs(socket, now) ?? quietMs) < quietMs) leaving = true;
    if (!leaving) return;
    await delay(everyMs);
  }
}

/**
 * Once `app` begins to close, no answer is cut and no connection outlives its last answer, so a
 * graceful shutdown ends when the requests do (docs/operations.md#shutdown):
 * - The server closes only once the answers already written have left. Node's `server.close()`
 *   destroys every connection whose answer has ended, even one still in its write buffer (a large
 *   answer to a slow reader); fastify calls it right after the preClose hooks.
 * - Every answer sent from then on says `connection: close`. Node closes the connections idle when
 *   the server closes (event streams end before, in preClose) and fastify answers a request that
 *   arrives later with `connection: close`, but a request already in flight was answered with
 *   keep-alive, and its connection held the shutdown until the keep-alive timeout (65 s behind a
 *   proxy, past the grace).
 */
export function closeConnectionsWhenClosing(app: FastifyInstance, guard: ConnectionGuard): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    await guard.answersSent();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
