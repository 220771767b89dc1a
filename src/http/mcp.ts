// The hosted MCP endpoint (docs/mcp.md): Streamable HTTP at /mcp, stateless (a fresh server and
// transport per POST, no session), answering JSON rather than an event stream. It runs under
// the same body limit, timeouts and per-address rate limit as every route, with one difference:
// the limit is charged here, after the body is read, so that a tool call over the limit gets a
// tool result (`isError`, `rate_limited`, the seconds to wait) an agent can read, instead of an
// HTTP 429 its client would raise as a transport failure. Any other message over the limit
// (initialize, tools/list) gets the usual 429.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DiceContext } from '../api/trpc.js';
import { createMcpServer } from '../mcp/server.js';
import { rateLimitedError } from '../mcp/tools.js';
import { RateLimitedError, replyWithError } from './errors.js';
import { handlerRateLimit } from './rate-limit.js';

export const MCP_PATH = '/mcp';

export interface McpRouteOptions {
  contextOf(request: FastifyRequest): DiceContext;
  bodyLimitBytes: number;
}

const isToolCall = (body: unknown): boolean =>
  body !== null && typeof body === 'object' && (body as { method?: unknown }).method === 'tools/call';

/** A JSON-RPC error answered before any MCP server sees the request. */
function jsonRpcError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null }));
}

export function registerMcpRoute(app: FastifyInstance, options: McpRouteOptions): void {
  const { contextOf, bodyLimitBytes } = options;
  const charge = handlerRateLimit(app);

  app.route({
    method: 'POST',
    url: MCP_PATH,
    config: { rateLimitInHandler: true },
    handler: async (request, reply) => {
      const verdict = await charge(request);
      const body = request.body;
      const call = isToolCall(body);
      if (verdict.exceeded && !call) {
        reply.header('retry-after', String(verdict.retryAfterSeconds));
        return replyWithError(request, reply, new RateLimitedError(), bodyLimitBytes);
      }
      // JSON-RPC batches left the protocol in its 2025-06-18 revision; here they would also
      // carry many calls for one charge.
      if (Array.isArray(body)) return jsonRpcError(reply, 400, 'Send one JSON-RPC message per request.');

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
      return jsonRpcError(reply, 405, 'This MCP endpoint is stateless: POST one JSON-RPC message.');
    },
  });
}
