// `refract crawl`, `refract worker` and `refract browser-server`: a crawl from the command line (its output a JSON
// line a page, resumable), a worker of distributed crawls, a browser tier node; and the engine a command runs on.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CrawlInput, CrawlResult } from '../crawl/index.ts';
import { UsageError } from './usage.ts';

// The engine (Playwright, Crawlee, sharp...) loads with the commands that use it, once their flags are known good.
const engineModule = () => import('../engine/index.ts');
const crawlModule = () => import('../crawl/index.ts');

const OPTIONS = {
  urls: { type: 'string' },
  sitemap: { type: 'string' },
  query: { type: 'string' },
  out: { type: 'string' },
  state: { type: 'string' },
  'max-pages': { type: 'string' },
  'max-depth': { type: 'string' },
  concurrency: { type: 'string' },
  retries: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  'any-host': { type: 'boolean' },
  'no-robots': { type: 'boolean' },
  'proxy-urls': { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'ws-path': { type: 'string' },
  redis: { type: 'string' },
  'crawl-id': { type: 'string' },
  name: { type: 'string' },
  'lock-ms': { type: 'string' },
  help: { type: 'boolean' },
} as const;

function int(flag: string, v: string | undefined, least = 0): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < least)
    throw new UsageError(`--${flag} must be a whole number${least ? ` of at least ${least}` : ''}, got "${v}"`);
  return n;
}

