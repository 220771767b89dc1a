// The hosted MCP endpoint through the SDK's own client over a real socket: the tools listed
// from the operation table, rolls, errors as tool results (never exceptions), the language
// resource, and the per-address rate limit answered as a rate_limited tool result.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/limits.js';
import { LANGUAGE_URI, NOTATION } from '../../src/mcp/markers.js';
import { listen, makeApp } from '../support/app.js';
import { send } from '../support/http.js';
import { ALL_TOOLS, envelopeOf, textOf } from '../support/mcp-tables.js';
import { scripted } from '../support/sources.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(base: string): Promise<Client> {
  const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
  clients.push(client);
  return client;
}

describe('MCP over Streamable HTTP at /mcp', () => {
  let app: FastifyInstance;
  let base = '';
  // 6, 5, 2, 1 for 4d6kh3; then a d20 showing 20; then the rest for later rolls.
  const source = scripted([6, 5, 2, 1, 20, ...Array.from({ length: 200 }, (_, i) => (i % 6) + 1)]);
  beforeAll(async () => {
    app = await makeApp({}, { random: source });
    base = await listen(app);
  });
  afterAll(() => app.close());

  it('lists the marked operations as tools, each with schemas, annotations and its own description', async () => {
    const client = await connect(base);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(ALL_TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      expect(tool.annotations?.destructiveHint).toBe(false);
    }
    // The notation once, where rolling is described, with pools, Fate dice and groups; every other
    // tool taking a formula points to it and to the resource; the rest say nothing of formulas.
    const descriptions = Object.fromEntries(tools.map((tool) => [tool.name, tool.description ?? '']));
    expect(descriptions.roll).toContain(NOTATION);
    for (const form of ['NdS', '8d10>=8', '4dF', '{1d8!,1d6!}kh1', '{4d6+3d8}kh3', LANGUAGE_URI]) {
      expect(descriptions.roll).toContain(form);
    }
    for (const name of ['table_roll', 'roll_batch', 'stats']) {
      expect(descriptions[name]).toContain("the roll tool's description");
      expect(descriptions[name]).toContain(LANGUAGE_URI);
    }
    for (const name of ['table_create', 'table_log', 'table_report', 'verify_receipt']) {
      expect(descriptions[name]).not.toContain('Formulas');
    }
    // Short, and no sentence shared between two tools.
    const sentences = Object.values(descriptions).flatMap((text) => text.split(/(?<=\.)\s+/));
    const shared = sentences.filter((sentence, index) => sentences.indexOf(sentence) !== index);
    expect(new Set(shared)).toEqual(
      new Set([
        "Formulas as in the roll tool's description (success pools, Fate dice and groups included); the full reference is the resource fairdice://docs/language.md.",
      ]),
    );
    for (const [name, text] of Object.entries(descriptions)) {
      expect(text.length, name).toBeLessThanOrEqual(name === 'roll' ? 1000 : 500);
    }
    // One name for a table in every tool.
    const tableLog = tools.find((tool) => tool.name === 'table_log');
    expect(tableLog?.inputSchema.required).toEqual(['table']);
    expect(Object.keys(tableLog?.inputSchema.properties ?? {}).sort()).toEqual(['after', 'limit', 'table']);
    // Read-only: what changes nothing others can see. A table's log is changed by a roll at it,
    // by a batch item naming it, and a new table by its creation.
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
    expect(readOnly).toEqual(['roll', 'table_log', 'table_report', 'verify_receipt', 'stats']);
    const roll = tools.find((tool) => tool.name === 'roll');
    expect(roll?.inputSchema.required).toEqual(['formula']);
    expect(Object.keys(roll?.inputSchema.properties ?? {})).toEqual([
      'formula',
      'advantage',
      'bonuses',
      'tags',
      'receipt',
      'by',
      'note',
      'idempotencyKey',
    ]);
    expect(roll?.outputSchema?.required).toContain('total');
    // The same operation with `table` required and `receipt` left out (a table roll is always signed).
    const tableRoll = tools.find((tool) => tool.name === 'table_roll');
    expect(tableRoll?.inputSchema.required).toEqual(['formula', 'table']);
    expect(Object.keys(tableRoll?.inputSchema.properties ?? {})).toEqual([
      'formula',
      'advantage',
      'bonuses',
      'tags',
      'table',
      'by',
      'note',
      'idempotencyKey',
    ]);
    expect(tableRoll?.outputSchema).toEqual(roll?.outputSchema);
  });

  it('gives the exact odds: mean and percentiles in the line, the chance of a target, the REST answer as structuredContent', async () => {
    const client = await connect(base);
    const result = (await client.callTool({
      name: 'stats',
      arguments: { formula: '2d6', target: 10 },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      mean: number;
      meanExact: string;
      min: number;
      max: number;
    };
    expect(structured).toMatchObject({ min: 2, max: 12, mean: 7, meanExact: '7/1' });
    const [content] = result.content as { type: string; text: string }[];
    // 10, 11 or 12: 6 of 36 ways.
    expect(content?.text).toContain('2d6 → mean 7');
    expect(content?.text).toContain('at least 10: 16.67%');
  });

  it('takes versus and targets: the opposed roll in one quotable line, the exact answer as structuredContent', async () => {
    const client = await connect(base);
    const result = (await client.callTool({
      name: 'stats',
      arguments: { formula: '1d20+7', versus: { formula: '1d20+5' }, targets: [15] },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { versus: { greaterExact: string }; targets: unknown[] };
    expect(structured.versus.greaterExact).toBe('229/400');
    expect(structured.targets).toHaveLength(1);
    const [content] = result.content as { type: string; text: string }[];
    expect(content?.text).toMatch(/^1d20\+7 beats 1d20\+5: 57\.25%, ties 4\.50%/);
    expect(content?.text).toContain('at least 15: 65.00%, at most 15: 40.00%');
  });

  it('rolls: one line for the model, the REST response as structuredContent', async () => {
    const client = await connect(base);
    const result = (await client.callTool({
      name: 'roll',
      arguments: { formula: '4d6kh3+2' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('4d6kh3 [6 5 2 (1)] + 2 = 15');
    expect(result.structuredContent).toMatchObject({
      formula: '4d6kh3+2',
      total: 15,
      modifiers: [2],
      dice: [{ sides: 6, results: [6, 5, 2, 1], kept: [6, 5, 2], keptFlags: [true, true, true, false] }],
    });
    const d20 = (await client.callTool({ name: 'roll', arguments: { formula: 'd20+7' } })) as CallToolResult;
    expect(textOf(d20)).toBe('d20 [20 crit] + 7 = 27');
  });

  it('rolls a batch, one line per roll', async () => {
    const client = await connect(base);
    const result = (await client.callTool({
      name: 'roll_batch',
      arguments: { rolls: [{ formula: '1d6' }, { formula: '2d6+1' }] },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const lines = textOf(result).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^1d6 \[\d\] = \d$/);
    expect(lines[1]).toMatch(/^2d6 \[\d \d\] \+ 1 = \d+$/);
    expect((result.structuredContent as { rolls: unknown[] }).rolls).toHaveLength(2);
  });

  it('an invalid formula is a tool result with isError and invalid_formula with its column, not an exception', async () => {
    const client = await connect(base);
    const result = (await client.callTool({ name: 'roll', arguments: { formula: '2d' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result).split('\n')[0]).toMatch(/^The formula was refused/);
    const { error } = envelopeOf(result);
    expect(error.code).toBe('invalid_formula');
    expect(error.message).toMatch(/^formula, column 3: /);
  });

  it('arguments that break the schema are invalid_request with the REST message', async () => {
    const client = await connect(base);
    const missing = (await client.callTool({ name: 'roll', arguments: {} })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(envelopeOf(missing).error).toEqual({ code: 'invalid_request', message: 'formula is required.' });
    const tooMany = (await client.callTool({
      name: 'roll_batch',
      arguments: { rolls: [{ formula: '1000d6' }, { formula: '1d6' }] },
    })) as CallToolResult;
    expect(envelopeOf(tooMany).error.code).toBe('too_many_dice');
  });

  it('an unknown tool is a protocol error (the client could not have listed it)', async () => {
    const client = await connect(base);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('serves the language reference as a resource', async () => {
    const client = await connect(base);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([LANGUAGE_URI]);
    const { contents } = await client.readResource({ uri: LANGUAGE_URI });
    expect(contents[0]?.mimeType).toBe('text/markdown');
    const text = (contents[0] as { text: string }).text;
    // Over HTTP it names its own page, and its links to the other docs are pages of this service.
    expect(text.split('\n', 1)[0]).toBe(`> This reference is also a web page: ${base}/docs/language`);
    expect(text).toMatch(/\n# The formula language/);
    expect(text).not.toMatch(/\]\([a-z]+\.md/);
    const links = [...text.matchAll(/\]\((http[^)#]+)/g)]
      .map((match) => match[1]!)
      .filter((link) => link.startsWith(`${base}/docs/`));
    expect(links).toContain(`${base}/docs/api`);
    for (const link of new Set(links)) {
      const page = await send(base, { path: new URL(link).pathname, headers: { accept: 'text/html' } });
      expect(page.status, link).toBe(200);
    }
  });

  it('GET and DELETE answer 405 (stateless: no stream, no session); the index links /mcp', async () => {
    for (const method of ['GET', 'DELETE']) {
      const answer = await send(base, { method, path: '/mcp', headers: { accept: 'text/event-stream' } });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe('POST');
    }
    const index = await send(base, { path: '/' });
    expect(JSON.parse(index.body).links.mcp).toBe('/mcp');
    const openapi = await send(base, { path: '/openapi.json' });
    expect(JSON.parse(openapi.body).info.description).toContain('/mcp');
  });

  it('speaks Streamable HTTP: 202 for a notification, 406 without both Accept types, 400 for a bad message or version', async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      send(base, {
        method: 'POST',
        path: '/mcp',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        chunks: [JSON.stringify(body)],
      });
    const notified = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);
    expect(notified.body).toBe('');
    expect(
      (await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' })).status,
    ).toBe(406);
    expect((await post({ jsonrpc: '1.0', id: 1, method: 'ping' })).status).toBe(400);
    expect((await post({ jsonrpc: '2.0', id: null, method: 'ping' })).status).toBe(400);
    const version = await post(
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { 'mcp-protocol-version': '1999-01-01' },
    );
    expect(version.status).toBe(400);
    expect(JSON.parse(version.body).error.message).toMatch(/Unsupported protocol version/);
    const pong = await post(
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { 'mcp-protocol-version': '2025-06-18' },
    );
    expect(JSON.parse(pong.body)).toEqual({ jsonrpc: '2.0', id: 'a', result: {} });
  });

  it('requests in flight together with the same id each get their own answer', async () => {
    const call = (formula: string) =>
      send(base, {
        method: 'POST',
        path: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        chunks: [
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'roll', arguments: { formula } },
          }),
        ],
      });
    const formulas = ['1d20+100', '1d20+200', '1d20+300', '1d20+400', '1d20+500', '1d20+600'];
    const answers = await Promise.all(formulas.map(call));
    answers.forEach((answer, index) => {
      const body = JSON.parse(answer.body) as {
        id: number;
        result: { structuredContent: { formula: string } };
      };
      expect(body.id).toBe(1);
      expect(body.result.structuredContent.formula).toBe(formulas[index]);
    });
  });

  it('the body limit applies: a message over BODY_LIMIT_BYTES is 413 payload_too_large', async () => {
    const message = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'roll', arguments: { formula: '1d6', tags: ['a'.repeat(LIMITS.bodyBytes)] } },
    });
    const answer = await send(base, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      chunks: [message],
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
  });

  it('a JSON-RPC batch is refused: one charge, one message', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const body = JSON.stringify([message, { ...message, id: 2 }]);
    const answer = await send(base, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      chunks: [body],
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe(-32600);
  });
});

describe('DNS rebinding protection on /mcp', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const post = (base: string, host: string) =>
    send(base, {
      method: 'POST',
      path: '/mcp',
      headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      chunks: [initialize],
    });

  it('a loopback connection naming another host is refused; loopback names are served', async () => {
    const app = await makeApp();
    try {
      const base = await listen(app);
      const port = new URL(base).port;
      const refused = await post(base, `evil.example.com:${port}`);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.message).toMatch(/DNS rebinding/);
      expect((await post(base, `127.evil.example.com:${port}`)).status).toBe(403);
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        'localhost',
        `[::1]:${port}`,
        'LOCALHOST',
      ]) {
        expect((await post(base, host)).status, host).toBe(200);
      }
      // The REST routes are not concerned: they drive no tools.
      const rest = await send(base, { path: '/v1/health', headers: { host: 'evil.example.com' } });
      expect(rest.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('behind a declared proxy (TRUST_PROXY) any Host is served', async () => {
    const app = await makeApp({ trustProxy: true });
    try {
      const base = await listen(app);
      expect((await post(base, 'dice.example.com')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('the rate limit on /mcp', () => {
  let app: FastifyInstance;
  let base = '';
  const max = 5;
  beforeAll(async () => {
    app = await makeApp({ rateLimitMax: max, rateLimitWindowMs: 60_000 });
    base = await listen(app);
  });
  afterAll(() => app.close());

  it('a tool call over the limit is a rate_limited tool result naming the seconds; other messages get 429', async () => {
    // initialize, notifications/initialized and the client's GET for an event stream (405): 3.
    const client = await connect(base);
    const calls: CallToolResult[] = [];
    for (let i = 0; i < max; i++) {
      calls.push((await client.callTool({ name: 'roll', arguments: { formula: '1d6' } })) as CallToolResult);
    }
    // Requests 4 and 5 rolled; 6, 7 and 8 were over the limit.
    expect(calls.map((call) => call.isError === true)).toEqual([false, false, true, true, true]);
    const limited = calls[4]!;
    expect(limited.structuredContent).toBeUndefined();
    const { error } = envelopeOf(limited);
    expect(error.code).toBe('rate_limited');
    const seconds = Number(/retry in (\d+) seconds?/.exec(error.message)?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(textOf(limited)).toMatch(/^Too many calls from this address/);

    // The same address's budget as REST: a GET /v1/roll is refused too.
    const rest = await send(base, { path: '/v1/roll?formula=1d6' });
    expect(rest.status).toBe(429);
    // Not a tool call: the usual 429 and its envelope.
    const refused = await client.listTools().then(
      () => undefined,
      (error: unknown) => error as { code?: number; message: string },
    );
    expect(refused?.code).toBe(429);
    expect(refused?.message).toContain('"code":"rate_limited"');
  });

  it(`counts against the same budget as REST (${LIMITS.rateLimitMax} by default)`, async () => {
    const fresh = await makeApp({ rateLimitMax: 3, rateLimitWindowMs: 60_000 });
    const freshBase = await listen(fresh);
    try {
      for (let i = 0; i < 3; i++)
        expect((await send(freshBase, { path: '/v1/roll?formula=1d6' })).status).toBe(200);
      const answer = await send(freshBase, {
        method: 'POST',
        path: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        chunks: [
          JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'roll', arguments: { formula: '1d6' } },
          }),
        ],
      });
      expect(answer.status).toBe(200);
      const result = JSON.parse(answer.body).result as CallToolResult;
      expect(result.isError).toBe(true);
      expect(envelopeOf(result).error.code).toBe('rate_limited');
    } finally {
      await fresh.close();
    }
  });
});
