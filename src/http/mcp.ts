// The hosted MCP endpoint (docs/mcp.md): Streamable HTTP at /mcp, stateless (a fresh server and
// transport per POST, no session), answering JSON rather than an event stream. It runs under
// the same body limit, timeouts and per-address rate limit as every route, with one difference:
// the limit is charged here, after the body is read, so that a tool call over the limit gets a
// tool result (`isError`, `rate_limited`, the seconds to wait) an agent can read, instead of an
// HTTP 429 its client would raise as a transport failure. Any other message over the limit
// (initialize, tools/list) gets the usual 429. A connection arriving on a loopback address
// without a declared proxy must name a loopback host: a web page whose name was rebound to
// 127.0.0.1 (DNS rebinding) cannot drive a local server's tools.

import { isIP } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DiceContext } from '../api/trpc.js';
import type { TrustProxy } from '../config.js';
import { createMcpServer } from '../mcp/server.js';
import { rateLimitedError } from '../mcp/tools.js';
import { RateLimitedError, replyWithError } from './errors.js';
import { handlerRateLimit } from './rate-limit.js';

export const MCP_PATH = '/mcp';

export interface McpRouteOptions {
  contextOf(request: FastifyRequest): DiceContext;
  bodyLimitBytes: number;
  /** TRUST_PROXY: with a proxy declared, loopback connections come from it and carry any Host. */
  trustProxy: TrustProxy;
}

const isLoopbackAddress = (address: string | undefined): boolean =>
  address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));

/** The host name of a Host header, without its port (`[::1]:3000` is `::1`). */
function hostName(host: string | undefined): string {
  if (host === undefined) return '';
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed !== null) return bracketed[1] ?? '';
  return isIP(host) === 6 ? host : host.replace(/:\d+$/, '');
}

/** DNS rebinding protection: on a loopback connection with no proxy, Host must be loopback too. */
function hostRefused(request: FastifyRequest, trustProxy: TrustProxy): boolean {
  if (trustProxy !== false || !isLoopbackAddress(request.raw.socket.localAddress)) return false;
  const name = hostName(request.headers.host).toLowerCase();
  return name !== 'localhost' && !(isIP(name) !== 0 && isLoopbackAddress(name));
}

const isToolCall = (body: unknown): boolean =>
  body !== null && typeof body === 'object' && (body as { method?: unknown }).method === 'tools/call';

/** A JSON-RPC error answered before any MCP server sees the request. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const HOST_REFUSED =
  'This server answers local MCP requests only for Host localhost, 127.0.0.1 or [::1] (DNS rebinding protection); behind a proxy, set TRUST_PROXY.';

export function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): void {
  const { contextOf, bodyLimitBytes, trustProxy } = options;
  const charge = handlerRateLimit(app);

  app.route({
    method: 'POST',
    url: MCP_PATH,
    config: { rateLimitInHandler: true },
    handler: async (request, reply) => {
      if (hostRefused(request, trustProxy)) return jsonRpcError(reply, 403, -32000, HOST_REFUSED);
      const verdict = await charge(request);
      const body = request.body;
      const call = isToolCall(body);
      if (verdict.exceeded && !call) {
        reply.header('retry-after', String(verdict.retryAfterSeconds));
        return replyWithError(request, reply, new RateLimitedError(), bodyLimitBytes);
      }
      // JSON-RPC batches left the protocol in its 2025-06-18 revision; here they would also
      // carry many calls for one charge.
      if (Array.isArray(body))
        return jsonRpcError(reply, 400, -32600, 'Send one JSON-RPC message per request.');

      const server = createMcpServer({
        contextOf: () => ({
          ...contextOf(request),
          logError: (error, message) => request.log.error({ err: error }, message),
        }),
        ...(verdict.exceeded ? { admitCall: () => rateLimitedError(verdict.retryAfterSeconds) } : {}),
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      reply.hijack();
      reply.raw.setHeader('access-control-allow-origin', '*');
      reply.raw.on('close', () => {
        void server.close();
      });
      try {
        await transport.handleRequest(request.raw, reply.raw, body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
          );
        } else reply.raw.destroy();
      }
    },
  });

  // Stateless: no event stream to open (GET) and no session to end (DELETE). The MCP spec has a
  // server without them answer 405.
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    handler: (_request, reply) => {
      reply.header('allow', 'POST');
      return jsonRpcError(reply, 405, -32000, 'This MCP endpoint is stateless: POST one JSON-RPC message.');
    },
  });
}
