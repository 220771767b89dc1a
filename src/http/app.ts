// The fastify application: the REST routes of the operation table, the tRPC endpoint, the
// OpenAPI document, the index and the page at / (src/http/page.ts), CORS, rate limiting, body
// limit and the one error envelope.
// It never listens: tests drive it with inject or a real port; src/server.ts serves it.

// First, before anything calls process.nextTick (src/tick-maps.ts).
import '../tick-maps.js';
import type { Server } from 'node:http';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { DestinationStream } from 'pino';
import { type DiceContext, OPERATIONS, type Operation } from '../api/operations.js';
import { type AppRouter, appRouter, routerOf } from '../api/router.js';
import { StatsService } from '../api/stats-service.js';
import { fromTrpcError } from '../api/trpc.js';
import type { Config } from '../config.js';
import { DiceError, MESSAGES, RequestError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { cryptoRandom } from '../roll/random.js';
import type { RandomSource } from '../roll/types.js';
import { exitIfPastGrace } from '../shutdown.js';
import { Trust } from '../trust/service.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { capConnections, checkingIntervalMs, requestKeys } from './connections.js';
import { docsPlugin } from './docs.js';
import { answerClientError, needsLogging, replyWithError } from './errors.js';
import { MCP_PATH, registerMcpRoute } from './mcp.js';
import { buildOpenApiDocument } from './openapi.js';
import { type BuiltPage, loadPage, registerPage } from './page.js';
import { registerRateLimit } from './rate-limit.js';
import { requestLoggerFactoryOf, serviceLogger } from './request-log.js';
import { registerRestRoutes } from './routes.js';
import { StatsBudget } from './stats-budget.js';
import { registerTableEvents } from './table-events.js';
import { ThrowBuckets } from './throw-budget.js';
import { fairTurns, TURN_BUDGET_MS } from './turns.js';

/** Test-only ways in; nothing here is reachable over HTTP. */
export interface AppSeams {
  /** The random source of every roll (default: the CSPRNG source). */
  random?: RandomSource;
  /** Where the log lines go (default: stdout); unused when `logger` is given. */
  logStream?: DestinationStream;
  /** The service's logger (default: `serviceLogger` at LOG_LEVEL on `logStream`); src/server.ts passes its own. */
  logger?: FastifyBaseLogger;
  /** The operations served (default: the service's table); a test adds one that fails on purpose. */
  operations?: Readonly<Record<string, Operation>>;
  /** The page served at `/` to browsers (default: the one built into dist/page); null: none. */
  page?: BuiltPage | null;
  /** Receipts and tables (default: from the configuration, closed with the app). */
  trust?: Trust;
  /** The /v1/stats workers (default: one thread, closed with the app); a test sizes its queue. */
  stats?: StatsService;
}

// Read once per process, like /docs' assets: tests build many apps.
let builtPage: { page: BuiltPage | undefined } | undefined;
const loadBuiltPage = (): BuiltPage | undefined => {
  builtPage ??= { page: loadPage() };
  return builtPage.page;
};

/** The response headers a page on another origin may read: the limits' and the validator (docs/api.md#headers). */
export const EXPOSED_HEADERS =
  'retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-ratelimit-throws-limit, x-ratelimit-throws-remaining, x-ratelimit-throws-reset, x-ratelimit-stats-limit, x-ratelimit-stats-remaining, x-ratelimit-stats-reset, etag';

const INDEX_LINKS = {
  openapi: '/openapi.json',
  health: '/v1/health',
  docs: '/docs',
  mcp: MCP_PATH,
} as const;

/**
 * The server's timeouts: a request (headers and body) must arrive within REQUEST_TIMEOUT_MS and
 * its headers within HEADERS_TIMEOUT_MS; node checks both every `connectionsCheckingInterval`.
 * No socket timeout (fastify's `connectionTimeout`): an answer its client stopped reading is cut
 * by the connection cap's sweep instead (src/http/connections.ts). Exported for the bench's
 * reference server, which must time out alike.
 */
export function timeoutOptions(config: Config): FastifyHttpOptions<Server> {
  return {
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(config.headersTimeoutMs),
    },
  };
}

