// `/mcp` on both endpoints: the MCP tools over streamable HTTP (stateless: each POST is one exchange, answered as
// JSON). The tools call this server's own handlers, with the request's key (`x-api-key` or `Authorization: Bearer`)
// and IP: plans, quotas and errors are exactly those of `GET /`, `GET /map` and `/crawls`.
import type http from 'node:http';
import { Readable } from 'node:stream';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { RefractError, type ServiceEngine as Engine } from '../../engine/index.ts';
import { fetchAsset } from '../asset.ts';
import { freeCallerOf, proCallerOf } from '../callers.ts';
import type { HandlerResponse } from '../handler.ts';
import type { KeyRing } from '../keys.ts';
import { proOnly, type Asked } from '../routes.ts';
import type { Backend, OpenApiDocument } from './backend.ts';
import { connectMcp, createMcpServer } from './server.ts';
import { buildTools, type Tool } from './tools.ts';

export interface McpRouteDeps {
  engine: Engine;
  keys: KeyRing;
  tier: 'free' | 'pro';
  /** The endpoint's answer of a request by its route (routes.ts), as its router gives it. */
  route: (asked: Asked) => Promise<HandlerResponse>;
  openApi: () => OpenApiDocument;
  /** The JSON answer of a refusal before MCP starts (a key missing or wrong), as the server words failures. */
  refuse: (err: unknown) => { status: number; body: string };
}

/** The key a request carries: `x-api-key`, or `Authorization: Bearer <key>` as MCP clients send it. */
function keyOf(req: http.IncomingMessage): string | undefined {
  const direct = req.headers['x-api-key'];
  if (typeof direct === 'string') return direct;
  return /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
}

/** This server's handlers as the tools' backend: no socket, the caller's key and IP on every call. */
function handlerBackend(deps: McpRouteDeps, key: string | undefined, ip: string): Backend {
  const auth: Record<string, string> = key ? { 'x-api-key': key } : {};
  return {
    async call(method, path, body) {
      const headers = { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
      const req = Object.assign(Readable.from(body === undefined ? [] : [Buffer.from(JSON.stringify(body))]), {
        method,
        url: path,
        headers,
      });
      const out = await deps.route({ req, url: path, path: path.split('?')[0]!, ip });
      return new Response(typeof out.body === 'string' ? out.body : new Uint8Array(out.body), {
        status: out.status,
        headers: out.headers,
      });
    },
    file: (url) => fetchAsset(url, deps.engine),
    openApi: async () => deps.openApi(),
  };
}

export function createMcpRoute(deps: McpRouteDeps) {
  // The tools are built once: the description holds the engine's plugins, which do not change once it started.
  let tools: Tool[] | undefined;
  return async (req: http.IncomingMessage, res: http.ServerResponse, ip: string): Promise<void> => {
    const key = keyOf(req);
    try {
      if (req.method !== 'POST')
        throw new RefractError('EMETHOD', 'MCP here is stateless streamable HTTP: POST each message to /mcp');
      // A key is checked before MCP starts, so that a client is told at once (401) rather than on its first call.
      if (deps.tier === 'pro') await proCallerOf({ headers: key ? { 'x-api-key': key } : {} }, deps);
      else freeCallerOf({ headers: key ? { 'x-api-key': key } : {}, ip }, deps);
    } catch (err) {
      const { status, body } = deps.refuse(err);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', allow: 'POST' });
      res.end(body);
      return;
    }
    tools ??= buildTools(deps.openApi());
    // A caller is shown the tools it can use: the free endpoint answers the pro-only routes (crawl jobs, monitors)
    // with EPRO, so it lists none of their tools.
    const usable = deps.tier === 'pro' ? tools : tools.filter((t) => !proOnly(t.route));
    const server = await createMcpServer(handlerBackend(deps, key, ip), usable);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await connectMcp(server, transport);
    await transport.handleRequest(req, res);
  };
}
