// Tools from an operation table and its markers (src/mcp/markers.ts): marking an operation is all
// it takes (and an unmarked one is not a tool); its schemas become self-contained JSON Schemas; a
// broken output or an unexpected exception is an internal_error tool result with the generic
// message, logged; a duplicated tool name, or a marker for no operation, stops start-up.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS } from '../../src/api/operations.js';
import { BatchRollRequestSchema } from '../../src/api/schemas.js';
import { StatsService } from '../../src/api/stats-service.js';
import { MESSAGES } from '../../src/errors.js';
import { TOOL_MARKERS } from '../../src/mcp/markers.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { type MarkerTable, toolJsonSchema, toolsOf } from '../../src/mcp/tools.js';
import { ALL_TOOLS, textOf } from '../support/mcp-tables.js';
import { entry } from '../support/operations.js';
import { maxSource } from '../support/sources.js';

const marker = (name: string) => ({
  name,
  title: 'Measure',
  description: 'Measures a word.',
  readOnly: true,
  idempotent: true,
  line: (output: unknown) =>
    `${(output as { word: string }).word} has ${(output as { length: number }).length} letters`,
});

/** The made-up operation's run, keeping every input it was given in `seen`. */
const measuring = (seen: unknown[]) => (input: unknown) => {
  seen.push(input);
  const { word } = input as { word: string };
  return { word, length: word.length };
};

const OPERATION_CONTEXT = {
  log: { warn() {} },
  random: maxSource(),
  dicePerRoll: 1000,
  dicePerBatch: 1000,
  stats: new StatsService({ dicePerRoll: 1000 }),
};

