// refract-test: beside (it mostly waits on CLI processes and fixture servers: off the serial path, 121 s of it in the clean CI of a67c45f)
import { test } from 'uvu';
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { allPages, sitePages } from '../util/site.ts';
import { startCli } from '../util/cli.ts';
import { Server } from 'proxy-chain';
import { createEngine, crawl, loadConfig, type Engine, type CrawlResult } from '../../lib/index.ts';
import wordCount from '../../fixtures/plugins/word-count/index.ts';
import { createJobs } from '../../crawl/index.ts';
// The engine's browsers, which the package's face does not show: the test counts the contexts a crawl holds.
import type { ServiceEngine } from '../../engine/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = 60;
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-crawl-'));
let fx: Fixture;
let engine: Engine;
const flaky = new Set<string>();

test.before(async () => {
  fx = await serveFixtures(
    {
      '/robots.txt': (_: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('User-agent: *\nDisallow: /site/private/\n');
      },
      '/sitemap.xml': (_: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${fx.url}/sitemap-1.xml</loc></sitemap></sitemapindex>`,
        );
      },
      '/sitemap-1.xml': (_: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[3, 5, 8].map((i) => `<url><loc>${fx.url}/site/p/${i}</loc></url>`).join('')}</urlset>`,
        );
      },
      // Drops the connection the first time each distinct URL is asked for, then answers.
      '/flaky': (req: IncomingMessage, res: ServerResponse) => {
        if (!flaky.has(req.url!)) {
          flaky.add(req.url!);
          req.socket.destroy();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><head><title>Second time lucky</title></head><body>ok</body></html>');
      },
    },
    sitePages(PAGES),
  );
  engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: path.join(dir, 'assets'),
    }),
    plugins: [wordCount],
  });
});

test.after(async () => {
  await engine.close();
  await fx.close();
});

async function collect(gen: AsyncGenerator<CrawlResult>): Promise<CrawlResult[]> {
  const out: CrawlResult[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

/** Runs the CLI (`npx refract crawl ...`) and resolves with its JSON lines and its exit code. */
function cli(args: string[], stdin?: string): Promise<{ code: number; lines: CrawlResult[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--no-node-snapshot', '--conditions=refract-source', path.join(ROOT, 'bin/refract.ts'), 'crawl', ...args],
      {
        // As a user runs it: without the CRAWLEE_LOG_LEVEL the test runner sets (Crawlee's INFO lines would go to stdout).
        env: {
          ...process.env,
          CRAWLEE_LOG_LEVEL: undefined,
          REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
          REFRACT_LOG_LEVEL: 'silent',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c;
    });
    child.stdin.end(stdin ?? '');
    child.on('close', (code) =>
      resolve({
        code: code ?? 1,
        stderr: err,
        lines: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as CrawlResult),
      }),
    );
  });
}

test('engine.crawl follows links on the start host, once per page, honours robots.txt, with a plugin on every page', async () => {
  const results = await collect(
    crawl(
      engine,
      { start: `${fx.url}/site/p/0` },
      { query: 'wordCount.selector=main p&meta=false', maxDepth: 10, concurrency: 4 },
    ),
  );
  const ok = results.filter((r) => r.status === 'success');
  const urls = ok.map((r) => r.url).sort();
  assert.is(ok.length, PAGES, `every page once: ${ok.length}`);
  assert.is(new Set(urls).size, PAGES);
  // "Words on page number N of the site." is eight words on every page.
  for (const r of ok)
    assert.is((r as unknown as { data: { wordCount: { words: number } } }).data.wordCount.words, 8, r.url);
  const refused = results.filter((r) => r.status !== 'success');
  assert.ok(
    refused.length > 0 &&
      refused.every((r) => r.url.includes('/site/private/') && (r as { code: string }).code === 'EROBOTS'),
    JSON.stringify(refused.slice(0, 3)),
  );
  assert.not.ok(
    results.some((r) => r.url.includes('127.0.0.2')),
    'other hosts are not followed',
  );
});

test('max depth and max pages bound the walk', async () => {
  const shallow = await collect(
    crawl(engine, { start: `${fx.url}/site/p/0` }, { maxDepth: 2, robots: false, include: [`${fx.url}/site/p/**`] }),
  );
  assert.equal(shallow.map((r) => r.url).sort(), [0, 1, 2, 3, 4, 5, 6].map((i) => `${fx.url}/site/p/${i}`).sort());
  const capped = await collect(crawl(engine, { start: `${fx.url}/site/p/0` }, { maxDepth: 10, maxPages: 5 }));
  assert.is(capped.length, 5);
});

