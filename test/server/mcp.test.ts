// The MCP server (issue 43, item 1), driven by the SDK's own client over streamable HTTP (/mcp on both endpoints)
// and over stdio (`refract mcp`, against a running Refract and against one it starts itself).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { definePlugin, options, num } from '../../engine/index.ts';
import { fixtureFile, serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
const clients: Client[] = [];

const para = (i: number) =>
  `<p>Paragraph ${i} of a long article about river otters, their dens, their diet of fish and crayfish, and how they play in the snow of northern winters.</p>`;

// A third-party plugin: its option must reach the `extract` tool's schema.
const thumbs = definePlugin({
  name: 'thumbs',
  description: 'A test plugin with one option.',
  needs: 'html',
  params: options({ size: num({ min: 1, max: 10, int: true }).default(3) }),
  run: async (_ctx, o) => ({ size: o.size }),
});

test.before(async () => {
  fx = await serveFixtures({
    '/long.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html lang="en"><head><title>Otters</title><meta name="description" content="All about otters"><meta property="og:image" content="/hero.png"></head><body><article><h1>Otters</h1>${Array.from({ length: 100 }, (_, i) => para(i)).join('')}</article><a href="/other.html">other</a></body></html>`,
      );
    },
    '/hero.png': fixtureFile('sites/article/images/hero.png'),
    '/other.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Other</title><p>Another page.</p>');
    },
  });
  app = await startRefract({}, [thumbs]);
});

test.after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await app.close();
  await fx.close();
});

