#!/usr/bin/env node
// `npx refract crawl ...`: the engine from the command line. Results are JSON lines, one per page.
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine, loadConfig, loadPlugins, type CrawlInput } from '../engine/index.ts';
import { defaultPlugins } from '../plugins/index.ts';

const USAGE = `usage: refract crawl [start-url] [options]
  input (one of):
    <start-url>              follow links from this page (same host unless --any-host)
    --urls <file|->          a list of URLs, one per line (- reads standard input)
    --sitemap <url>          the pages of a sitemap (or sitemap index)
  options:
    --query <options>        API query options for every page, e.g. "screenshot&palette&data.price.selector=.price"
    --out <file>             JSON lines output (default: standard output); assets go to <file>.assets/
    --state <dir>            keep the crawl queue in this folder
    --max-pages <n>          stop after n pages
    --max-depth <n>          link depth from the start page (default 3)
    --concurrency <n>        pages at once (default 4)
    --include <glob>         follow only links matching (repeatable)
    --exclude <glob>         never follow links matching (repeatable)
    --any-host               follow links to other hosts too
    --no-robots              ignore robots.txt
    --proxy-urls <list>      comma-separated proxies to rotate over
  environment: the server's (REFRACT_ALLOW_PRIVATE_HOSTS, PROXY_URLS, REFRACT_PLUGINS, ...)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'crawl') {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === '--help' ? 0 : 2;
  }
  const { values, positionals } = parseArgs({
    args: rest, allowPositionals: true,
    options: {
      urls: { type: 'string' }, sitemap: { type: 'string' }, query: { type: 'string' }, out: { type: 'string' }, state: { type: 'string' },
      'max-pages': { type: 'string' }, 'max-depth': { type: 'string' }, concurrency: { type: 'string' },
      include: { type: 'string', multiple: true }, exclude: { type: 'string', multiple: true },
      'any-host': { type: 'boolean' }, 'no-robots': { type: 'boolean' }, 'proxy-urls': { type: 'string' }, help: { type: 'boolean' },
    },
  });
  if (values.help) { process.stdout.write(`${USAGE}\n`); return 0; }
  let input: CrawlInput;
  if (values.urls) {
    const text = values.urls === '-' ? readFileSync(0, 'utf8') : readFileSync(values.urls, 'utf8');
    input = { urls: text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')) };
  } else if (values.sitemap) input = { sitemap: values.sitemap };
  else if (positionals[0]) input = { start: positionals[0] };
  else { process.stderr.write(`${USAGE}\n`); return 2; }
  const int = (v: string | undefined) => (v === undefined ? undefined : Number.parseInt(v, 10));
  const out = values.out ? createWriteStream(values.out, { flags: 'a' }) : process.stdout;
  const env: Record<string, string | undefined> = { ...process.env };
  if (values.out) env.REFRACT_ASSETS_DIR ??= `${path.resolve(values.out)}.assets`;
  if (values['proxy-urls']) env.PROXY_URLS = values['proxy-urls'];
  env.REFRACT_LOG_LEVEL ??= 'warn';
  const config = loadConfig(env);
  const engine = await createEngine({ config, plugins: [...defaultPlugins, ...(await loadPlugins(config.plugins))] });
  const started = Date.now();
  let done = 0;
  let failed = 0;
  const tty = process.stderr.isTTY;
  let lastReport = 0;
  const report = (final = false) => {
    const secs = (Date.now() - started) / 1000;
    const line = `${done} pages, ${failed} failed, ${(done / Math.max(secs, 0.001) * 60).toFixed(0)} pages/min, ${secs.toFixed(0)} s`;
    if (final) process.stderr.write(`${tty ? '\r' : ''}done: ${line}\n`);
    else if (tty) process.stderr.write(`\r${line}`);
    else if (Date.now() - lastReport > 10_000) { lastReport = Date.now(); process.stderr.write(`${line}\n`); }
  };
  try {
    for await (const result of engine.crawl(input, {
      query: values.query, maxPages: int(values['max-pages']), maxDepth: int(values['max-depth']), concurrency: int(values.concurrency),
      include: values.include, exclude: values.exclude, anyHost: values['any-host'], robots: !values['no-robots'],
    }, values.state)) {
      done++;
      if (result.status !== 'success') failed++;
      out.write(`${JSON.stringify(result)}\n`);
      report();
    }
  } finally {
    report(true);
    if (out !== process.stdout) await new Promise<void>((resolve) => (out as NodeJS.WritableStream).end(resolve));
    await engine.close();
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
process.exit();
