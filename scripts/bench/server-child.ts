// One reference server under load (fairdice itself runs as its own dist/server.js: ./service.ts),
// in its own process so the load generator never shares its event loop. Started by the bench with
// the server kind as argument; talks to the parent over the IPC channel.
import Fastify, { type FastifyInstance } from 'fastify';
import { fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import type { DiceContext } from '../../dist/api/operations.js';
import { appRouter } from '../../dist/api/router.js';
import { StatsService } from '../../dist/api/stats-service.js';
import { loadConfig } from '../../dist/config.js';
import { timeoutOptions } from '../../dist/http/app.js';
import { EXPOSED_HEADERS } from '../../dist/http/cors.js';
import { cryptoRandom, LIMITS, roll } from '../../dist/index.js';
import { BARE_REPLY, CHILD_KINDS, type ChildKind } from './workloads.js';

export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'cpu'; userMicros: number; systemMicros: number }
  | { type: 'failed'; message: string };
export type ParentMessage = { type: 'cpu' } | { type: 'shutdown' };

async function buildBareFastify(): Promise<FastifyInstance> {
  // Fastify's defaults (no logger, no plugins): the ceiling any fastify route can reach here.
  const app = Fastify();
  app.get('/v1/roll', async () => BARE_REPLY);
  return app;
}

/**
 * The bare route answering what fairdice answers to GET /v1/roll?formula=1d20: one real roll's
 * JSON (rolled once, at start), the headers every fairdice answer carries (CORS, nosniff, the rate
 * limit's three and the throws budget's three, with fairdice's default limits), on a server with
 * fairdice's default timeouts (the request, headers and keep-alive timeouts). No hook, no plugin,
 * no validation, no roll.
 */
async function buildBareFastifySameAnswer(): Promise<FastifyInstance> {
  const config = loadConfig({});
  const app = Fastify(timeoutOptions(config));
  const answer = roll({ formula: '1d20' }, { random: cryptoRandom });
  const headers = {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': EXPOSED_HEADERS,
    'x-content-type-options': 'nosniff',
    'x-ratelimit-limit': String(config.rateLimitMax),
    'x-ratelimit-remaining': String(config.rateLimitMax - 1),
    'x-ratelimit-reset': String(Math.ceil(config.rateLimitWindowMs / 1000)),
    // The throws budget's, after a 1d20 (docs/operations.md#what-one-address-can-cost).
    'x-ratelimit-throws-limit': String(config.throwsBurst),
    'x-ratelimit-throws-remaining': String(config.throwsBurst - 1),
    'x-ratelimit-throws-reset': '1',
  };
  app.get('/v1/roll', async (_request, reply) => {
    reply.headers(headers);
    return answer;
  });
  return app;
}

/**
 * The same router behind trpc-to-openapi's own fastify adapter, with nothing else registered (no
 * rate limit, CORS or logger): whatever it loses to fairdice is the adapter's own cost.
 */
async function buildTrpcToOpenapi(): Promise<FastifyInstance> {
  const app = Fastify();
  const context: DiceContext = {
    log: { warn() {} },
    random: cryptoRandom,
    dicePerRoll: LIMITS.dicePerRoll,
    dicePerBatch: LIMITS.dicePerBatch,
    // Its worker pool starts only if /v1/stats is asked for (the bench does not).
    stats: new StatsService(),
  };
  await app.register(fastifyTRPCOpenApiPlugin, { router: appRouter, createContext: () => context });
  return app;
}

async function build(kind: ChildKind): Promise<FastifyInstance> {
  switch (kind) {
    case 'bareFastify':
      return buildBareFastify();
    case 'bareFastifySameAnswer':
      return buildBareFastifySameAnswer();
    case 'trpcToOpenapi':
      return buildTrpcToOpenapi();
  }
}

function send(message: ChildMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const kind = process.argv[2] as ChildKind;
  if (!CHILD_KINDS.includes(kind)) throw new Error(`unknown server kind: ${String(kind)}`);
  if (!process.send) throw new Error('server-child runs under the bench, with an IPC channel');
  const app = await build(kind);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');

  process.on('message', (message: ParentMessage) => {
    if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', userMicros: usage.user, systemMicros: usage.system });
    } else if (message.type === 'shutdown') {
      // A normal exit, so that --cpu-prof writes its profile.
      void app.close().finally(() => process.exit(0));
    }
  });
  // The parent died: do not outlive it.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', port: address.port });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100);
});
