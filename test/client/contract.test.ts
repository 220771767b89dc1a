// @fairdice/client writes its procedure table and the service's request types out by hand so that
// a front end needs no server package (the answers' types are inferred from the schemas both
// share); these checks hold them to the server's own procedures. The type assertions are
// checked by `npm run typecheck` (tsc over test/), the value ones by vitest. When the service
// gains a procedure or a request field, they fail until packages/client/src (AppRouter,
// DiceProcedures, types.ts) says the same.
import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as client from '../../packages/client/src/index.js';
import type { AppRouter as ServerRouter } from '../../src/api/router.js';
import type { ApiErrorCode as ServerApiErrorCode } from '../../src/errors.js';
import { ERROR_CODES } from '../../src/errors.js';
import { ADVANTAGE_STATES } from '../../src/roll/types.js';

type ClientRouter = client.AppRouter;

/** The same type with every readonly array made mutable (the client accepts readonly input). */
type Writable<T> = T extends readonly (infer Item)[]
  ? Writable<Item>[]
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;

type ServerInputs = inferRouterInputs<ServerRouter>;
type ClientInputs = inferRouterInputs<ClientRouter>;

describe('the client contract', () => {
  it('has exactly the procedures of the server, with the same inputs and outputs', () => {
    expectTypeOf<keyof ClientInputs>().toEqualTypeOf<keyof ServerInputs>();
    expectTypeOf<inferRouterOutputs<ClientRouter>>().toEqualTypeOf<inferRouterOutputs<ServerRouter>>();
    // Everything the server accepts, the client accepts, and nothing more but readonly arrays.
    expectTypeOf<ServerInputs>().toExtend<ClientInputs>();
    expectTypeOf<{ [K in keyof ClientInputs]: Writable<ClientInputs[K]> }>().toEqualTypeOf<{
      [K in keyof ServerInputs]: Writable<ServerInputs[K]>;
    }>();
    expectTypeOf<ClientInputs['rollWith']>().toEqualTypeOf<client.RollRequest>();
    expectTypeOf<inferRouterOutputs<ClientRouter>['roll']>().toEqualTypeOf<client.RollResponse>();
  });

  it("names every procedure's response on the client with the router's types", () => {
    type Procedures = client.DiceProcedures;
    type Call<K extends keyof Procedures> = Procedures[K] extends { query: infer F } | { mutate: infer F }
      ? F extends (...args: infer A) => Promise<infer R>
        ? { input: A[0]; output: R }
        : never
      : never;
    type Calls = { [K in keyof Procedures]: Call<K> };
    expectTypeOf<keyof Procedures>().toEqualTypeOf<keyof ServerInputs>();
    expectTypeOf<{ [K in keyof Calls]: Calls[K]['output'] }>().toEqualTypeOf<
      inferRouterOutputs<ServerRouter>
    >();
    expectTypeOf<{ [K in keyof Calls]: Exclude<Calls[K]['input'], undefined> }>().toEqualTypeOf<{
      // biome-ignore lint/suspicious/noConfusingVoidType: tRPC infers `void` for a procedure without input
      [K in keyof ClientInputs]: Exclude<ClientInputs[K], undefined | void>;
    }>();
    expectTypeOf<client.DiceClient>().toExtend<import('@trpc/client').TRPCClient<ClientRouter>>();
  });

  it('has the error vocabulary of the server', () => {
    expectTypeOf<client.ApiErrorCode>().toEqualTypeOf<ServerApiErrorCode>();
    expectTypeOf<inferRouterError<ServerRouter>>().toExtend<inferRouterError<ClientRouter>>();
    expect([...client.API_ERROR_CODES].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(client.ADVANTAGE_STATES).toEqual(ADVANTAGE_STATES);
  });

  it('accepts readonly arrays and `as const` values where the service takes arrays', () => {
    const tags = ['fire'] as const;
    const request = { formula: '1d8+3 fire', bonuses: [2, '1d4'], tags } as const;
    expectTypeOf(request).toExtend<ClientInputs['rollWith']>();
    const rolls: readonly client.RollRequest[] = [request];
    expectTypeOf({ rolls }).toExtend<ClientInputs['batch']>();
    // And refuses what the service refuses.
    expectTypeOf({ formula: '1d6', advantage: 'twice' }).not.toExtend<ClientInputs['roll']>();
    expectTypeOf({ formula: '1d6', bonuses: [true] }).not.toExtend<ClientInputs['rollWith']>();
    expect(request.tags).toBe(tags);
  });
});