/** The lines of a list of URLs (`--urls`): a file that cannot be read is the caller's mistake, said as one. */
function urlList(from: string): string[] {
  let text: string;
  try {
    text = readFileSync(from === '-' ? 0 : from, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--urls: cannot read "${from}" (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** Options that take a value, as `--name=value`, so that a value starting with `-` (`--max-pages -1`) is the value. */
function joinValues(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([a-z-]+)$/.exec(args[i]!)?.[1];
    const option = name ? (OPTIONS as Record<string, { type: string }>)[name] : undefined;
    if (option?.type === 'string' && i + 1 < args.length && /^-\d/.test(args[i + 1]!))
      out.push(`${args[i]}=${args[++i]}`);
    else out.push(args[i]!);
  }
  return out;
}

/** "1 page", "2 pages". */
const pages = (n: number) => `${n} page${n === 1 ? '' : 's'}`;

export async function engineFor(values: { out?: string; 'proxy-urls'?: string }) {
  const [{ createEngine }, { loadConfig }] = await Promise.all([import('../lib/index.ts'), engineModule()]);
  const env: Record<string, string | undefined> = { ...process.env };
  if (values.out) env.REFRACT_ASSETS_DIR ??= `${path.resolve(values.out)}.assets`;
  // No server serves a crawl's files: their links are the files themselves.
  env.REFRACT_ASSETS_URL ??= pathToFileURL(path.resolve(env.REFRACT_ASSETS_DIR ?? '.assets')).href;
  // A crawl's files are its output, not a cache: nothing prunes them unless asked.
  env.REFRACT_ASSETS_MAX_BYTES ??= '0';
  env.REFRACT_ASSETS_MAX_AGE ??= '0';
  if (values['proxy-urls']) env.PROXY_URLS = values['proxy-urls'];
  env.REFRACT_LOG_LEVEL ??= 'warn';
  const config = loadConfig(env);
  return createEngine({ config });
}

/** Progress on a terminal (one rewritten line), plain periodic stats otherwise, and a summary at the end. */
function progress() {
  const started = Date.now();
  const tty = process.stderr.isTTY;
  let done = 0;
  let failed = 0;
  let known = 0;
  let lastReport = 0;
  const line = (final = false) => {
    const secs = (Date.now() - started) / 1000;
    const perSec = done / Math.max(secs, 0.001);
    const left = Math.max(known - done, 0);
    const eta = known && perSec > 0 ? `, eta ${Math.ceil(left / perSec)} s` : '';
    return `${pages(done)}, ${failed} failed, ${(perSec * 60).toFixed(0)} pages/min, ${secs.toFixed(0)} s${known && !final ? `, ${left} to go${eta}` : ''}`;
  };
  return {
    known(n: number) {
      known = Math.max(n, done);
    },
    page(result: CrawlResult) {
      done++;
      if (result.status !== 'success') failed++;
      if (tty) process.stderr.write(`\r${line()}\u001b[K`);
      else if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        process.stderr.write(`${line()}\n`);
      }
    },
    counts: () => ({ done, failed }),
    end(skipped = 0) {
      const before = skipped ? ` (${skipped} done before, skipped)` : '';
      process.stderr.write(`${tty ? '\r' : ''}done: ${line(true)}${before}${tty ? '\u001b[K' : ''}\n`);
    },
  };
}

/** The settings, as the configuration declares them (the same rows as README's table). */
export async function crawlCommand(args: string[], help: () => string): Promise<number> {
  const { values, positionals } = parseArgs({ args: joinValues(args), allowPositionals: true, options: OPTIONS });
  if (values.help) {
    process.stdout.write(help());
    return 0;
  }
  let input: CrawlInput;
  if (values.urls) input = { urls: urlList(values.urls) };
  else if (values.sitemap) input = { sitemap: values.sitemap };
  else if (positionals[0]) input = { start: positionals[0] };
  else throw new UsageError('give a start URL, --urls or --sitemap');
  const options = {
    query: values.query,
    maxPages: int('max-pages', values['max-pages']),
    maxDepth: int('max-depth', values['max-depth']),
    concurrency: int('concurrency', values.concurrency, 1),
    retries: int('retries', values.retries),
    include: values.include,
    exclude: values.exclude,
    // With an output file the journal goes beside it unless --state says where: the same command resumes.
    anyHost: values['any-host'],
    robots: !values['no-robots'],
    stateDir: values.state ?? (values.out ? `${values.out}.state` : undefined),
  };
  // The crawler and the engine load once the flags are known good: a usage error answers at once (0.2 s, not 1.9 s).
  const [{ crawl, crawlDistributed, checkedQuery, readLines }, { isRefractError }] = await Promise.all([
    crawlModule(),
    engineModule(),
  ]);
  // The output file is the record of what is done: its pages are not redone, and each line is one write, so a
  // killed crawl leaves at most a torn last line (cut off here) and never a page twice.
  const done = values.out
    ? (readLines(values.out) as { url?: string }[]).map((l) => l.url).filter((u): u is string => typeof u === 'string')
    : [];
  const fd = values.out ? openSync(values.out, 'a') : 1;
  const engine = await engineFor(values);
  try {
    // A bad query option is the command's error (exit 2), not a failure of every page.
    // Options it does not know (a typo such as `screenshot.fulPage`) are said once, as the API's header says them.
    const { unknown } = checkedQuery(engine, values.query);
    if (unknown.length) process.stderr.write(`refract: --query: unknown options ignored: ${unknown.join(', ')}\n`);
  } catch (err) {
    await engine.close();
    if (isRefractError(err)) throw new UsageError(`--query: ${err.code}: ${err.message}`);
    throw err;
  }
  const shown = progress();
  if (done.length)
    process.stderr.write(
      `resuming: ${pages(done.length)} already in ${values.out} ${done.length === 1 ? 'is' : 'are'} not done again\n`,
    );
  // Ctrl-C: every line written is whole (one write each) and the journal knows what was done, so the process
  // ends here, saying how to go on (before Crawlee's own advice, which is about its storage, not this command).
  const interrupted = () => {
    const { done: written } = shown.counts();
    const how = values.out
      ? `run the same command again to resume (pages in ${values.out} are not done again)`
      : 'give --out FILE to be able to resume';
    process.stderr.write(`\nstopped: ${pages(written)} written; ${how}\n`);
    process.exit(130);
  };
  process.prependListener('SIGINT', interrupted);
  try {
    const results = values.redis
      ? crawlDistributed(engine, input, {
          ...options,
          done,
          redis: values.redis,
          id: values['crawl-id'],
          onKnown: shown.known,
        })
      : crawl(engine, input, { ...options, done, onKnown: shown.known });
    for await (const result of results) {
      writeSync(fd, `${JSON.stringify(result)}\n`);
      shown.page(result);
    }
  } finally {
    process.off('SIGINT', interrupted);
    shown.end(done.length);
    if (fd !== 1) closeSync(fd);
    await engine.close();
  }
  // A crawl in which every page failed did not do its job: a script running it must see that.
  const { done: count, failed } = shown.counts();
  return count > 0 && failed === count ? 1 : 0;
}

export async function workerCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args: joinValues(args), options: OPTIONS });
  if (!values.redis) throw new UsageError('a worker needs --redis <url>');
  const { startWorker } = await crawlModule();
  const engine = await engineFor(values);
  const worker = await startWorker(engine, {
    redis: values.redis,
    concurrency: int('concurrency', values.concurrency, 1),
    name: values.name,
    lockMs: int('lock-ms', values['lock-ms']),
  });
  process.stderr.write(`worker ${values.name ?? process.pid} is taking pages from ${new URL(values.redis).host}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  // Pages in flight finish for up to 30 s (what a page's timeout allows); past it their locks hand them to others.
  await worker.close(30_000);
  await engine.close();
  return 0;
}

export async function browserServerCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args: joinValues(args), options: OPTIONS });
  // Given but empty (compose's REFRACT_BROWSER_TOKEN unset): a node anyone on its network could drive. A token that
  // ships as a default is as public, so there is none: the node stops at once and says what to set.
  if (values['ws-path'] !== undefined && !values['ws-path'].replace(/^\/+/, '').trim())
    throw new UsageError(
      '--ws-path is empty: give the token that clients put in the path (compose: REFRACT_BROWSER_TOKEN)',
    );
  const { loadConfig, startBrowserServer } = await engineModule();
  const config = loadConfig();
  const server = await startBrowserServer({
    host: values.host ?? '127.0.0.1',
    port: int('port', values.port) ?? 3100,
    wsPath: values['ws-path'],
    chromePath: config.chromePath,
    sandbox: config.chromiumSandbox,
  });
  process.stderr.write(`refract browser-server: ${server.url} (Chromium sandbox ${server.sandboxed ? 'on' : 'off'})\n`);
  const stopped = await Promise.race([
    new Promise<true>((resolve) => {
      process.once('SIGTERM', () => resolve(true));
      process.once('SIGINT', () => resolve(true));
    }),
    server.ended.then(() => false as const),
  ]);
  if (!stopped) {
    process.stderr.write('refract browser-server: Chromium ended\n');
    return 1;
  }
  await server.close();
  return 0;
}
