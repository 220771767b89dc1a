// The hosted MCP endpoint (docs/mcp.md): the Streamable HTTP transport at /mcp, stateless (no
// session; GET and DELETE answer 405), each POST carrying one JSON-RPC message and a request
// answered with one JSON response. One SDK Server per app serves every request through the
// request/reply transport below, which gives each request a private JSON-RPC id: the SDK's own
// StreamableHTTPServerTransport would need a new server and transport per request plus a
// conversion to web Request and Response objects, and cost a tool call several REST requests'
// worth of CPU (docs/performance.md#one-mcp-server-per-app).
//
// It runs under the same body limit, timeouts and per-address rate limit as every route, with
// one difference: the limit is charged here, after the body is read, so that a tool call over
// the limit gets a tool result (`isError`, `rate_limited`, the seconds to wait) an agent can
// read, instead of an HTTP 429 its client would raise as a transport failure. Any other message
// over the limit (initialize, tools/list) gets the usual 429. A connection arriving on a loopback
// address without a declared proxy must name a loopback host: a web page whose name was rebound
// to 127.0.0.1 (DNS rebinding) cannot drive a local server's tools.
import { isIP } from 'node:net';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Operation } from '../api/operations.js';
import type { TrustProxy } from '../config.js';
import type { DiceError } from '../errors.js';
import { type CallSetting, createMcpServer } from '../mcp/server.js';
import { rateLimitedFor, toolsOf } from '../mcp/tools.js';
import { rateLimitedError, replyWithError } from './errors.js';
import { countingItself } from './rate-limit.js';

export const MCP_PATH = '/mcp';

export interface McpRouteOptions {
  /** The operations whose tools it serves (their `tool` markers). */
  operations: Readonly<Record<string, Operation>>;
  bodyLimitBytes: number;
  /** TRUST_PROXY: with a proxy declared, loopback connections come from it and carry any Host. */
  trustProxy: TrustProxy;
  /** Where the service serves its reference (`/docs`): the language resource links to its pages. */
  docsPath?: string | undefined;
}

/** One HTTP request's JSON-RPC request, in flight inside the server. */
interface InFlight {
  originalId: RequestId;
  request: FastifyRequest;
  refused: DiceError | undefined;
  resolve(response: JSONRPCMessage): void;
}

/**
 * The SDK Transport of the endpoint: each delivered request gets an id of its own (two clients
 * may both send id 1), and the server's response to it settles that HTTP request with the
 * client's id restored. Messages the server would send on its own (requests, notifications)
 * have no stream to go to in a stateless endpoint and are dropped; fairdice sends none.
 */
class RequestReplyTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly inFlight = new Map<RequestId, InFlight>();
  private lastId = 0;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!('result' in message || 'error' in message) || message.id === undefined) return;
    const call = this.inFlight.get(message.id);
    if (call === undefined) return;
    this.inFlight.delete(message.id);
    call.resolve({ ...message, id: call.originalId });
  }

  /** Delivers a request; settles with the server's response. */
  exchange(
    message: JSONRPCRequest,
    request: FastifyRequest,
    refused: DiceError | undefined,
  ): Promise<JSONRPCMessage> {
    const id = ++this.lastId;
    return new Promise((resolve) => {
      this.inFlight.set(id, { originalId: message.id, request, refused, resolve });
      this.onmessage?.({ ...message, id });
    });
  }

  deliver(message: JSONRPCNotification): void {
    this.onmessage?.(message);
  }

  callOf(id: RequestId): InFlight | undefined {
    return this.inFlight.get(id);
  }
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

/** Both types, as the Streamable HTTP transport requires of every POST. */
const acceptsBoth = (accept: string | undefined): boolean =>
  accept?.includes('application/json') === true && accept.includes('text/event-stream');

const isToolCall = (body: unknown): boolean =>
  body !== null && typeof body === 'object' && (body as { method?: unknown }).method === 'tools/call';

/**
 * What a POSTed JSON-RPC message is, checked by its shape (the server validates each request's
 * params against the method's own schema); undefined when it is no JSON-RPC 2.0 message.
 */