async function httpClient(base: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'refract-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const textOf = (result: unknown) =>
  ((result as { content: unknown }).content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** Tools of the pro endpoint only: crawl jobs and monitors (EPRO on the free one). */
const PRO_TOOLS = [
  'crawl_start',
  'crawl_status',
  'crawl_results',
  'crawl_cancel',
  'watch_page',
  'list_monitors',
  'page_changes',
  'unwatch_page',
];
const PRO_ONLY = new Set(PRO_TOOLS);
const TOOLS = [
  'extract',
  'screenshot',
  'pdf',
  'markdown',
  'text',
  'html',
  'metadata',
  'palette',
  'insights',
  'map',
  ...PRO_TOOLS,
];

test('streamable HTTP: the tools, their schemas from the query schemas (third-party plugins too)', async () => {
  const client = await httpClient(app.freeUrl);
  const { tools } = await client.listTools();
  // The free endpoint lists what it can serve: no crawl jobs or monitors (EPRO there).
  assert.equal(
    tools.map((t) => t.name),
    TOOLS.filter((t) => !PRO_ONLY.has(t)),
  );
  // The list is read on every call: each general parameter is described once (in `extract`), not in every tool.
  const size = JSON.stringify(tools).length;
  assert.ok(size < 50_000, `the tool list is ${size} bytes`);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  const extract = byName.extract!.inputSchema as { properties: Record<string, any>; required: string[] };
  assert.equal(extract.required, ['url']);
  const shot = extract.properties.screenshot.anyOf.find((s: { type: string }) => s.type === 'object');
  assert.equal(shot.properties.type.enum, ['png', 'jpeg', 'webp', 'avif']);
  const thumb = extract.properties.thumbs.anyOf.find((s: { type: string }) => s.type === 'object');
  assert.is(thumb.properties.size.maximum, 10, "a third-party plugin's option");
  const screenshot = byName.screenshot!.inputSchema as { properties: Record<string, any> };
  assert.ok(screenshot.properties.fullPage, 'screenshot options at the top of its tool');
  assert.ok(screenshot.properties.options.properties.waitUntil, 'general options under `options`');
  assert.is(screenshot.properties.options.properties.waitUntil.description, undefined, 'described in extract');
  assert.match(extract.properties.waitUntil.description, /navigation events/);
  assert.match(screenshot.properties.element.description, /CSS selector/, "the tool's own options are described");
  const map = byName.map!.inputSchema as { properties: Record<string, any> };
  assert.equal(map.properties.sitemap.enum, ['include', 'only', 'skip']);
});

test('metadata and extract answer the API data; an error is a tool error with its code; quota as GET /', async () => {
  const client = await httpClient(app.freeUrl);
  const url = `${fx.url}/long.html`;
  const before = await call(app.freeUrl, `url=${q(url)}&meta.title`);
  const meta = await client.callTool({ name: 'metadata', arguments: { url, title: true, description: true } });
  assert.not.ok(meta.isError, textOf(meta));
  const data = JSON.parse(textOf(meta));
  assert.equal([data.title, data.description, data.author], ['Otters', 'All about otters', undefined]);
  const after = await call(app.freeUrl, `url=${q(url)}&meta.title`);
  assert.is(
    Number(before.headers.get('x-rate-limit-remaining')) - Number(after.headers.get('x-rate-limit-remaining')),
    1,
    'the tool call was charged to this IP as one request (the GET itself was a cache hit)',
  );
  const extracted = await client.callTool({ name: 'extract', arguments: { url, thumbs: { size: 7 }, meta: false } });
  assert.equal(JSON.parse(textOf(extracted)).thumbs, { size: 7 });
  // An argument the API does not know is said, as GET / says it (x-refract-unknown-params), not dropped silently.
  const unknown = await client.callTool({
    name: 'extract',
    arguments: { url, meta: false, thumbs: true, sreenshot: true },
  });
  assert.equal(JSON.parse(textOf(unknown)).warnings, [{ message: 'Not parameters of this API, ignored: sreenshot' }]);
  const bad = await client.callTool({ name: 'metadata', arguments: { url: 'not a url' } });
  assert.is(bad.isError, true);
  assert.match(textOf(bad), /^EINVALURL: /);
  const badOption = await client.callTool({ name: 'extract', arguments: { url, thumbs: { size: 99 } } });
  assert.is(badOption.isError, true);
  assert.match(textOf(badOption), /^EINVALQUERY: .*thumbs\.size/);
});

test('an unknown tool and arguments nested a thousand deep are invalid-parameter errors, never EFATAL', async () => {
  const client = await httpClient(app.freeUrl);
  const unknown = await client.callTool({ name: 'no_such_tool', arguments: { url: `${fx.url}/long.html` } });
  assert.ok(unknown.isError);
  assert.match(textOf(unknown), /^EINVALQUERY: No tool "no_such_tool"/);
  let options: Record<string, unknown> = { waitUntil: 'load' };
  for (let i = 0; i < 1000; i++) options = { a: options };
  const deep = await client.callTool({ name: 'extract', arguments: { url: `${fx.url}/long.html`, options } });
  assert.ok(deep.isError);
  assert.match(textOf(deep), /^EINVALQUERY: The arguments nest deeper than/);
});

test('tools/call parameters that are no call (arguments null or a string, no name) are -32602 in plain words, not -32603 with a schema dump', async () => {
  const post = async (params: unknown) => {
    const res = await fetch(`${app.freeUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params }),
    });
    assert.is(res.status, 200);
    return (await res.json()) as { id: number; error?: { code: number; message: string } };
  };
  for (const [params, words] of [
    [{ name: 'extract', arguments: null }, /^params\.arguments must be an object .* not null$/],
    [{ name: 'extract', arguments: 'url=x' }, /^params\.arguments must be an object .* not string$/],
    [{ arguments: {} }, /^params\.name must be a tool's name/],
  ] as const) {
    const answer = await post(params);
    assert.is(answer.id, 7);
    assert.is(answer.error?.code, -32602, JSON.stringify(answer));
    assert.match(answer.error!.message, words);
  }
  // A well-formed call still goes through.
  const ok = await fetch(`${app.freeUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' }),
  });
  assert.ok(((await ok.json()) as { result: { tools: unknown[] } }).result.tools.length > 3);
});

test('markdown in pages: maxLength and cursor read the whole text, no more, no less', async () => {
  const client = await httpClient(app.freeUrl);
  const url = `${fx.url}/long.html`;
  const whole = (await call(app.freeUrl, `url=${q(url)}&markdown&meta=false&embed=markdown`)).raw.toString();
  assert.ok(whole.length > 3000, `a long page (${whole.length})`);
  let cursor: string | undefined;
  let read = '';
  let pages = 0;
  do {
    const page = await client.callTool({ name: 'markdown', arguments: { url, maxLength: 1000, cursor } });
    assert.not.ok(page.isError, textOf(page));
    const [chunk, note] = (page.content as { text: string }[]).map((c) => c.text);
    assert.ok(chunk!.length <= 1000);
    read += chunk;
    cursor = note ? /cursor "(\d+)"/.exec(note)?.[1] : undefined;
    pages++;
  } while (cursor && pages < 50);
  assert.is(read, whole);
  assert.is(pages, Math.ceil(whole.length / 1000));
  const wrong = await client.callTool({ name: 'markdown', arguments: { url, cursor: 'x' } });
  assert.match(textOf(wrong), /^EINVALQUERY: Invalid `cursor`/);
});

test('screenshot: an image a model can read, with the link of the full capture', async () => {
  const client = await httpClient(app.freeUrl);
  const shot = await client.callTool({ name: 'screenshot', arguments: { url: `${fx.url}/long.html`, fullPage: true } });
  assert.not.ok(shot.isError, textOf(shot));
  const image = (shot.content as { type: string; data?: string; mimeType?: string }[]).find((c) => c.type === 'image')!;
  assert.is(image.mimeType, 'image/jpeg');
  const meta = await sharp(Buffer.from(image.data!, 'base64')).metadata();
  const facts = JSON.parse(textOf(shot));
  assert.ok(facts.height > 1568, `a full page taller than a model reads (${facts.height})`);
  assert.ok(meta.width! <= 1568 && meta.height! <= 1568 && meta.width! * meta.height! <= 1_150_000);
  assert.equal([meta.width, meta.height], [facts.shown.width, facts.shown.height]);
  const full = await fetch(facts.url);
  assert.is(full.status, 200);
});

test('pdf, html, palette and insights: each answers its part of the API', async () => {
  const client = await httpClient(app.freeUrl);
  const url = `${fx.url}/long.html`;
  const pdf = JSON.parse(textOf(await client.callTool({ name: 'pdf', arguments: { url, format: 'A4' } })));
  assert.is(pdf.type, 'pdf');
  assert.is((await fetch(pdf.url)).headers.get('content-type'), 'application/pdf');
  const html = await client.callTool({ name: 'html', arguments: { url, maxLength: 500 } });
  assert.match(textOf(html), /^<[a-z]/);
  assert.match(textOf(html), /cursor "500"/);
  const palette = JSON.parse(textOf(await client.callTool({ name: 'palette', arguments: { url } })));
  assert.is(palette.image.url, `${fx.url}/hero.png`);
  assert.match(palette.image.background_color, /^#[0-9a-f]{6}$/);
  assert.ok(palette.image.palette.length >= 1);
  // Called with a URL alone: the technologies, and no audit (Lighthouse runs only when asked for by name).
  const bare = await client.callTool({ name: 'insights', arguments: { url } });
  assert.not.ok(bare.isError, textOf(bare));
  assert.ok(Array.isArray(JSON.parse(textOf(bare)).technologies));
  assert.is(JSON.parse(textOf(bare)).lighthouse, undefined);
  const insights = await client.callTool({ name: 'insights', arguments: { url, lighthouse: true } });
  assert.not.ok(insights.isError, textOf(insights));
  // The Lighthouse report is long: its first page, and where the next starts.
  const [first, next] = (insights.content as { text: string }[]).map((c) => c.text);
  assert.match(first!, /^\{\n "lighthouse": \{/);
  assert.match(next ?? '', /cursor "20000"/);
});

test('map, and crawl jobs on the pro endpoint (a Bearer key), refused on the free one', async () => {
  const free = await httpClient(app.freeUrl);
  const refused = await free.callTool({ name: 'crawl_start', arguments: { urls: [`${fx.url}/long.html`] } });
  assert.match(textOf(refused), /^EINVALQUERY: No tool "crawl_start"/);
  const mapped = await free.callTool({ name: 'map', arguments: { url: `${fx.url}/long.html`, sitemap: 'skip' } });
  assert.equal(textOf(mapped).split('\n').sort(), [`${fx.url}/long.html`, `${fx.url}/other.html`]);
  await assert.not.ok(
    await httpClient(app.proUrl).then(
      () => true,
      () => false,
    ),
    'no key: the pro endpoint refuses',
  );
  const pro = await httpClient(app.proUrl, { authorization: 'Bearer test-key' });
  const started = JSON.parse(
    textOf(
      await pro.callTool({
        name: 'crawl_start',
        arguments: { urls: [`${fx.url}/long.html`, `${fx.url}/other.html`], query: { meta: true } },
      }),
    ),
  );
  assert.type(started.id, 'string');
  let status = started.status;
  for (let i = 0; i < 200 && (status === 'queued' || status === 'running'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = JSON.parse(textOf(await pro.callTool({ name: 'crawl_status', arguments: { id: started.id } }))).status;
  }
  assert.is(status, 'completed');
  const first = JSON.parse(
    textOf(await pro.callTool({ name: 'crawl_results', arguments: { id: started.id, limit: 1 } })),
  );
  assert.is(first.results.length, 1);
  const rest = JSON.parse(
    textOf(await pro.callTool({ name: 'crawl_results', arguments: { id: started.id, cursor: first.next, limit: 5 } })),
  );
  assert.equal([...first.results, ...rest.results].map((r: { data: { title: string } }) => r.data.title).sort(), [
    'Other',
    'Otters',
  ]);
  assert.is(rest.next, null);
  const gone = await pro.callTool({ name: 'crawl_status', arguments: { id: 'no-such-job' } });
  assert.match(textOf(gone), /^ENOTFOUND: /);

  // Monitors: watched, listed, their changes read (the history starts with the first read), stopped.
  const watched = JSON.parse(
    textOf(await pro.callTool({ name: 'watch_page', arguments: { url: `${fx.url}/long.html`, every: '1h' } })),
  );
  assert.match(watched.id, /^mon_/);
  assert.is(watched.every, 3_600_000);
  const listed = JSON.parse(textOf(await pro.callTool({ name: 'list_monitors', arguments: {} })));
  assert.equal(
    listed.monitors.map((m: { id: string }) => m.id),
    [watched.id],
  );
  const changes = JSON.parse(textOf(await pro.callTool({ name: 'page_changes', arguments: { id: watched.id } })));
  assert.ok(Array.isArray(changes.changes) && changes.changes.length <= 1, JSON.stringify(changes));
  const refusedWatch = await free.callTool({
    name: 'watch_page',
    arguments: { url: `${fx.url}/long.html`, every: '1h' },
  });
  assert.match(textOf(refusedWatch), /^EINVALQUERY: No tool "watch_page"/);
  await pro.callTool({ name: 'unwatch_page', arguments: { id: watched.id } });
  assert.match(textOf(await pro.callTool({ name: 'page_changes', arguments: { id: watched.id } })), /^ENOTFOUND: /);
});

const BIN = path.resolve(import.meta.dirname, '../../bin/refract.ts');
const stdioClient = async (args: string[], where: { cwd?: string; env?: Record<string, string> } = {}) => {
  const client = new Client({ name: 'refract-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--no-node-snapshot', '--conditions=refract-source', BIN, 'mcp', ...args],
      env: {
        ...(process.env as Record<string, string>),
        REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        REFRACT_LOG_LEVEL: 'silent',
        ...where.env,
      },
      ...(where.cwd ? { cwd: where.cwd } : {}),
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
};

test('stdio: refract mcp --endpoint serves a running Refract; without one it starts its own', async () => {
  const remote = await stdioClient(['--endpoint', app.proUrl, '--key', 'test-key']);
  assert.equal(
    (await remote.listTools()).tools.map((t) => t.name),
    TOOLS,
  );
  const meta = await remote.callTool({ name: 'metadata', arguments: { url: `${fx.url}/long.html`, title: true } });
  assert.is(JSON.parse(textOf(meta)).title, 'Otters');
  // Its own Refract keeps its files in a folder of the session under the user's data folder, not in the agent's
  // working folder, and removes it when the session ends (with one a killed session left).
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'refract-agent-'));
  const data = mkdtempSync(path.join(os.tmpdir(), 'refract-user-data-'));
  const sessions = path.join(data, 'refract', 'mcp-sessions');
  mkdirSync(path.join(sessions, '999999999', 'assets'), { recursive: true });
  const own = await stdioClient([], { cwd, env: { XDG_DATA_HOME: data } });
  const page = await own.callTool({ name: 'text', arguments: { url: `${fx.url}/long.html`, maxLength: 200 } });
  assert.not.ok(page.isError, textOf(page));
  assert.match(textOf(page), /^Otters|Paragraph 0/);
  assert.match(textOf(page), /cursor "200"/);
  const shot = await own.callTool({ name: 'screenshot', arguments: { url: `${fx.url}/long.html` } });
  assert.not.ok(shot.isError, JSON.stringify(shot).slice(0, 300));
  assert.equal(readdirSync(cwd), [], "nothing in the agent's working folder");
  const [session, ...others] = readdirSync(sessions);
  assert.equal(others, [], "the killed session's folder is gone");
  assert.ok(readdirSync(path.join(sessions, session!, 'assets')).length > 0, 'the capture is in the session folder');
  await own.close();
  clients.splice(clients.indexOf(own), 1);
  assert.equal(readdirSync(sessions), [], 'the session folder goes with the session');
});

test.run();
