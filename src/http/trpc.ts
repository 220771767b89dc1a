// The tRPC endpoint at /trpc: the operations' procedures (src/api/router.ts), one call per HTTP
// request, each with the request's `app.diceContext`; errors in tRPC's shape with the service's
// codes (src/http/trpc-errors.ts), and retry-after where REST sends it too.
import type { AnyRouter } from '@trpc/server';
import { type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppRouter } from '../api/router.js';
import { fromTrpcError } from '../api/trpc.js';
import { needsLogging } from './errors.js';

export const TRPC_PREFIX = '/trpc';

export interface TrpcOptions {
  /** The service's router, or one built from a test's own table (src/api/router.ts `routerOf`). */
  router: AnyRouter;
}

async function trpc(app: FastifyInstance, options: TrpcOptions): Promise<void> {
  const contextOf = app.diceContext;
  // Its own scope (this plugin is encapsulated): the tRPC plugin replaces the JSON parser, which
  // must not leak onto the REST routes.
  await app.register(fastifyTRPCPlugin, {
    prefix: TRPC_PREFIX,
    trpcOptions: {
      router: options.router as AppRouter,
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
}

/** The tRPC endpoint, in a scope of its own. */
export const trpcPlugin = fp(trpc, {
  name: 'fairdice-trpc',
  fastify: '5.x',
  encapsulate: true,
  decorators: { fastify: ['diceContext'] },
});