describe('tools from the operation table', () => {
  it('a marked entry is a tool, an unmarked one is not; errors and faults are tool results', async () => {
    const logged: Array<{ error: unknown; message: string }> = [];
    const operations = {
      ...OPERATIONS,
      measure: entry({}),
      unmarked: entry({ path: '/v1/unmarked' }),
      broken: entry({ path: '/v1/broken', run: () => ({ word: 'x', length: 'long' }) }),
      thrower: entry({
        path: '/v1/thrower',
        run: () => {
          throw new TypeError('x is undefined <script>');
        },
      }),
    };
    const markers: MarkerTable = {
      ...(TOOL_MARKERS as MarkerTable),
      measure: marker('measure'),
      broken: marker('broken'),
      thrower: marker('thrower'),
    };
    const ctx = {
      ...OPERATION_CONTEXT,
      logError: (error: unknown, message: string) => logged.push({ error, message }),
    };
    const server = createMcpServer({ settingOf: () => ({ ctx }), tools: toolsOf(operations, markers) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'fairdice-test', version: '1.0.0' });
    try {
      await client.connect(clientSide);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...ALL_TOOLS, 'measure', 'broken', 'thrower']);
      const measure = tools.find((tool) => tool.name === 'measure');
      expect(measure?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
      expect(measure?.inputSchema).toMatchObject({
        type: 'object',
        properties: { word: { type: 'string', maxLength: 5 } },
        required: ['word'],
        additionalProperties: false,
      });

      const ok = (await client.callTool({ name: 'measure', arguments: { word: 'hello' } })) as CallToolResult;
      expect(textOf(ok)).toBe('hello has 5 letters');
      expect(ok.structuredContent).toEqual({ word: 'hello', length: 5 });

      const long = (await client.callTool({
        name: 'measure',
        arguments: { word: 'toolong' },
      })) as CallToolResult;
      expect(long.isError).toBe(true);
      expect(textOf(long)).toContain(
        '{"error":{"code":"invalid_request","message":"word must be at most 5 characters long."}}',
      );

      expect(logged).toHaveLength(0);
      for (const name of ['broken', 'thrower']) {
        const failed = (await client.callTool({ name, arguments: { word: 'hi' } })) as CallToolResult;
        expect(failed.isError).toBe(true);
        expect(failed.structuredContent).toBeUndefined();
        expect(textOf(failed)).toContain(
          JSON.stringify({ error: { code: 'internal_error', message: MESSAGES.unexpected } }),
        );
        expect(textOf(failed)).not.toContain('script');
      }
      expect(logged).toHaveLength(2);
      expect(String(logged[1]?.error)).toContain('x is undefined');
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("a marker's extra arguments are validated and given to the line, never to the operation", async () => {
    const seen: unknown[] = [];
    const tools = toolsOf(
      {
        measure: entry({
          run: measuring(seen),
        }),
      },
      {
        measure: {
          ...marker('measure'),
          extraInput: { atLeast: z.number().int().optional() },
          line: (output: unknown, input: Record<string, unknown>) =>
            `${(output as { length: number }).length} letters, wanted ${String(input.atLeast)}`,
        },
      },
    );
    const tool = tools.get('measure')!;
    expect(Object.keys(tool.definition.inputSchema.properties ?? {})).toEqual(['word', 'atLeast']);
    const context = { ...OPERATION_CONTEXT, logError: () => undefined };
    const result = await tool.call({ word: 'dice', atLeast: 3 }, context);
    expect(textOf(result)).toBe('4 letters, wanted 3');
    expect(seen).toEqual([{ word: 'dice' }]);
    const refused = await tool.call({ word: 'dice', atLeast: 'many' }, context);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('atLeast must be a number.');
  });

  it('one entry, several tools: a marker may require optional fields and omit others', async () => {
    const Input = z.strictObject({
      word: z.string(),
      shout: z.boolean().optional(),
      times: z.number().optional(),
    });
    const seen: unknown[] = [];
    const tools = toolsOf(
      {
        measure: entry({
          input: Input,
          run: measuring(seen),
        }),
      },
      {
        measure: [
          { ...marker('measure'), omits: ['shout'] },
          { ...marker('measure_loud'), requires: ['shout'], omits: ['times'] },
        ],
      },
    );
    expect([...tools.keys()]).toEqual(['measure', 'measure_loud']);
    const quiet = tools.get('measure')!.definition.inputSchema;
    expect(Object.keys(quiet.properties ?? {})).toEqual(['word', 'times']);
    expect(quiet.required).toEqual(['word']);
    const loud = tools.get('measure_loud')!.definition.inputSchema;
    expect(Object.keys(loud.properties ?? {})).toEqual(['word', 'shout']);
    expect(loud.required).toEqual(['word', 'shout']);

    const context = { ...OPERATION_CONTEXT, logError: () => undefined };
    const missing = await tools.get('measure_loud')!.call({ word: 'dice' }, context);
    expect(textOf(missing)).toContain('"message":"shout is required."');
    const omitted = await tools.get('measure')!.call({ word: 'dice', shout: true }, context);
    expect(omitted.isError).toBe(true);
    expect(textOf(omitted)).toContain('"code":"invalid_request"');
    const ok = await tools.get('measure_loud')!.call({ word: 'dice', shout: true }, context);
    expect(ok.isError).toBeFalsy();
    // Only calls that passed the tool's own schema reached the operation.
    expect(seen).toEqual([{ word: 'dice', shout: true }]);
  });

  it('a marker naming a field its operation does not have, or no operation, stops start-up', () => {
    expect(() => toolsOf({ a: entry({}) }, { a: { ...marker('a'), requires: ['colour'] } })).toThrow(
      /The tool a names colour, which its operation's input does not have/,
    );
    expect(() => toolsOf({ a: entry({}) }, { a: { ...marker('a'), omits: ['colour'] } })).toThrow(/colour/);
    expect(() => toolsOf({ a: entry({}) }, { a: { ...marker('a'), renames: { hue: 'colour' } } })).toThrow(
      /renames colour to hue/,
    );
    expect(() => toolsOf({ a: entry({}) }, { b: marker('b') })).toThrow(/operation b, which does not exist/);
  });

  it('two entries naming the same tool stop start-up', () => {
    expect(() => toolsOf({ a: entry({}), b: entry({}) }, { a: marker('same'), b: marker('same') })).toThrow(
      /Operation b names the tool same, already taken/,
    );
    expect(() => toolsOf({ a: entry({}) }, { a: [marker('same'), marker('same')] })).toThrow(/already taken/);
  });

  it('a renamed field: the tool takes its own name, the operation gets its own, the old name is refused by name', async () => {
    const seen: unknown[] = [];
    const tools = toolsOf(
      {
        measure: entry({
          run: measuring(seen),
        }),
      },
      { measure: { ...marker('measure'), renames: { text: 'word' } } },
    );
    const tool = tools.get('measure')!;
    expect(tool.definition.inputSchema).toMatchObject({
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
    expect(Object.keys(tool.definition.inputSchema.properties ?? {})).toEqual(['text']);
    const context = { ...OPERATION_CONTEXT, logError: () => undefined };
    expect(textOf(await tool.call({ text: 'dice' }, context))).toBe('dice has 4 letters');
    expect(seen).toEqual([{ word: 'dice' }]);
    const old = await tool.call({ word: 'dice' }, context);
    expect(old.isError).toBe(true);
    expect(textOf(old)).toContain('"message":"Unknown field: word. The measure tool calls it text."');
    // Any other unknown field is the first thing said, before the fields missing.
    const other = await tool.call({ colour: 'red' }, context);
    expect(textOf(other)).toContain('"message":"Unknown field: colour. (1 more problem in this request.)"');
    expect(seen).toHaveLength(1);
  });

  it('named schema components are inlined: no $ref, the nested RollRequest fully described', () => {
    const schema = toolJsonSchema(BatchRollRequestSchema, 'input');
    expect(JSON.stringify(schema)).not.toContain('$ref');
    expect(schema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      required: ['rolls'],
      properties: {
        rolls: { type: 'array', maxItems: 20, items: { type: 'object', required: ['formula'] } },
      },
    });
  });
});