test('the CLI walks from a start page with its limits and filters (depth, pages, include, robots, other hosts)', async () => {
  const bounded = await cli([
    `${fx.url}/site/p/0`,
    '--max-depth',
    '2',
    '--include',
    `${fx.url}/site/p/**`,
    '--no-robots',
    '--concurrency',
    '2',
    '--query',
    'meta=false',
  ]);
  assert.is(bounded.code, 0, bounded.stderr);
  assert.equal(
    bounded.lines.map((l) => l.url).sort(),
    [0, 1, 2, 3, 4, 5, 6].map((i) => `${fx.url}/site/p/${i}`).sort(),
  );
  const capped = await cli([`${fx.url}/site/p/0`, '--max-pages', '4']);
  assert.is(capped.lines.length, 4);
  // Other hosts are followed only when asked, and then still pass the SSRF guard.
  const wide = await cli([
    `${fx.url}/site/p/0`,
    '--max-depth',
    '1',
    '--any-host',
    '--no-robots',
    '--exclude',
    `${fx.url}/site/private/**`,
  ]);
  const elsewhere = wide.lines.find((l) => l.url.startsWith('http://127.0.0.2'));
  assert.is((elsewhere as { code?: string } | undefined)?.code, 'EFORBIDDENURL');
  assert.not.ok(
    wide.lines.some((l) => l.url.includes('/site/private/')),
    'excluded links are not followed',
  );
});

test('the CLI crawls a sitemap index to JSON lines in a file', async () => {
  const out = path.join(dir, 'sitemap.jsonl');
  const { code, stderr } = await cli(['--sitemap', `${fx.url}/sitemap.xml`, '--out', out, '--query', 'meta=true']);
  assert.is(code, 0, stderr);
  const lines = readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CrawlResult);
  assert.equal(lines.map((l) => l.url).sort(), [3, 5, 8].map((i) => `${fx.url}/site/p/${i}`).sort());
  for (const l of lines)
    assert.is((l as unknown as { data: { title: string } }).data.title, `Page ${l.url.split('/').pop()}`);
  assert.match(stderr, /done: 3 pages, 0 failed/);
});

test('a list with bad URLs mixed in: each bad one is a failed line, the rest succeed', async () => {
  const list = [
    `${fx.url}/site/p/1`,
    'not a url',
    'http://127.0.0.2:9/private',
    `${fx.url}/missing`,
    `${fx.url}/site/p/2`,
  ].join('\n');
  const file = path.join(dir, 'list.txt');
  writeFileSync(file, list);
  const fromFile = await cli(['--urls', file]);
  const fromStdin = await cli(['--urls', '-'], list);
  for (const { code, lines } of [fromFile, fromStdin]) {
    assert.is(code, 0);
    assert.is(lines.length, 5);
    const by = (u: string) => lines.find((l) => l.url === u)!;
    assert.is(by(`${fx.url}/site/p/1`).status, 'success');
    assert.is(by(`${fx.url}/site/p/2`).status, 'success');
    assert.is((by('not a url') as { code: string }).code, 'EINVALURL');
    assert.is((by('http://127.0.0.2:9/private') as { code: string }).code, 'EFORBIDDENURL');
    const missing = by(`${fx.url}/missing`) as unknown as { status: string; data: { statusCode: number } };
    assert.is(missing.status, 'success');
    assert.is(missing.data.statusCode, 404);
  }
});

test('a crawl goes through the engine cache (a warm cache fetches nothing) and applies filter to each line', async () => {
  const list = { urls: [10, 11, 12].map((i) => `${fx.url}/site/p/${i}`) };
  const query = 'meta=true&filter=title&ttl=1h';
  const count = () => fx.hits.filter((h) => /^\/site\/p\/1[012]$/.test(h)).length;
  const before = count();
  const first = await collect(crawl(engine, list, { query, robots: false }));
  assert.equal(first.map((r) => (r as unknown as { data: { title: string } }).data.title).sort(), [
    'Page 10',
    'Page 11',
    'Page 12',
  ]);
  for (const r of first) assert.equal(Object.keys((r as { data: object }).data), ['title'], 'only the filtered path');
  const hits = count();
  assert.is(hits, before + 3);
  // The same crawl again: every page is a cache HIT, so the site is not asked again.
  const second = await collect(crawl(engine, list, { query, robots: false }));
  assert.equal(
    second.map((r) => r.status),
    ['success', 'success', 'success'],
  );
  assert.is(count(), hits);
  // A filter of another path is the same cache entry, filtered differently.
  const other = await collect(crawl(engine, list, { query: 'meta=true&filter=statusCode&ttl=1h', robots: false }));
  for (const r of other) assert.equal((r as { data: object }).data, { statusCode: 200 });
  assert.is(count(), hits);
});

