// tRPC's TanStack Query integration (@trpc/tanstack-react-query, from the example app's install)
// driven without a browser: its query and mutation options call the service through a
// @fairdice/client client, although the integration brings its own, older copy of @trpc/client.
// The same integration inside React runs in test/examples/react-app.browser.test.ts.
import { QueryClient } from '@tanstack/react-query';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppRouter, createDiceClient, isDiceError } from '../../packages/client/src/index.js';
import { listen, makeApp } from '../support/app.js';

let app: FastifyInstance;
let origin: string;

beforeAll(async () => {
  app = await makeApp();
  origin = await listen(app);
});

afterAll(async () => {
  await app?.close();
});

describe('@trpc/tanstack-react-query with @fairdice/client', () => {
  it('fetches a query, runs a mutation and reports a refused call as a DiceError', async () => {
    const integration = await import(
      '../../examples/react-app/node_modules/@trpc/tanstack-react-query/dist/index.mjs'
    );
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    // Its typings come from its own copy of tRPC; the client is the same object at run time.
    const trpc = integration.createTRPCOptionsProxy<AppRouter>({
      client: createDiceClient(origin) as never,
      queryClient,
    });

    const roll = await queryClient.fetchQuery(trpc.roll.queryOptions({ formula: '2d6+3' }));
    expect(roll.total).toBe(15);
    expect(queryClient.getQueryData(trpc.roll.queryKey({ formula: '2d6+3' }))).toEqual(roll);

    const options = trpc.rollWith.mutationOptions();
    const rolled = await options.mutationFn?.({ formula: '4d6kh3' }, undefined as never);
    expect(rolled?.dice[0]?.keptFlags.filter(Boolean)).toHaveLength(3);

    const failure: unknown = await queryClient
      .fetchQuery(trpc.roll.queryOptions({ formula: '2d' }))
      .catch((error: unknown) => error);
    expect(isDiceError(failure)).toBe(true);
    expect(isDiceError(failure) && failure.data.api.code).toBe('invalid_formula');
  });
});
