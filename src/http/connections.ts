// Connection caps: a client address (an IPv6 client: its prefix) may hold CONNECTIONS_PER_ADDRESS
// sockets at once, and the process MAX_CONNECTIONS in total, so idle or stalled connections from
// one address can never use up the file descriptors every other client needs. An address that has
// spent its rate limit is answered 429 on connecting, until its window ends, without a request
// being parsed: hammering at the limit costs the service as little as it can.
import type { Server, Socket } from 'node:net';
import { BlockList, isIPv6 } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import type { TrustProxy } from '../config.js';
import { DiceError, MESSAGES } from '../errors.js';
import { LIMITS } from '../limits.js';

/**
 * The key an address is counted under, the rate limiter's own: an IPv4 address itself (an
 * IPv4-mapped IPv6 address as its IPv4 form), an IPv6 address as the start of its prefix.
 */
export const addressKey = (address: string, prefixLength: number): string =>
  normalizeIP(address, prefixLength);

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
   * a window (it keeps asking at twice its limit), its new connections get the 429 at once, before
   * any byte is parsed, until the window ends: that costs a fraction of a request through the
   * app. Returns true from then on (the caller closes the connection after its 429).
   */
  refused(address: string, untilMs: number, limit: number): boolean;
  /** Whether connections from `address` are counted and blocked (false for trusted proxies). */
  guards(address: string): boolean;
}

/**
 * Caps `server`'s connections. Over the global cap node drops the socket unanswered (before any
 * byte is read); over an address's cap, or from an address blocked by the rate limit, the socket
 * gets one 429 `rate_limited` and is closed.
 */
export function capConnections(server: Server, options: ConnectionCapOptions): ConnectionGuard {
  server.maxConnections = options.maxConnections;
  const open = new Map<string, number>();
  const blocked = new Map<string, { untilMs: number; limit: number; refusals: number }>();
  const trusted = trustedPeer(options.trustProxy);
  const answer = refusal(options.connectionsPerAddress);
  const refuse = (socket: Socket, text: string) => {
    socket.end(text);
    // A client that never closes its side does not keep the descriptor.
    socket.setTimeout(1_000, () => socket.destroy());
  };
  // Before node's own listener, so a refused socket is answered before its request is parsed.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) return;
    const key = addressKey(address, options.ipv6PrefixLength);
    const block = blocked.get(key);
    if (block !== undefined) {
      const left = block.untilMs - Date.now();
      if (left <= 0) blocked.delete(key);
      else if (block.refusals >= block.limit) {
        refuse(socket, blockedAnswer(block.limit, Math.ceil(left / 1000)));
        return;
      }
    }
    const count = (open.get(key) ?? 0) + 1;
    if (count > options.connectionsPerAddress) {
      refuse(socket, answer);
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return {
    open,
    guards: (address) => !trusted(address),
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