export async function buildApp(config: Config, seams: AppSeams = {}): Promise<FastifyInstance> {
  const bodyLimit = config.bodyLimitBytes;
  const log = seams.logger ?? serviceLogger(config.logLevel, seams.logStream);
  const app = Fastify({
    // No `logger`: with one, fastify adds listeners and reads the clock on every response for
    // per-request lines that are off anyway. Every line goes to `log` instead: request.log is a
    // child of it (below), and what fastify would log itself is logged by us (the listening
    // address in src/server.ts); `app.log` writes nowhere (docs/performance.md#logging-off-the-request-path).
    // Per-request log lines cost more than a roll; errors and deprecations are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log makes its pino child of `log` (with the request id) only when a request logs.
    childLoggerFactory: requestLoggerFactoryOf(log),
    bodyLimit,
    ...timeoutOptions(config),
    // While draining on shutdown, a request arriving on a kept-alive connection is served (with
    // `connection: close`) instead of fastify's default 503, whose body is not our error envelope.
    return503OnClosing: false,
    // A hop count as the function proxy-addr would build from it (fastify's types omit numbers).
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    // What node's HTTP parser refuses never reaches a route: answered in the envelope too.
    clientErrorHandler: answerClientError,
    // A malformed URL (`/v1/roll%`) never reaches the error handler.
    frameworkErrors: (error, request, reply) => {
      reply.header('access-control-allow-origin', '*').header('x-content-type-options', 'nosniff');
      replyWithError(request, reply, error, bodyLimit);
    },
  });

  const guard = capConnections(app.server, config);
  if (config.trustProxy === true) {
    log.warn(
      {},
      'TRUST_PROXY=true trusts every X-Forwarded-For entry, which any client can forge to get a fresh rate limit: set the hop count (TRUST_PROXY=1) or the proxy addresses instead',
    );
  }

  // Only JSON bodies: text/plain would otherwise be parsed and reach the schemas as a string.
  app.removeContentTypeParser('text/plain');

  // Every limit counts a request under its address's key, computed once per request.
  const keyOf = requestKeys(app, config.ipv6PrefixLength);
  const { count, shared } = await registerRateLimit(app, config, log, keyOf, guard);
  // Bodies are read as they arrive: a compressed one would only ever fail as bad JSON.
  const unsupportedEncoding = new RequestError(MESSAGES.unsupportedEncoding);
  const refuseEncoding = (request: FastifyRequest, reply: FastifyReply) =>
    replyWithError(request, reply, unsupportedEncoding, bodyLimit);
  // One root onRequest hook for what every request meets first, in this order: the CORS and
  // nosniff headers (a preflight is answered here, uncounted), the rate limit's count (its
  // 429), then the refusal of a compressed body. One hook instead of three: fastify's hook
  // chain costs something per hook and per request (docs/performance.md#one-root-onrequest-hook).
  app.addHook('onRequest', function admit(request, reply, done) {
    reply
      .header('access-control-allow-origin', '*')
      .header('access-control-expose-headers', EXPOSED_HEADERS)
      .header('x-content-type-options', 'nosniff');
    if (request.method === 'OPTIONS') {
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header(
          'access-control-allow-headers',
          request.headers['access-control-request-headers'] ?? 'content-type',
        )
        .header('access-control-max-age', '86400')
        .send();
      return;
    }
    const encoding = request.headers['content-encoding'];
    if (encoding === undefined || encoding.trim().toLowerCase() === 'identity') {
      count(request, reply, done);
      return;
    }
    count(request, reply, (error) => (error === undefined ? refuseEncoding(request, reply) : done(error)));
  });
  // During a shutdown, past its grace, the process exits before starting another request's work;
  // otherwise it starts when its address's turn comes (src/http/turns.ts).
  const takeTurn = fairTurns(TURN_BUDGET_MS, undefined, exitIfPastGrace);
  app.addHook('preHandler', (request, _reply, done) => {
    exitIfPastGrace();
    takeTurn(keyOf(request), done);
  });

  app.setErrorHandler((error, request, reply) => replyWithError(request, reply, error, bodyLimit));
  const notFound = new DiceError('not_found', MESSAGES.notFound);
  app.setNotFoundHandler((request, reply) => replyWithError(request, reply, notFound, bodyLimit));

  const random = seams.random ?? cryptoRandom;
  const trust = seams.trust ?? (await Trust.fromConfig(config, log));
  if (seams.trust === undefined) app.addHook('onClose', () => trust.close());
  // Its worker threads start on the first /v1/stats request and stop with the app.
  const stats = seams.stats ?? new StatsService({ dicePerRoll: config.dicePerRoll });
  app.addHook('onClose', () => stats.close());
  // Every roll of an address draws on its throws budget (docs/operations.md#what-one-address-can-cost).
  const throwBuckets = new ThrowBuckets({
    burst: config.throwsBurst,
    perSecond: config.throwsPerSecond,
    addresses: LIMITS.rateLimitAddresses,
    // With REDIS_URL, shared by every instance through the request limit's connection.
    shared,
  });
  // Every uncached distribution of an address draws on its share of the stats workers' time.
  const statsBudget = new StatsBudget({
    burstMs: config.statsBurstMs,
    msPerSecond: config.statsMsPerSecond,
    addresses: LIMITS.rateLimitAddresses,
  });
  const contextOf = (request: FastifyRequest, reply?: FastifyReply): DiceContext => {
    // The request limit's key: an IPv4 address as it is, an IPv6 one by its prefix.
    const key = keyOf(request);
    return {
      log: request.log,
      random,
      dicePerRoll: config.dicePerRoll,
      dicePerBatch: config.dicePerBatch,
      stats,
      throwsPerRequest: config.throwsPerRequest,
      throwMeter: throwBuckets.meter(key, reply),
      statsMeter: statsBudget.meter(key, reply),
      trust,
      address: request.ip,
    };
  };

  // A stream, not an operation: a hand-written route beside the table's.
  registerTableEvents(app, {
    trust,
    replyWithError: (request, reply, error) => replyWithError(request, reply, error, bodyLimit),
  });

  const operations = seams.operations ?? OPERATIONS;
  // The service's router is built once at import; only a test's own table builds another.
  const router = seams.operations === undefined ? appRouter : (routerOf(operations) as unknown as AppRouter);
  registerRestRoutes(app, operations, {
    contextOf,
    bodyLimitBytes: bodyLimit,
    checkOutputs: config.checkOutputs,
  });
  await registerMcpRoute(app, operations, {
    contextOf,
    bodyLimitBytes: bodyLimit,
    trustProxy: config.trustProxy,
  });

  const openapi = JSON.stringify(buildOpenApiDocument(router, operations, bodyLimit));
  app.get('/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi));

  await app.register(docsPlugin, {
    openapiUrl: INDEX_LINKS.openapi,
    routePrefix: INDEX_LINKS.docs,
    assetsPerWindow: LIMITS.docsAssetsPerWindow,
  });

  const index = JSON.stringify({ name: PACKAGE_NAME, version: VERSION, links: INDEX_LINKS });
  await registerPage(
    app,
    log,
    index,
    seams.page === undefined ? loadBuiltPage() : (seams.page ?? undefined),
    LIMITS.docsAssetsPerWindow,
  );

  // Its own scope: the tRPC plugin replaces the JSON parser, which must not leak onto REST routes.
  await app.register(async (scope) => {
    await scope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router,
        // One call per HTTP request: a batched call would roll many times (and throw many
        // budgets of dice) for one counted request, getting round the rate limit and the
        // batch dice budget. `batch` is the procedure for several rolls at once.
        allowBatching: false,
        createContext: ({ req, res }) => contextOf(req, res),
        onError({ error, req }) {
          if (needsLogging(fromTrpcError(error))) req.log.error({ err: error }, 'tRPC call failed');
        },
        // An error that says when to retry (a spent budget's 429, a busy stats pool's 503) says it
        // in retry-after too, as on REST (src/http/errors.ts).
        responseMeta({ errors }) {
          const known = errors[0] === undefined ? undefined : fromTrpcError(errors[0]);
          const seconds = (known as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
          return typeof seconds === 'number' ? { headers: { 'retry-after': String(seconds) } } : {};
        },
      } satisfies FastifyTRPCPluginOptions<AppRouter>['trpcOptions'],
    });
  });

  await app.ready();
  // Not listening before Redis answers (or the start-up wait is over): a replacement worker would
  // otherwise count its first requests in an empty local store.
  await shared?.whenReady(config.redisStartupWaitMs);
  return app;
}