test('engine.extract(url, query) for library callers: MISS then HIT from the same cache, options as text or object', async () => {
  const url = `${fx.url}/site/p/20`;
  const first = await engine.extract(url, 'meta=true&ttl=1h');
  assert.is(first.cache, 'MISS');
  assert.is(first.data.title, 'Page 20');
  const again = await engine.extract(url, { meta: true, ttl: '1h' });
  assert.is(again.cache, 'HIT');
  assert.equal(again.data, first.data);
  // A `__proto__` key of the options object stays a plain (unknown) name: it changes no prototype.
  const odd = await engine.extract(url, JSON.parse('{"meta":true,"ttl":"1h","__proto__":{"polluted":"yes"}}'));
  assert.is(odd.cache, 'HIT');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test('engine.crawl with a state folder: a caller that stops after 20 pages gets the rest, and only the rest, next time', async () => {
  const stateDir = path.join(dir, 'state-lib');
  const options = { query: 'meta=false', maxDepth: 10, include: [`${fx.url}/site/p/**`], stateDir };
  const first: CrawlResult[] = [];
  for await (const r of crawl(engine, { start: `${fx.url}/site/p/0` }, options)) {
    first.push(r);
    if (first.length === 20) break;
  }
  const second = await collect(crawl(engine, { start: `${fx.url}/site/p/0` }, options));
  assert.is(first.length + second.length, PAGES, `${first.length} + ${second.length}`);
  assert.equal([...first, ...second].map((r) => r.url).sort(), allPages(fx.url, PAGES).sort());
  const third = await collect(crawl(engine, { start: `${fx.url}/site/p/0` }, options));
  assert.is(third.length, 0, 'a finished crawl has nothing left');
});

test('the CLI sends every page through --proxy-urls, and refuses a bad --query before any fetch', async () => {
  const seen: string[] = [];
  const proxy = new Server({
    port: 0,
    host: '127.0.0.1',
    verbose: false,
    prepareRequestFunction: ({ request }) => {
      seen.push(request.url ?? '');
      return {};
    },
  });
  await proxy.listen();
  try {
    const pages = [1, 2, 3].map((i) => `${fx.url}/site/p/${i}?via-proxy`);
    const { code, lines, stderr } = await cli(
      ['--urls', '-', '--proxy-urls', `http://127.0.0.1:${proxy.port}`, '--query', 'meta=true'],
      pages.join('\n'),
    );
    assert.is(code, 0, stderr);
    assert.equal(lines.map((l) => (l as unknown as { data: { title: string } }).data.title).sort(), [
      'Page 1',
      'Page 2',
      'Page 3',
    ]);
    assert.equal(seen.filter((u) => u.includes('?via-proxy')).sort(), pages.sort());
  } finally {
    await proxy.close(true);
  }
  const hitsBefore = fx.hits.length;
  const bad = await cli([`${fx.url}/site/p/0`, '--query', 'screenshot.type=gif']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--query: EINVALQUERY/);
  assert.is(bad.lines.length, 0);
  assert.is(fx.hits.length, hitsBefore, 'nothing was fetched');
  const badFlag = await cli([`${fx.url}/site/p/0`, '--max-pages', 'ten']);
  assert.is(badFlag.code, 2);
  assert.match(badFlag.stderr, /--max-pages must be a whole number/);
  // A negative value is ours to refuse too, and a usage error is one line and where to read more, not the usage.
  const negative = await cli([`${fx.url}/site/p/0`, '--max-pages', '-1']);
  assert.is(negative.code, 2);
  assert.match(negative.stderr, /--max-pages must be a whole number, got "-1"/);
  const none = await cli([`${fx.url}/site/p/0`, '--concurrency', '0']);
  assert.is(none.code, 2);
  assert.match(none.stderr, /--concurrency must be a whole number of at least 1, got "0"/);
  const missing = await cli(['--urls', path.join(dir, 'no-such-list.txt')]);
  assert.is(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /^refract: --urls: cannot read ".*no-such-list\.txt" \(ENOENT\)$/m);
  // A browser node without a token (compose's REFRACT_BROWSER_TOKEN unset) does not start.
  const tokenless = startCli(['browser-server', '--port', '0', '--ws-path', '']);
  assert.is(await tokenless.exited, 2, tokenless.stderrText());
  assert.match(tokenless.stderrText(), /--ws-path is empty: give the token/);
  const unknown = await cli([`${fx.url}/site/p/0`, '--bogus']);
  assert.is(unknown.code, 2);
  assert.equal(unknown.stderr.trim().split('\n'), [
    "refract: Unknown option '--bogus'",
    "run 'refract --help' for the commands and their options",
  ]);
});

test('--version, --help and a bad flag answer without loading the engine (no Playwright, Crawlee or sharp in the process)', () => {
  // Every package the process resolves is recorded (a module resolution hook), and the heavy ones named at exit.
  const tracer = `data:text/javascript,${encodeURIComponent(`import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(spec, ctx, next) { seen.add(spec); return next(spec, ctx); } });
    process.on('exit', () => process.stderr.write('heavy:' + [...seen].filter((s) => /^(playwright-core|@crawlee|sharp|lighthouse)/.test(s)).join(',') + '\\n'));`)}`;
  const run = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [
        '--conditions=refract-source',
        '--import',
        tracer,
        path.resolve(import.meta.dirname, '../../bin/refract.ts'),
        ...args,
      ],
      { encoding: 'utf8' },
    );
  const version = run('--version');
  assert.is(version.status, 0, version.stderr);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  assert.match(version.stderr, /^heavy:\n$/m);
  const help = run('--help');
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /REFRACT_ALLOW_PRIVATE_HOSTS/);
  assert.match(help.stderr, /^heavy:\n$/m);
  // A bad flag is refused before the engine loads (at once, not in the 2 s the engine takes).
  const flag = run('crawl', '--max-pages', 'x', 'http://127.0.0.1:9/');
  assert.is(flag.status, 2);
  assert.match(flag.stderr, /^heavy:\n$/m);
  // The tracer does see them where the engine loads (so the checks above can fail): a query is checked by it.
  const crawl = run('crawl', '--query', 'screenshot.type=gif', 'http://127.0.0.1:9/');
  assert.is(crawl.status, 2);
  assert.match(crawl.stderr, /^heavy:.*(@crawlee|playwright-core)/m);
});

