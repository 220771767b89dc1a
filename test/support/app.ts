// Shared pieces of the HTTP tests: an app with test limits, shared random sources, a log
// collector, a loopback listener, and the envelope check every error response must pass.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Config, defaultConfig } from '../../src/config.js';
import { type AppSeams, buildApp } from '../../src/http/app.js';
import { type RedisServer, startRedis } from './redis.js';
import { maxSource } from './sources.js';

export interface LogLine {
  level: number;
  msg?: string;
  reqId?: string;
  [key: string]: unknown;
}

/** A pino destination that keeps every line, parsed. */
export function logCollector(): { lines: LogLine[]; write(line: string): void } {
  const lines: LogLine[] = [];
  return {
    lines,
    write(line: string) {
      lines.push(JSON.parse(line) as LogLine);
    },
  };
}

/** Listens on a free loopback port; resolves with the base URL, http://127.0.0.1:PORT. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** An app with a rate limit high enough not to interfere, unless a test sets its own. */
export function makeApp(overrides: Partial<Config> = {}, seams: AppSeams = {}): Promise<FastifyInstance> {
  return buildApp(defaultConfig({ rateLimitMax: 10_000, logLevel: 'warn', ...overrides }), {
    random: maxSource(),
    logStream: logCollector(),
    ...seams,
  });
}

/** Two instances of one service sharing one real redis-server; set before the suite's tests. */
export interface TwoApps {
  redis: RedisServer;
  a: FastifyInstance;
  b: FastifyInstance;
}

/**
 * Starts a redis-server and two apps on it (with `overrides`, `seams`) before the suite, and
 * closes them after: two instances behind one proxy, as docs/operations.md runs them.
 */
export function twoAppsOnOneRedis(
  executable: string,
  overrides: Partial<Config> = {},
  seams: AppSeams = {},
): TwoApps {
  const apps = {} as TwoApps;
  beforeAll(async () => {
    apps.redis = await startRedis(executable);
    const config = { ...overrides, redisUrl: apps.redis.url };
    apps.a = await makeApp(config, seams);
    apps.b = await makeApp(config, seams);
  });
  afterAll(async () => {
    await apps.a?.close();
    await apps.b?.close();
    await apps.redis?.stop();
  });
  return apps;
}

/** Asserts the exact envelope, the status and the code, and that the message is safe for a page. */
export function expectError(response: LightMyRequestResponse, status: number, code: string): string {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expectSafeMessage(body.error.message);
  return body.error.message;
}

/** No markup, no stack trace, no library text. */
function expectSafeMessage(message: string): void {
  expect(message).not.toMatch(/[<>]/);
  expect(message).not.toMatch(/\bat .+:\d+:\d+/);
  expect(message).not.toMatch(/zod|Invalid input|Unexpected token|FST_|TRPC|SyntaxError|stack/i);
}

/** An MCP `tools/call` of `name` over POST /mcp, as a client would send it; its JSON-RPC result. */
export async function callToolOverHttp(
  app: FastifyInstance,
  name: string,
  args: Record<string, unknown>,
): Promise<{ statusCode: number; result: { isError: boolean; content: { text: string }[] } }> {
  const answer = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  return { statusCode: answer.statusCode, result: answer.json().result };
}
