// MCP tools made from the operation table (docs/mcp.md): every operation carrying a `tool`
// marker becomes one tool whose input schema is the operation's zod input schema, whose
// `outputSchema` and `structuredContent` are its REST response, and whose text is one line for a
// model. Errors are tool results (`isError: true`) holding a sentence and the REST error
// envelope, never a protocol failure and never `structuredContent` (a stock client validates
// any structuredContent against outputSchema, error or not).
import type { CallToolResult, Tool as ToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseInput } from '../api/input.js';
import { type DiceContext, type Operation, operationList, type ToolMarker } from '../api/operations.js';
import { type ApiErrorCode, DiceError, unexpectedError } from '../errors.js';

/** The resource holding the language reference (docs/language.md), named in every description. */
export const LANGUAGE_URI = 'fairdice://docs/language.md';

/** The notation's basics, in every tool's description, so an agent's first formula is valid. */
export const NOTATION = [
  'Formulas: NdS throws N dice of S sides (d20, 3d6, d%); join dice and whole numbers with + and - (1d8+1d6+3).',
  'Modifiers follow a term with no space: kh3/kl1 keep highest/lowest, dl1/dh1 drop, 2d20adv/2d20dis, ! explodes, r1 rerolls 1s, x2 multiplies.',
  `Full reference: the resource ${LANGUAGE_URI}.`,
].join('\n');

/** Whatever a tool call's context needs to run an operation and log what nobody planned for. */
export interface ToolCallContext extends DiceContext {
  logError(error: unknown, message: string): void;
}

export interface McpTool {
  readonly name: string;
  /** What tools/list shows of the tool. */
  readonly definition: ToolDefinition;
  call(args: unknown, ctx: ToolCallContext): Promise<CallToolResult>;
}

type JsonSchema = Record<string, unknown>;

/** Replaces every `{"$ref":"#/definitions/X"}` by X itself (the schemas here have no cycles). */
function inlineRefs(
  node: unknown,
  definitions: Record<string, unknown>,
  inlining: ReadonlySet<string>,
  kept: Set<string>,
): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, definitions, inlining, kept));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/definitions/')) {
    const name = ref.slice('#/definitions/'.length);
    // A recursive component (the expression tree) cannot be inlined: it stays a reference to a
    // definition kept at the root.
    if (inlining.has(name)) {
      kept.add(name);
      return node;
    }
    const { $ref: _, ...rest } = node as Record<string, unknown>;
    const inner = new Set(inlining).add(name);
    const target = inlineRefs(definitions[name], definitions, inner, kept) as JsonSchema;
    return { ...target, ...(inlineRefs(rest, definitions, inlining, kept) as JsonSchema) };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, inlineRefs(value, definitions, inlining, kept)]),
  );
}

/**
 * A zod schema as the self-contained draft-07 JSON Schema MCP wants: `type: "object"` at the
 * root, no `$ref` (named components are inlined, as some clients do not resolve references)
 * except for a recursive component, which stays a `#/definitions/...` reference within it.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const {
    $schema,
    definitions = {},
    ...root
  } = z.toJSONSchema(schema, { target: 'draft-7', io }) as JsonSchema & {
    definitions?: Record<string, unknown>;
  };
  const kept = new Set<string>();
  const inlined = inlineRefs(root, definitions, new Set(), kept) as JsonSchema;
  if (kept.size === 0) return { $schema, ...inlined };
  // Each kept (recursive) definition, with everything but its own recursion inlined.
  const keptDefinitions: Record<string, unknown> = {};
  for (const name of kept) {
    keptDefinitions[name] = inlineRefs(definitions[name], definitions, new Set([name]), kept);
  }
  return { $schema, ...inlined, definitions: keptDefinitions };
}

const EMPTY_INPUT = z.strictObject({});

/** A sentence for the model in front of each error's envelope. */
const ADVICE: Record<ApiErrorCode, (tool: string) => string> = {
  invalid_formula: (tool) =>
    `The formula was refused; fix it at the column the message names and call ${tool} again (${LANGUAGE_URI} has the language).`,
  invalid_request: (tool) => `The arguments were refused; correct them and call ${tool} again.`,
  too_many_dice: (tool) => `That asks for more dice than allowed; call ${tool} again with fewer dice.`,
  rate_limited: (tool) =>
    `Too many calls from this address: wait the seconds the message names, then call ${tool} again.`,
  internal_error: (tool) => `fairdice could not roll this time; call ${tool} again.`,
  payload_too_large: (tool) => `The arguments are too large; call ${tool} with fewer or shorter items.`,
  not_found: (tool) => `fairdice has nothing by that name; check the arguments of ${tool}.`,
  too_complex: (tool) =>
    `The exact odds of that formula cost too much to compute; call ${tool} with fewer dice or a smaller depth.`,
  table_full: () => 'That table holds its maximum of rolls; create a new table for further rolls.',
  too_many_tables: () => 'Too many tables were created from this address this hour; reuse an existing table.',
  too_many_streams: () => 'Too many open event streams from this address; close one first.',
  unavailable: (tool) =>
    `fairdice cannot serve ${tool} right now: its table and receipt store is unreachable, or every worker computing odds is busy. Plain rolls still work; call ${tool} again in a few seconds.`,
};

