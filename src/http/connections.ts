// Connection caps: a client address (an IPv6 client: its prefix) may hold CONNECTIONS_PER_ADDRESS
// sockets at once, and the process MAX_CONNECTIONS in total, so idle or stalled connections from
// one address can never use up the file descriptors every other client needs.
import type { Server, Socket } from 'node:net';
import { BlockList, isIPv6 } from 'node:net';
import { normalizeIP } from '@fastify/rate-limit';
import { apiError } from '../api/errors.js';
import type { TrustProxy } from '../config.js';
import { envelopeOf } from './errors.js';

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

/** What a connection over its address's cap is told before it is closed. */
export const TOO_MANY_CONNECTIONS_MESSAGE =
  'Too many open connections from your address; close some and retry.';

function refusal(limit: number): string {
  const body = envelopeOf(apiError('rate_limited', TOO_MANY_CONNECTIONS_MESSAGE));
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

/**
 * Caps `server`'s connections. Over the global cap node drops the socket unanswered (before any
 * byte is read); over an address's cap the socket gets one 429 `rate_limited` and is closed.
 * Returns the live count per address key, for tests and metrics.
 */
export function capConnections(server: Server, options: ConnectionCapOptions): Map<string, number> {
  server.maxConnections = options.maxConnections;
  const open = new Map<string, number>();
  const trusted = trustedPeer(options.trustProxy);
  const answer = refusal(options.connectionsPerAddress);
  // Before node's own listener, so a refused socket is answered before its request is parsed.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || trusted(address)) return;
    const key = addressKey(address, options.ipv6PrefixLength);
    const count = (open.get(key) ?? 0) + 1;
    if (count > options.connectionsPerAddress) {
      socket.end(answer);
      // A client that never closes its side does not keep the descriptor.
      socket.setTimeout(1_000, () => socket.destroy());
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
  return open;
}
