// The fastify application, composed of plugins, one concern per file: first what every request
// meets, in this order (CORS and the preflight answer, the rate limit, the body rules, the fair
// turn, the one error envelope), then the operations' context, then the routes (the REST routes
// of the operation table, the table event stream, /mcp, /openapi.json, /docs, the page at /, and
// tRPC). It never listens: tests drive it with inject or a real port; src/server.ts serves it.

// First, before anything calls process.nextTick (src/tick-maps.ts).
import '../tick-maps.js';
import type { Server } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyInstance,
  LogController,
} from 'fastify';
import type { DestinationStream } from 'pino';
import { OPERATIONS, type Operation } from '../api/operations.js';
import { type AppRouter, appRouter, routerOf } from '../api/router.js';
import type { StatsService } from '../api/stats-service.js';
import type { Config } from '../config.js';
import { LIMITS } from '../limits.js';
import type { ServiceMetrics } from '../metrics.js';
import type { RandomSource } from '../roll/types.js';
import type { Trust } from '../trust/service.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import {
  capConnections,
  checkingIntervalMs,
  closeConnectionsWhenClosing,
  requestKeys,
} from './connections.js';
import { corsPlugin } from './cors.js';
import { diceContextPlugin } from './dice-context.js';
import { discordPlugin } from './discord.js';
import { docsPlugin } from './docs.js';
import { answerClientError, errorHandlingPlugin, replyWithError } from './errors.js';
import { MCP_PATH, mcpPlugin } from './mcp.js';
import { metricsPlugin } from './metrics.js';
import { openApiPlugin } from './openapi.js';
import { type BuiltPage, loadPage, pagePlugin } from './page.js';
import { rateLimitPlugin } from './rate-limit.js';
import { type BuiltReference, loadReference } from './reference.js';
import { requestBodyPlugin } from './request-body.js';
import { requestLoggerFactoryOf, serviceLogger } from './request-log.js';
import { restRoutesPlugin } from './routes.js';
import { tableEventsPlugin } from './table-events.js';
import { trpcPlugin } from './trpc.js';
import { fairTurnsPlugin, type TakeTurn } from './turns.js';

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
  /** The reference served at /docs/<name> (default: the one built into dist/reference); null: none. */
  reference?: BuiltReference | null;
  /** Receipts and tables (default: from the configuration, closed with the app). */
  trust?: Trust;
  /** The /v1/stats workers (default: one thread, closed with the app); a test sizes its queue. */
  stats?: StatsService;
  /** The fair turns (default: src/http/turns.ts `fairTurns`); a test records whose turn each request took. */
  takeTurn?: TakeTurn;
  /** What the app counts into (src/metrics.ts); src/server.ts passes them when METRICS_PORT is set. Absent: nothing counted. */
  metrics?: ServiceMetrics;
}

// Read once per process, like /docs' assets: tests build many apps.
let builtPage: { page: BuiltPage | undefined } | undefined;
const loadBuiltPage = (): BuiltPage | undefined => {
  builtPage ??= { page: loadPage() };
  return builtPage.page;
};

let builtReference: { reference: BuiltReference | undefined } | undefined;
const loadBuiltReference = (): BuiltReference | undefined => {
  builtReference ??= { reference: loadReference() };
  return builtReference.reference;
};

const INDEX_LINKS = {
  openapi: '/openapi.json',
  health: '/v1/health',
  docs: '/docs',
  language: '/docs/language',
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

/** The fastify server's own options: logging, limits, timeouts, proxies and what never reaches a route. */
function serverOptions(config: Config, log: FastifyBaseLogger): FastifyHttpOptions<Server> {
  const bodyLimit = config.bodyLimitBytes;
  return {
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
    // A malformed URL (`/v1/roll%`) never reaches a hook or the error handler.
    frameworkErrors: (error, request, reply) => {
      reply.header('access-control-allow-origin', '*').header('x-content-type-options', 'nosniff');
      replyWithError(request, reply, error, bodyLimit);
    },
  };
}

export async function buildApp(config: Config, seams: AppSeams = {}): Promise<FastifyInstance> {
  const bodyLimitBytes = config.bodyLimitBytes;
  const log = seams.logger ?? serviceLogger(config.logLevel, seams.logStream);
  const app = Fastify(serverOptions(config, log));
  if (config.trustProxy === true) {
    log.warn(
      {},
      'TRUST_PROXY=true trusts every X-Forwarded-For entry, which any client can forge to get a fresh rate limit: set the hop count (TRUST_PROXY=1) or the proxy addresses instead',
    );
  }
  // Connections are capped per address before a byte is read; every limit counts a request
  // under its address's key, computed once per request (src/http/connections.ts).
  const { metrics } = seams;
  const guard = capConnections(app.server, config, metrics && ((kind) => metrics.refused(kind)));
  const keyOf = requestKeys(app, config.ipv6PrefixLength);
  closeConnectionsWhenClosing(app, guard);

  // Every answer counted (with metrics on), and the readiness of what the app holds.
  await app.register(metricsPlugin, { metrics });
  // What every request meets first, in this order (each plugin's hooks run in registration order).
  await app.register(corsPlugin);
  await app.register(rateLimitPlugin, {
    max: config.rateLimitMax,
    windowMs: config.rateLimitWindowMs,
    redisUrl: config.redisUrl,
    log,
    keyOf,
    guard,
  });
  await app.register(requestBodyPlugin, { bodyLimitBytes });
  await app.register(fairTurnsPlugin, { keyOf, takeTurn: seams.takeTurn });
  await app.register(errorHandlingPlugin, { bodyLimitBytes });

  // What the operations run with.
  await app.register(diceContextPlugin, {
    config,
    log,
    keyOf,
    random: seams.random,
    trust: seams.trust,
    stats: seams.stats,
  });

  // The routes.
  const operations = seams.operations ?? OPERATIONS;
  // The service's router is built once at import; only a test's own table builds another.
  const router = seams.operations === undefined ? appRouter : (routerOf(operations) as unknown as AppRouter);
  await app.register(restRoutesPlugin, { operations, bodyLimitBytes, checkOutputs: config.checkOutputs });
  // A stream, not an operation: a hand-written route beside the table's.
  await app.register(tableEventsPlugin, { bodyLimitBytes });
  await app.register(mcpPlugin, {
    operations,
    bodyLimitBytes,
    trustProxy: config.trustProxy,
    docsPath: INDEX_LINKS.docs,
  });
  await app.register(discordPlugin, { config });
  await app.register(openApiPlugin, { url: INDEX_LINKS.openapi, router, operations, bodyLimitBytes });
  await app.register(docsPlugin, {
    openapiUrl: INDEX_LINKS.openapi,
    routePrefix: INDEX_LINKS.docs,
    assetsPerWindow: LIMITS.docsAssetsPerWindow,
    reference: seams.reference === undefined ? loadBuiltReference() : (seams.reference ?? undefined),
    referencePagesPerWindow: LIMITS.referencePagesPerWindow,
  });
  await app.register(pagePlugin, {
    log,
    index: JSON.stringify({ name: PACKAGE_NAME, version: VERSION, links: INDEX_LINKS }),
    page: seams.page === undefined ? loadBuiltPage() : (seams.page ?? undefined),
    assetsPerWindow: LIMITS.docsAssetsPerWindow,
  });
  await app.register(trpcPlugin, { router });

  await app.ready();
  // Not listening before Redis answers (or the start-up wait is over): a replacement worker would
  // otherwise count its first requests in an empty local store.
  await app.rateLimit.shared?.whenReady(config.redisStartupWaitMs);
  return app;
}
