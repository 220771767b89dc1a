// MCP tools made from the operation table: every operation with a marker (src/mcp/markers.ts)
// becomes one tool per marker whose input schema is the operation's zod input schema (reshaped by
// the marker), whose `outputSchema` and `structuredContent` are its REST response, and whose text
// is one line for a model (docs/mcp.md). Errors are tool results (`isError: true`) holding a
// sentence and the REST error envelope, never a protocol failure and never `structuredContent`
// (a stock client validates any structuredContent against outputSchema, error or not).
import type { CallToolResult, Tool as ToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { parseInput } from '../api/input.js';
import { type DiceContext, OPERATIONS, type Operation, operationList } from '../api/operations.js';
import { type ApiErrorCode, DiceError, RequestError, unexpectedError } from '../errors.js';
import { LANGUAGE_URI, type OneOrMore, TOOL_MARKERS, type ToolMarker } from './markers.js';

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
  wrong_reveal_token: () =>
    'That is not the reveal token of this sealed roll; only the answer of table_roll with sealed true held it. Nobody can reveal without it.',
  not_sealed: () =>
    'That entry of the table is not a sealed roll (read table_log for the numbers of the sealed entries).',
  already_revealed: () =>
    'That sealed roll was revealed already; its reveal is in the table log (table_log). Nothing to do.',
  table_full: () => 'That table holds its maximum of rolls; create a new table for further rolls.',
  too_many_tables: () => 'Too many tables were created from this address this hour; reuse an existing table.',
  too_many_streams: () => 'Too many open event streams from this address; close one first.',
  idempotency_key_reused: (tool) =>
    `That idempotencyKey was used for a different roll; call ${tool} again with a new key for a new roll, or with the first request to get its answer.`,
  idempotency_key_in_use: (tool) =>
    `A call with that idempotencyKey is still being answered; call ${tool} again with the same arguments in a moment to get its answer.`,
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

/** Markers by operation name, as toolsOf takes them. */
export type MarkerTable = Readonly<Record<string, OneOrMore<Marker> | undefined>>;

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
 * The tool's arguments: the operation's input object, fields renamed as the marker says, less the
 * fields it omits, with the fields it requires no longer optional, plus its extra arguments.
 * Whatever it accepts (extras aside, names put back) the operation's input accepts too.
 */
function toolInputOf(operation: Operation, marker: Marker): z.ZodType {
  const input = operation.input ?? EMPTY_INPUT;
  const { extraInput, requires = [], omits = [], renames = {} } = marker;
  const renamed = Object.entries(renames);
  if (extraInput === undefined && requires.length === 0 && omits.length === 0 && renamed.length === 0) {
    return input;
  }
  if (!(input instanceof z.ZodObject)) {
    throw new Error(
      `The tool ${marker.name} reshapes its arguments, so its operation's input must be an object.`,
    );
  }
  let shaped: z.ZodObject = input;
  for (const [name, field] of renamed) {
    const schema = shaped.shape[field];
    if (schema === undefined || name in shaped.shape) {
      throw new Error(
        `The tool ${marker.name} renames ${field} to ${name}, which its operation's input cannot take.`,
      );
    }
    shaped = shaped.omit(maskOf(shaped, [field], marker)).extend({ [name]: schema });
  }
  if (omits.length > 0) shaped = shaped.omit(maskOf(shaped, omits, marker));
  if (requires.length > 0) shaped = shaped.required(maskOf(shaped, requires, marker));
  return extraInput === undefined ? shaped : shaped.extend(extraInput);
}

/** The arguments as the operation takes them: without the tool's own extras, with its own names. */
function operationInputOf(parsed: unknown, marker: Marker): unknown {
  if (marker.extraInput === undefined && marker.renames === undefined) return parsed;
  const own = { ...(parsed as Record<string, unknown>) };
  for (const key of Object.keys(marker.extraInput ?? {})) delete own[key];
  for (const [name, field] of Object.entries(marker.renames ?? {})) {
    if (name in own) own[field] = own[name];
    delete own[name];
  }
  return own;
}

/**
 * A field the operation calls otherwise (`id` where the tool says `table`) is refused naming the
 * tool's word for it, before anything else is said about the arguments.
 */
function checkRenamed(args: unknown, marker: Marker): void {
  if (marker.renames === undefined || args === null || typeof args !== 'object') return;
  for (const [name, field] of Object.entries(marker.renames)) {
    if (field in args) {
      throw new RequestError(`Unknown field: ${field}. The ${marker.name} tool calls it ${name}.`);
    }
  }
}

function toolOf(operation: Operation, marker: Marker): McpTool {
  const input = toolInputOf(operation, marker);
  // Built on first use (the first tools/list): start-up does not pay for the JSON Schemas.
  let definition: ToolDefinition | undefined;
  const define = (): ToolDefinition => ({
    name: marker.name,
    title: marker.title,
    description: marker.description,
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
        checkRenamed(args, marker);
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
 * The tools of every operation with a marker, in table order (an operation with several markers
 * gives several tools, in the order of its markers). A duplicated tool name, or a marker for an
 * operation the table does not have, is a start-up error.
 */
export function toolsOf(
  operations: Readonly<Record<string, Operation>> = OPERATIONS,
  markers: MarkerTable = TOOL_MARKERS as MarkerTable,
): Map<string, McpTool> {
  for (const name of Object.keys(markers)) {
    if (!(name in operations))
      throw new Error(`A tool marker names the operation ${name}, which does not exist.`);
  }
  const tools = new Map<string, McpTool>();
  for (const { name, ...operation } of operationList(operations)) {
    const marked = markers[name];
    const list = (marked === undefined ? [] : Array.isArray(marked) ? marked : [marked]) as Marker[];
    for (const marker of list) {
      if (tools.has(marker.name))
        throw new Error(`Operation ${name} names the tool ${marker.name}, already taken.`);
      tools.set(marker.name, toolOf(operation as Operation, marker));
    }
  }
  return tools;
}
