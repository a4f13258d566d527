// `refract mcp`: the MCP tools over stdio, against a running Refract (`--endpoint`, with its key) or, without one,
// against a Refract started in this process on loopback (its pro endpoint, with a key made for this session, its
// files in a folder of the session's: mcp-session.ts).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sessionFolders } from './mcp-session.ts';
import { UsageError } from './usage.ts';

export const MCP_USAGE = `       refract mcp [--endpoint <url> [--key <api key>]]
                             the MCP tools over stdio, for a desktop agent: against a running Refract (the key
                             also from REFRACT_API_KEY), or one started here with the environment's settings`;

export async function mcpCommand(args: string[], env = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { endpoint: { type: 'string' }, key: { type: 'string' } },
  });
  if (positionals.length) throw new UsageError(`mcp takes no arguments (got "${positionals[0]}")`);
  if (values.endpoint && !URL.canParse(values.endpoint))
    throw new UsageError(`--endpoint must be a URL, got "${values.endpoint}"`);
  if (values.key && !values.endpoint) throw new UsageError('--key goes with --endpoint');
  const [{ StdioServerTransport }, { connectMcp, createMcpServer }, { httpBackend }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../server/mcp/server.ts'),
    import('../server/mcp/backend.ts'),
  ]);
  let close = async () => {};
  let backend: ReturnType<typeof httpBackend>;
  if (values.endpoint) backend = httpBackend(values.endpoint, values.key ?? env.REFRACT_API_KEY);
  else {
    const [{ startApp }, { loadConfig }] = await Promise.all([
      import('../server/app.ts'),
      import('../engine/index.ts'),
    ]);
    const key = randomBytes(24).toString('base64url');
    const files = sessionFolders(env);
    const app = await startApp(
      loadConfig({
        ...env,
        ...files.settings,
        HOST: '127.0.0.1',
        PORT: '0',
        PRO_PORT: '0',
        PUBLIC_URL: undefined,
        REFRACT_API_KEYS: key,
        REFRACT_LOG_LEVEL: env.REFRACT_LOG_LEVEL ?? 'warn',
      }),
    );
    backend = httpBackend(app.proUrl, key);
    close = async () => {
      await app.close();
      files.remove();
    };
  }
  const server = await createMcpServer(backend);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await connectMcp(server, transport);
  process.stderr.write(`refract mcp: serving ${values.endpoint ?? 'a Refract in this process'} over stdio\n`);
  await ended;
  await server.close().catch(() => undefined);
  await close();
  return 0;
}