/** An error as a tool result: a sentence, then the REST error envelope as JSON. */
export function toolError(tool: string, error: DiceError): CallToolResult {
  const text = `${ADVICE[error.code](tool)}\n${JSON.stringify(error.toBody())}`;
  return { content: [{ type: 'text', text }], isError: true };
}

/** The error of a call over the per-address limit, naming the seconds to wait. */
export const rateLimitedFor = (retryAfterSeconds: number): DiceError =>
  new DiceError(
    'rate_limited',
    `Too many requests from this address; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
  );

type Marker = ToolMarker<unknown, unknown>;

/** An answer outside the operation's own output schema is a fault of ours, as on REST. */
class OutputError extends Error {
  constructor(cause: unknown) {
    super('An operation answered outside its output schema', { cause });
    this.name = 'OutputError';
  }
}

/** A zod mask (`{ table: true }`) of the named fields, each checked to be one of the object's. */
function maskOf(input: z.ZodObject, names: readonly string[], marker: Marker): Record<string, true> {
  for (const name of names) {
    if (!(name in input.shape))
      throw new Error(`The tool ${marker.name} names ${name}, which its operation's input does not have.`);
  }
  return Object.fromEntries(names.map((name) => [name, true] as const));
}

/**
 * The tool's arguments: the operation's input object, less the fields the marker omits, with
 * the fields it requires no longer optional, plus its extra arguments. Whatever it accepts
 * (extras aside) the operation's input accepts too.
 */
function toolInputOf(operation: Operation, marker: Marker): z.ZodType {
  const input = operation.input ?? EMPTY_INPUT;
  const { extraInput, requires = [], omits = [] } = marker;
  if (extraInput === undefined && requires.length === 0 && omits.length === 0) return input;
  if (!(input instanceof z.ZodObject)) {
    throw new Error(
      `The tool ${marker.name} reshapes its arguments, so its operation's input must be an object.`,
    );
  }
  let shaped: z.ZodObject = input;
  if (omits.length > 0) shaped = shaped.omit(maskOf(input, omits, marker));
  if (requires.length > 0) shaped = shaped.required(maskOf(shaped, requires, marker));
  return extraInput === undefined ? shaped : shaped.extend(extraInput);
}

/** The arguments without the tool's own extras: what the operation runs on. */
function operationInputOf(parsed: unknown, marker: Marker): unknown {
  if (marker.extraInput === undefined) return parsed;
  const own = { ...(parsed as Record<string, unknown>) };
  for (const key of Object.keys(marker.extraInput)) delete own[key];
  return own;
}

function toolOf(operation: Operation, marker: Marker): McpTool {
  const input = toolInputOf(operation, marker);
  // Built on first use (the first tools/list): start-up does not pay for the JSON Schemas.
  let definition: ToolDefinition | undefined;
  const define = (): ToolDefinition => ({
    name: marker.name,
    title: marker.title,
    description: `${marker.description}\n${NOTATION}`,
    inputSchema: toolJsonSchema(input, 'input') as ToolDefinition['inputSchema'],
    outputSchema: toolJsonSchema(operation.output, 'output') as ToolDefinition['outputSchema'],
    annotations: {
      title: marker.title,
      readOnlyHint: marker.readOnly,
      destructiveHint: false,
      idempotentHint: marker.idempotent,
      openWorldHint: false,
    },
  });
  const run = operation.run as (input: unknown, ctx: DiceContext) => unknown;
  const line = marker.line as (output: unknown, input: unknown) => string;
  return {
    name: marker.name,
    get definition() {
      definition ??= define();
      return definition;
    },
    async call(args, ctx) {
      try {
        // The same validation, and the same invalid_request wording, as REST and tRPC.
        const parsed = await parseInput(input, { value: args ?? {} });
        const checked = operation.output.safeParse(await run(operationInputOf(parsed, marker), ctx));
        if (!checked.success) throw new OutputError(checked.error);
        return {
          content: [{ type: 'text', text: line(checked.data, parsed) }],
          structuredContent: checked.data as Record<string, unknown>,
        };
      } catch (error) {
        const known = error instanceof DiceError ? error : undefined;
        if (known === undefined || known.status === 500) ctx.logError(error, 'MCP tool call failed');
        return toolError(marker.name, known ?? unexpectedError());
      }
    },
  };
}

/**
 * The tools of every marked operation, in table order (an operation with several markers gives
 * several tools, in the order of its markers); a duplicated name is a start-up error.
 */
export function toolsOf(operations: Readonly<Record<string, Operation>>): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const { name, tool, ...operation } of operationList(operations)) {
    const markers = (tool === undefined ? [] : Array.isArray(tool) ? tool : [tool]) as Marker[];
    for (const marker of markers) {
      if (tools.has(marker.name))
        throw new Error(`Operation ${name} names the tool ${marker.name}, already taken.`);
      tools.set(marker.name, toolOf(operation as Operation, marker));
    }
  }
  return tools;
}
