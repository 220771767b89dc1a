// @fairdice/client against a listening server: where it sends calls (absolute and relative base
// URLs), the headers and fetch it is given, and the errors `isDiceError` recognises, including
// one made by another copy of @trpc/client.
import { TRPCClientError } from '@trpc/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AppRouter,
  createDiceClient,
  type DiceFetch,
  errorOf,
  isDiceError,
  trpcEndpointOf,
} from '../../packages/client/src/index.js';
import { listen, makeApp } from '../support/app.js';
import { freePort } from '../support/http.js';

let app: FastifyInstance;
let origin: string;

beforeAll(async () => {
  app = await makeApp();
  origin = await listen(app);
});

afterAll(async () => {
  await app?.close();
});

interface Sent {
  url: string;
  headers: Record<string, string>;
}

/** A fetch that records each call and sends it to the test server, resolving a relative URL there. */
function recordingFetch(sent: Sent[]): DiceFetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    sent.push({
      url,
      headers: Object.fromEntries(
        new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]).entries(),
      ),
    });
    const target = new URL(url.replace(/^\/api\//, '/'), origin);
    return fetch(target, init as RequestInit);
  };
}

describe('where the client sends its calls', () => {
  it('appends /trpc to the base, keeping a relative base relative', () => {
    expect(trpcEndpointOf('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000/trpc');
    expect(trpcEndpointOf('http://127.0.0.1:3000/')).toBe('http://127.0.0.1:3000/trpc');
    expect(trpcEndpointOf(new URL('https://dice.example/api/'))).toBe('https://dice.example/api/trpc');
    expect(trpcEndpointOf('/')).toBe('/trpc');
    expect(trpcEndpointOf('/api')).toBe('/api/trpc');
    expect(trpcEndpointOf('/api/')).toBe('/api/trpc');
  });

  it('takes a URL object', async () => {
    const dice = createDiceClient(new URL(origin));
    expect((await dice.health.query()).status).toBe('ok');
  });

  it("takes '/' and '/api' (same origin, dev proxy) and calls the fetch it is given", async () => {
    const sent: Sent[] = [];
    const root = createDiceClient({ url: '/', fetch: recordingFetch(sent) });
    const roll = await root.roll.query({ formula: '2d6+3' });
    expect(roll.total).toBe(15);
    const api = createDiceClient({ url: '/api', fetch: recordingFetch(sent) });
    expect((await api.rollWith.mutate({ formula: '1d4', bonuses: [1] as const })).total).toBe(5);
    expect(sent.map((call) => call.url.split('?')[0])).toEqual(['/trpc/roll', '/api/trpc/rollWith']);
  });

  it('sends the headers it is given, fixed or computed per call', async () => {
    const sent: Sent[] = [];
    const fixed = createDiceClient({
      url: origin,
      headers: { authorization: 'Bearer one' },
      fetch: recordingFetch(sent),
    });
    await fixed.health.query();
    let calls = 0;
    const computed = createDiceClient({
      url: origin,
      headers: async () => ({ 'x-call': String(++calls) }),
      fetch: recordingFetch(sent),
    });
    await computed.health.query();
    await computed.roll.query({ formula: '1d6' });
    expect(sent.map((call) => call.headers.authorization ?? call.headers['x-call'])).toEqual([
      'Bearer one',
      '1',
      '2',
    ]);
  });
});

describe('isDiceError', () => {
  it('recognises an API error and types its code', async () => {
    const dice = createDiceClient(origin);
    const failure: unknown = await dice.roll.query({ formula: '2d' }).catch((error: unknown) => error);
    expect(isDiceError(failure)).toBe(true);
    if (!isDiceError(failure)) return;
    expect(failure.data.api.code).toBe('invalid_formula');
    expect(failure.data.httpStatus).toBe(400);
    expect(failure.data.path).toBe('roll');
    expect(failure.message).toBe(failure.data.api.message);
    expect(errorOf(failure)).toEqual(failure.data.api);
    const budget: unknown = await dice.batch
      .mutate({ rolls: [{ formula: '600d6' }, { formula: '600d6' }] })
      .catch((error: unknown) => error);
    expect(errorOf(budget)?.code).toBe('too_many_dice');
  });

  it('says no to a network failure and to look-alikes without an API error', async () => {
    const closed = createDiceClient(`http://127.0.0.1:${await freePort()}`);
    const failure: unknown = await closed.health.query().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCClientError);
    expect(isDiceError(failure)).toBe(false);
    expect(errorOf(failure)).toBeUndefined();
    const lookalike = Object.assign(new Error('x'), {
      name: 'TRPCClientError',
      data: { api: { code: 'nope' } },
    });
    expect(isDiceError(lookalike)).toBe(false);
    expect(isDiceError({ name: 'TRPCClientError', data: { api: { code: 'not_found', message: 'm' } } })).toBe(
      false,
    );
  });

  it('holds for an error thrown by another copy of @trpc/client, where instanceof fails', async () => {
    // The example app's copy: the version @trpc/tanstack-react-query pins, older than the root's.
    const other = await import('../../examples/react-app/node_modules/@trpc/client/dist/index.mjs');
    expect(other.TRPCClientError).not.toBe(TRPCClientError);
    const dice = other.createTRPCClient<AppRouter>({ links: [other.httpLink({ url: `${origin}/trpc` })] });
    const failure: unknown = await dice.roll.query({ formula: '1d0' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(other.TRPCClientError);
    expect(failure instanceof TRPCClientError).toBe(false);
    expect(isDiceError(failure)).toBe(true);
    expect(errorOf(failure)?.code).toBe('invalid_formula');
  });
});
