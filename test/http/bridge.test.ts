// The REST bridge runs a plain procedure from its own definition (input schema, resolver, output
// schema) and anything with a middleware of its own through the tRPC caller: both must answer,
// validate and fail exactly as tRPC would.
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DiceContext } from '../../src/api/trpc.js';
import { publicProcedure, router } from '../../src/api/trpc.js';
import { registerRestBridge } from '../../src/http/bridge.js';
import { maxSource } from '../helpers/sources.js';
import { expectError } from './helpers.js';

const context: DiceContext = {
  log: { warn() {} },
  random: maxSource(),
  dicePerRoll: 1000,
  dicePerBatch: 1000,
};

const meta = (path: `/${string}`) => ({ openapi: { method: 'GET' as const, path, protect: false } });
const WordInput = z.strictObject({ word: z.string().max(5) });
const WordOutput = z.strictObject({ word: z.string(), length: z.number().int() });

async function serve(procedures: Parameters<typeof router>[0]): Promise<FastifyInstance> {
  const app = Fastify();
  registerRestBridge(app, router(procedures), { contextOf: () => context, bodyLimitBytes: 8192 });
  await app.ready();
  return app;
}

describe('REST bridge', () => {
  it('runs a plain procedure with its input parsed, its context passed and its output checked', async () => {
    const seen: unknown[] = [];
    const app = await serve({
      measure: publicProcedure
        .meta(meta('/v1/measure'))
        .input(WordInput)
        .output(WordOutput)
        .query(({ input, ctx, path }) => {
          seen.push({ ctx: ctx === context, path });
          return { word: input.word, length: input.word.length };
        }),
      broken: publicProcedure
        .meta(meta('/v1/broken'))
        .input(WordInput)
        .output(WordOutput)
        // An output that breaks the procedure's own schema: a server fault, never a 200.
        .query(
          ({ input }) => ({ word: input.word, length: 'long' }) as unknown as z.infer<typeof WordOutput>,
        ),
    });
    try {
      const ok = await app.inject({ url: '/v1/measure?word=hello' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ word: 'hello', length: 5 });
      expect(seen).toEqual([{ ctx: true, path: 'measure' }]);
      expectError(await app.inject({ url: '/v1/measure?word=toolong' }), 400, 'invalid_request');
      expectError(await app.inject({ url: '/v1/measure?word=hi&extra=1' }), 400, 'invalid_request');
      expect(seen).toHaveLength(1);
      expectError(await app.inject({ url: '/v1/broken?word=hi' }), 500, 'internal_error');
    } finally {
      await app.close();
    }
  });

  it('calls a procedure with a middleware of its own through tRPC, so the middleware always runs', async () => {
    const guarded: string[] = [];
    const withGuard = publicProcedure.use(async ({ next, path }) => {
      guarded.push(path);
      if (path === 'refused') throw new Error('refused by the middleware');
      return next();
    });
    const app = await serve({
      allowed: withGuard
        .meta(meta('/v1/allowed'))
        .input(WordInput)
        .output(WordOutput)
        .query(({ input }) => ({ word: input.word, length: input.word.length })),
      refused: withGuard
        .meta(meta('/v1/refused'))
        .input(WordInput)
        .output(WordOutput)
        .query(({ input }) => ({ word: input.word, length: input.word.length })),
    });
    try {
      const ok = await app.inject({ url: '/v1/allowed?word=abc' });
      expect(ok.json()).toEqual({ word: 'abc', length: 3 });
      expectError(await app.inject({ url: '/v1/refused?word=abc' }), 500, 'internal_error');
      expect(guarded).toEqual(['allowed', 'refused']);
    } finally {
      await app.close();
    }
  });
});
