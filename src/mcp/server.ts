// The MCP server of fairdice (docs/mcp.md): the tools of the operation table and the language
// reference as a resource, on the official SDK's low-level Server, whatever the transport
// (Streamable HTTP at /mcp in src/http/mcp.ts, stdio in src/cli.ts). The low-level Server, not
// McpServer: tools keep their own input validation, so a bad argument gets the REST error
// envelope in a tool result, and their JSON Schemas are built once, not at every tools/list.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type RequestId,
  type Resource,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { OPERATIONS } from '../api/operations.js';
import type { DiceError } from '../errors.js';
import { PACKAGE_NAME, VERSION } from '../version.js';
import { LANGUAGE_URI } from './markers.js';
import { type McpTool, type ToolCallContext, toolError, toolsOf } from './tools.js';

/** What the server tells a client about itself at initialization. */
export const INSTRUCTIONS =
  'fairdice rolls dice with a cryptographically fair random source. Call a tool for every roll a ' +
  'game needs instead of inventing a number, and quote its text line. Before narrating a risk, ' +
  'stats gives its exact odds. So that players can check every roll afterwards, create a table ' +
  'once per game (table_create), roll there with table_roll and give them its id. Give each roll ' +
  'a new idempotencyKey (a UUID) and send the same key again if a call must be retried: the ' +
  'retry answers the first roll instead of rolling again. The formula ' +
  `language is the resource ${LANGUAGE_URI}.`;

const LANGUAGE_RESOURCE: Resource = {
  uri: LANGUAGE_URI,
  name: 'language',
  title: 'The fairdice formula language',
  description:
    'Every form and modifier of a dice formula, the order they apply in, limits and errors. A fairdice service also serves it as a web page, at /docs/language.',
  mimeType: 'text/markdown',
};

// The path is the same from src/mcp/ and dist/mcp/; `docs` ships in the package.
let languageText: string | undefined;
const languageReference = (): string => {
  languageText ??= readFileSync(new URL('../../docs/language.md', import.meta.url), 'utf8');
  return languageText;
};

/**
 * The language reference with its links to the other docs (`stats.md#anchor`) made links to the
 * pages a service serves them as (`<docsUrl>/stats#anchor`, src/http/docs.ts), and a first line
 * naming its own page: what a client of a hosted service can open. Links into the source tree
 * (`../src/...`) stay as written.
 */
export function languageReferenceAt(docsUrl: string): string {
  const linked = languageReference().replace(/\]\(([a-z][\w-]*)\.md(#[\w-]*)?\)/g, (_link, name, anchor) => {
    return `](${docsUrl}/${name}${anchor ?? ''})`;
  });
  return `> This reference is also a web page: ${docsUrl}/language\n\n${linked}`;
}

/** The tools of the service's operation table, built once per process. */
let defaultTools: Map<string, McpTool> | undefined;
const serviceTools = (): Map<string, McpTool> => {
  defaultTools ??= toolsOf(OPERATIONS);
  return defaultTools;
};

/** What a tool call runs with: its context, or the error (rate_limited) that refuses it. */
export interface CallSetting {
  ctx: ToolCallContext;
  refused?: DiceError | undefined;
}

export interface McpServerOptions {
  /** The setting of the tools/call request with this JSON-RPC id, as the transport delivered it. */
  settingOf(requestId: RequestId): CallSetting;
  /** The tools (default: those of the service's operation table). */
  tools?: Map<string, McpTool>;
  /**
   * Where the service that received the request with this JSON-RPC id serves its reference
   * (`https://dice.example.com/docs`): the language resource then links to its pages. Absent
   * (stdio, no service): the resource is docs/language.md as it is.
   */
  docsUrlOf?(requestId: RequestId): string | undefined;
}

// The SDK builds a JSON Schema validator (a new Ajv with its formats) per server unless given
// one. A server uses it only to check what a client answers to elicitation, which fairdice never
// asks for: one per process, built on first use, so start-up does not pay for it.
let ajv: AjvJsonSchemaValidator | undefined;
const validator: jsonSchemaValidator = {
  getValidator(schema) {
    ajv ??= new AjvJsonSchemaValidator();
    return ajv.getValidator(schema);
  },
};

/** A server ready to connect to one transport. */
export function createMcpServer(options: McpServerOptions): Server {
  const tools = options.tools ?? serviceTools();
  const server = new Server(
    { name: PACKAGE_NAME, title: 'fairdice', version: VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: validator,
    },
  );
  let definitions: Tool[] | undefined;
  server.setRequestHandler(ListToolsRequestSchema, () => {
    definitions ??= [...tools.values()].map((tool) => tool.definition);
    return { tools: definitions };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.get(request.params.name);
    // A name the client could not have listed is a protocol error, as the MCP spec has it.
    if (tool === undefined)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const { ctx, refused } = options.settingOf(extra.requestId);
    if (refused !== undefined) return toolError(tool.name, refused);
    return tool.call(request.params.arguments, ctx);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [LANGUAGE_RESOURCE] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => {
    if (request.params.uri !== LANGUAGE_URI) {
      throw new McpError(-32002, `Resource not found: ${request.params.uri}`, { uri: request.params.uri });
    }
    const docsUrl = options.docsUrlOf?.(extra.requestId);
    const text = docsUrl === undefined ? languageReference() : languageReferenceAt(docsUrl);
    return { contents: [{ uri: LANGUAGE_URI, mimeType: 'text/markdown', text }] };
  });
  return server;
}
