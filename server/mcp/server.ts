// An MCP server over Refract's API: the tools of tools.ts, their schemas from the API's OpenAPI description.
// The SDK's low-level `Server`, not `McpServer`: McpServer takes zod shapes and validates arguments itself, while
// these tools' schemas are JSON Schemas already (the OpenAPI description's, which may be a remote Refract's) and
// their arguments are validated by the API they call, so that a bad one answers the API's own code and message.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../../engine/index.ts';
import type { Backend } from './backend.ts';
import { ApiFailure, buildTools, toolError, type Tool } from './tools.ts';

/** How deep a tool's arguments may nest: the API's options nest a few levels; thousands ended in a stack overflow. */
const MAX_ARGUMENT_DEPTH = 32;

/** Whether a JSON value nests deeper than `max` (walked without recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    if (node && typeof node === 'object') for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

export const INSTRUCTIONS =
  'Refract turns any public URL into data: metadata, Markdown/text/HTML of the main content, screenshots, PDFs, colour palettes, technologies, site maps and crawls. Prefer `markdown` to read a page, `metadata` for its card, `map` to find pages, `extract` for anything else. Long answers come in pages: call again with the `cursor` named.';

/** An MCP server whose tools call `backend`; `tools` may be given (built once from the same description). */
export async function createMcpServer(backend: Backend, tools?: Tool[]): Promise<Server> {
  const list = tools ?? buildTools(await backend.openApi());
  const byName = new Map(list.map((t) => [t.name, t]));
  const server = new Server(
    { name: 'refract', title: 'Refract', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: list.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool)
      return toolError(
        new ApiFailure(
          'EINVALQUERY',
          `No tool "${request.params.name}"; the tools are ${[...byName.keys()].join(', ')}`,
        ),
      );
    const args = request.params.arguments ?? {};
    if (deeperThan(args, MAX_ARGUMENT_DEPTH))
      return toolError(new ApiFailure('EINVALQUERY', `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels`));
    try {
      return await tool.run(args, backend);
    } catch (err) {
      return toolError(err);
    }
  });
  return server;
}

/** Why a `tools/call` message's parameters cannot be a call, in words for its caller; undefined when they can. */
function badCall(params: unknown): string | undefined {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return 'params must be an object';
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return `params.name must be a tool's name (a string), not ${describe(name)}`;
  if (args !== undefined && (!args || typeof args !== 'object' || Array.isArray(args)))
    return `params.arguments must be an object of the tool's parameters, not ${describe(args)}`;
  return undefined;
}

const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/**
 * Connects `server` to `transport`, answering a `tools/call` whose parameters are not a call (`arguments: null`, a
 * name that is no string) with JSON-RPC's invalid-params error in plain words. The SDK checks them against its
 * schema before the handler runs and answered -32603 (internal error) with the schema's issues as raw JSON.
 */
export async function connectMcp(server: Server, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const call = message as { id?: string | number; method?: string; params?: unknown };
    const why = call.method === 'tools/call' && call.id !== undefined ? badCall(call.params) : undefined;
    if (why === undefined) return deliver?.(message, extra);
    void transport
      .send({ jsonrpc: '2.0', id: call.id!, error: { code: ErrorCode.InvalidParams, message: why } })
      .catch(() => undefined);
  };
}
