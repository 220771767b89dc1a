// The REST routes built from an operation table: the input is validated by the operation's one
// schema, its context passed, its output checked; a path parameter joins the input; an
// asynchronous operation and its extra headers work; an unexpected exception is a logged 500.
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { DiceContext, Operation } from '../../src/api/operations.js';
import { StatsService } from '../../src/api/stats-service.js';
import { MESSAGES } from '../../src/errors.js';
import { restRoutesPlugin } from '../../src/http/routes.js';
import { expectError, type LogLine, logCollector } from '../support/app.js';
import { entry } from '../support/operations.js';
import { maxSource } from '../support/sources.js';

const context: DiceContext = {
  log: { warn() {} },
  random: maxSource(),
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  stats: new StatsService(),
};

async function serve(
  operations: Record<string, Operation>,
  checkOutputs?: boolean,
): Promise<{ app: FastifyInstance; lines: LogLine[] }> {
  const log = logCollector();
  const app = Fastify({ logger: { level: 'warn', stream: log } });
  // What src/http/dice-context.ts gives the app: every request's context.
  app.decorate('diceContext', () => context);
  await app.register(restRoutesPlugin, {
    operations,
    bodyLimitBytes: 8192,
    ...(checkOutputs === undefined ? {} : { checkOutputs }),
  });
  await app.ready();
  return { app, lines: log.lines };
}

describe('REST routes from the table', () => {
  it('runs an operation with its input parsed, its context passed and its output checked', async () => {
    const seen: unknown[] = [];
    const { app } = await serve({
      measure: entry({
        run: (input, ctx) => {
          seen.push(ctx === context);
          const { word } = input as { word: string };
          return { word, length: word.length };
        },
      }),
      // An output that breaks the operation's own schema: a server fault, never a 200.
      broken: entry({ path: '/v1/broken', run: () => ({ word: 'x', length: 'long' }) }),
    });
    try {
      const ok = await app.inject({ url: '/v1/measure?word=hello' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ word: 'hello', length: 5 });
      expect(seen).toEqual([true]);
      expectError(await app.inject({ url: '/v1/measure?word=toolong' }), 400, 'invalid_request');
      expectError(await app.inject({ url: '/v1/measure?word=hi&extra=1' }), 400, 'invalid_request');
      expect(seen).toHaveLength(1);
      expectError(await app.inject({ url: '/v1/broken?word=hi' }), 500, 'internal_error');
      expect(
        expectError(await app.inject({ method: 'PUT', url: '/v1/measure' }), 400, 'invalid_request'),
      ).toBe('/v1/measure answers GET only.');
    } finally {
      await app.close();
    }
  });

  it('without the output check (NODE_ENV=production), the answer is written by its schema alone', async () => {
    // A field the strict output schema does not have: a 500 when checked, left out when not.
    const extra = entry({ run: () => ({ word: 'x', length: 1, secret: 'leak' }) });
    const checked = await serve({ extra });
    const unchecked = await serve({ extra }, false);
    try {
      expectError(await checked.app.inject({ url: '/v1/measure?word=x' }), 500, 'internal_error');
      const sent = await unchecked.app.inject({ url: '/v1/measure?word=x' });
      expect(sent.statusCode).toBe(200);
      expect(sent.json()).toEqual({ word: 'x', length: 1 });
    } finally {
      await checked.app.close();
      await unchecked.app.close();
    }
  });

  it('an unexpected exception is a 500 internal_error with the generic message, logged with the request id', async () => {
    const { app, lines } = await serve({
      measure: entry({
        run: () => {
          throw new TypeError('x is undefined <script>');
        },
      }),
    });
    try {
      const failed = await app.inject({ url: '/v1/measure?word=hi' });
      expect(expectError(failed, 500, 'internal_error')).toBe(MESSAGES.unexpected);
      const logged = lines.filter((line) => line.level >= 50);
      expect(logged).toHaveLength(1);
      expect(typeof logged[0]?.reqId).toBe('string');
      expect(JSON.stringify(logged[0]?.err)).toContain('x is undefined');
    } finally {
      await app.close();
    }
  });

  it('awaits an asynchronous operation, merges a path parameter into the input and adds its headers', async () => {
    const { app, lines } = await serve({
      item: entry({
        kind: 'query',
        path: '/v1/items/{id}',
        input: z.strictObject({ id: z.string().regex(/^[a-z]+$/), word: z.string().optional() }),
        output: z.strictObject({ id: z.string(), word: z.string() }),
        run: async (input) => {
          const { id, word } = input as { id: string; word?: string };
          await new Promise((resolve) => setImmediate(resolve));
          if (id === 'gone') throw new Error('storage fell over');
          return { id, word: word ?? '-' };
        },
        headers: (output) => ({ etag: `"${(output as { id: string }).id}"` }),
      }),
    });
    try {
      const ok = await app.inject({ url: '/v1/items/abc?word=hi' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ id: 'abc', word: 'hi' });
      expect(ok.headers.etag).toBe('"abc"');
      expectError(await app.inject({ url: '/v1/items/ABC' }), 400, 'invalid_request');
      expect(expectError(await app.inject({ url: '/v1/items/gone' }), 500, 'internal_error')).toBe(
        MESSAGES.unexpected,
      );
      expect(lines.filter((line) => line.level >= 50)).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