test('a page whose connection drops is tried again (--retries, default 2); with --retries 0 it is a failed line', async () => {
  const retried = await cli(['--urls', '-', '--query', 'meta=true'], `${fx.url}/flaky?a`);
  assert.is(retried.code, 0, retried.stderr);
  assert.is(retried.lines.length, 1);
  assert.is((retried.lines[0] as unknown as { data: { title: string } }).data.title, 'Second time lucky');
  assert.is(fx.hits.filter((h) => h === '/flaky?a').length, 2);
  const once = await cli(['--urls', '-', '--retries', '0'], `${fx.url}/flaky?b`);
  assert.equal(
    once.lines.map((l) => [l.status, (l as { code?: string }).code]),
    [['error', 'EFATALCLIENT']],
  );
  assert.is(fx.hits.filter((h) => h === '/flaky?b').length, 1);
});

test('browser pages of a crawl share a context, replaced every REFRACT_BROWSER_RETIRE_AFTER pages; none is left open', async () => {
  const small = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_BROWSER_RETIRE_AFTER: '5',
      REFRACT_ASSETS_DIR: path.join(dir, 'assets'),
    }),
  });
  try {
    let most = 0;
    const results: CrawlResult[] = [];
    for await (const r of crawl(
      small,
      { start: `${fx.url}/site/p/0` },
      {
        query: 'prerender=true&meta=false&data.title.selector=title',
        maxDepth: 3,
        include: [`${fx.url}/site/p/**`],
        concurrency: 4,
      },
    )) {
      results.push(r);
      most = Math.max(most, (small as ServiceEngine).browsers.stats().contexts);
    }
    // Depth 3 of the binary tree: pages 0 to 14, three contexts' worth.
    assert.equal(results.map((r) => r.url).sort(), allPages(fx.url, 15).sort());
    for (const r of results)
      assert.is((r as unknown as { data: { title: string } }).data.title, `Page ${r.url.split('/').pop()}`);
    // A holder context and the shared one, plus at most one being replaced, each with its holder.
    assert.ok(most >= 2 && most <= 4, `contexts open at once: ${most}`);
    assert.is((small as ServiceEngine).browsers.stats().contexts, 0, 'the crawl closed its contexts');
  } finally {
    await small.close();
  }
});

test('a job cancelled the moment it starts stays cancelled: the answer, the saved job and its end agree', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'refract-jobs-'));
  const jobs = createJobs({ engine, charge: async () => ({ exceeded: false }), dataDir, webhookSecret: 's' });
  try {
    const policy = { limit: 1000, window: 'month' as const };
    const job = await jobs.create('owner', policy, { input: { start: `${fx.url}/site/p/0` }, options: {} });
    // The walk is reading the job's lines while the cancel comes: it once set the job running again after it.
    const answer = await jobs.cancel(job);
    assert.is(answer.status, 'cancelled');
    await jobs.close();
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'crawls', job.id, 'job.json'), 'utf8'));
    assert.is(saved.status, 'cancelled');
    assert.is(saved.pages.queued, 0);
    assert.ok(saved.finishedAt, 'it has an end time');
  } finally {
    await jobs.close();
  }
});

test.run();