function kindOf(body: unknown): 'request' | 'notification' | 'response' | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { jsonrpc, id, method, params } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0') return undefined;
  if (params !== undefined && (params === null || typeof params !== 'object')) return undefined;
  const hasId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
  if (typeof method === 'string') {
    if (id === undefined) return 'notification';
    return hasId ? 'request' : undefined;
  }
  return hasId && ('result' in body || 'error' in body) ? 'response' : undefined;
}

/** A JSON-RPC error answered before the MCP server sees the request. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const HOST_REFUSED =
  'This server answers local MCP requests only for Host localhost, 127.0.0.1 or [::1] (DNS rebinding protection); behind a proxy, set TRUST_PROXY.';
const NOT_ACCEPTABLE = 'Not Acceptable: the Accept header must list application/json and text/event-stream.';

async function mcpRoute(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { operations, bodyLimitBytes, trustProxy, docsPath } = options;
  const contextOf = app.diceContext;
  const { charge } = app.rateLimit;
  const transport = new RequestReplyTransport();
  const settingOf = (id: RequestId): CallSetting => {
    const call = transport.callOf(id);
    // The transport delivers every request it is given with a setting; anything else is a fault.
    if (call === undefined) throw new Error(`No request in flight with id ${String(id)}`);
    const { request, refused } = call;
    const ctx = {
      ...contextOf(request),
      logError: (error: unknown, message: string) => request.log.error({ err: error }, message),
    };
    return { ctx, refused };
  };
  // The language resource links to the reference pages of this service, as its caller reaches it.
  const docsUrlOf = (id: RequestId): string | undefined => {
    const request = transport.callOf(id)?.request;
    if (request === undefined || docsPath === undefined) return undefined;
    return `${request.protocol}://${request.host}${docsPath}`;
  };
  const server = createMcpServer({ settingOf, tools: toolsOf(operations), docsUrlOf });
  await server.connect(transport);
  app.addHook('onClose', () => server.close());

  // It charges the rate limit from its handler, so the API's count in onRequest leaves it alone.
  await countingItself(app, (scope) => {
    scope.route({
      method: 'POST',
      url: MCP_PATH,
      config: { rateLimitInHandler: true },
      handler: async (request, reply) => {
        if (hostRefused(request, trustProxy)) return jsonRpcError(reply, 403, -32000, HOST_REFUSED);
        if (!acceptsBoth(request.headers.accept)) return jsonRpcError(reply, 406, -32000, NOT_ACCEPTABLE);
        const verdict = await charge(request);
        const body = request.body;
        if (verdict.exceeded && !isToolCall(body)) {
          reply.header('retry-after', String(verdict.retryAfterSeconds));
          return replyWithError(request, reply, rateLimitedError(), bodyLimitBytes);
        }
        // JSON-RPC batches left the protocol in its 2025-06-18 revision; here they would also
        // carry many calls for one charge.
        if (Array.isArray(body))
          return jsonRpcError(reply, 400, -32600, 'Send one JSON-RPC message per request.');
        const kind = kindOf(body);
        if (kind === undefined) {
          return jsonRpcError(reply, 400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
        }
        const message = body as JSONRPCMessage;
        const version = request.headers['mcp-protocol-version'];
        if (
          (message as { method?: unknown }).method !== 'initialize' &&
          version !== undefined &&
          !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))
        ) {
          return jsonRpcError(
            reply,
            400,
            -32000,
            `Bad Request: Unsupported protocol version (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
          );
        }
        if (kind !== 'request') {
          // A notification (or a response, to a request fairdice never sends): nothing to answer.
          if (kind === 'notification') transport.deliver(message as JSONRPCNotification);
          return reply.code(202).send();
        }
        const refused = verdict.exceeded ? rateLimitedFor(verdict.retryAfterSeconds) : undefined;
        const response = await transport.exchange(message as JSONRPCRequest, request, refused);
        return reply.type('application/json').send(JSON.stringify(response));
      },
    });
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

/**
 * Serves the tools of the marked operations of `operations` at /mcp, each call with the
 * request's `app.diceContext`, charging the API's rate limit from its handler (`app.rateLimit`).
 */
export const mcpPlugin = fp(mcpRoute, {
  name: 'fairdice-mcp',
  fastify: '5.x',
  encapsulate: true,
  decorators: { fastify: ['diceContext', 'rateLimit'] },
});
