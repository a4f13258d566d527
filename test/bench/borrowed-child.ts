// One side of `npm run bench borrowed`, in a process of its own: `content [patched|unpatched] [ioredis]` times the
// main content (Markdown) of the articles corpus; `domains [crawlee|refract] N` runs N tasks on as many domains
// through a Crawlee crawler with Crawlee's own delayRequest or Refract's, and reports the heap they leave behind.
// With `unpatched`, linkedom, Readability and ioredis resolve to their published code (node_modules/.refract-unpatched,
// made by borrowed.ts), everything else as in the server.
import { registerHooks } from 'node:module';
import { readdir, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UNPATCHED } from './borrowed.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const [kind, mode, extra] = process.argv.slice(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (kind === 'content') {
  if (mode === 'unpatched') {
    const from = pathToFileURL(path.join(UNPATCHED, 'index.js')).href;
    const published = /^(refract-linkedom|refract-readability|ioredis)(\/|$)/;
    registerHooks({
      resolve: (specifier, context, next) =>
        published.test(specifier) ? next(specifier, { ...context, parentURL: from }) : next(specifier, context),
    });
  }
  // A process that talks to Redis has loaded ioredis before it parses a page (the ioredis patch is about that).
  if (extra === 'ioredis') await import('ioredis');
  const { pageToMarkdown } = await import('../../plugins/shared/content/markdown.ts');
  const dir = path.join(ROOT, '../shared/corpus/articles/dev');
  const files = (await readdir(dir)).sort();
  const pages = await Promise.all(
    files.map(async (f) => ({
      url: `http://127.0.0.1/a/${f}/`,
      html: gunzipSync(await readFile(path.join(dir, f))).toString('utf8'),
    })),
  );
  const perPage: number[] = [];
  let chars = 0;
  for (const page of pages) {
    const runs: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      chars += pageToMarkdown(page.html, page.url).length;
      runs.push(performance.now() - t);
    }
    perPage.push(median(runs));
  }
  console.log(JSON.stringify({ msPerPage: median(perPage), pages: pages.length, chars }));
} else if (kind === 'domains') {
  const { BasicCrawler } = await import('@crawlee/basic');
  const { Configuration, Log, LogLevel, RequestList } = await import('@crawlee/core');
  const { MemoryStorage } = await import('@crawlee/memory-storage');
  const count = Number(extra);
  class NoDelay extends BasicCrawler {
    protected override delayRequest(): boolean {
      return false;
    }
  }
  const Crawler = mode === 'refract' ? NoDelay : BasicCrawler;
  const list = await RequestList.open(
    null,
    Array.from({ length: count }, (_, i) => ({ url: `https://site-${i}.com/page` })),
  );
  const config = new Configuration({
    persistStorage: false,
    storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
  });
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = process.memoryUsage().heapUsed;
  const crawler = new Crawler(
    {
      requestList: list,
      maxConcurrency: 8,
      maxRequestRetries: 0,
      statusMessageLoggingInterval: 3600,
      log: new Log({ level: LogLevel.OFF }),
      requestHandler: async () => {},
    },
    config,
  );
  const started = performance.now();
  await crawler.run();
  const ms = performance.now() - started;
  // The list is drained; what the crawler still holds per domain is what a server's crawler would keep forever.
  gc();
  const after = process.memoryUsage().heapUsed;
  console.log(JSON.stringify({ retainedBytes: after - before, usPerTask: (ms * 1000) / count, alive: !!crawler }));
} else if (kind === 'queue') {
  // One task after another through a keep-alive crawler, as the executor runs them: Crawlee's own in-memory request
  // queue (the public way) or Refract's request store handed in as the queue.
  const { BasicCrawler } = await import('@crawlee/basic');
  const { Configuration, Log, LogLevel, RequestQueue, Request } = await import('@crawlee/core');
  const { MemoryStorage } = await import('@crawlee/memory-storage');
  const { ServerRequestManager } = await import('../../engine/request/queue-store.ts');
  const config = new Configuration({
    persistStorage: false,
    storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
  });
  const store = mode === 'refract' ? new ServerRequestManager() : await RequestQueue.open(null, { config });
  const waiting = new Map<string, () => void>();
  const crawler = new BasicCrawler(
    {
      requestQueue: store as never,
      keepAlive: true,
      minConcurrency: 4,
      maxConcurrency: 4,
      maxRequestRetries: 0,
      statusMessageLoggingInterval: 3600,
      log: new Log({ level: LogLevel.OFF }),
      requestHandler: async ({ request }) => waiting.get(request.uniqueKey)?.(),
    },
    config,
  );
  void crawler.run();
  const one = async (i: number) => {
    const done = new Promise<void>((resolve) => waiting.set(`t${i}`, resolve));
    const request = new Request({ url: `http://127.0.0.1/${i}`, uniqueKey: `t${i}` });
    if (store instanceof ServerRequestManager) store.push(request);
    else await store.addRequest(request);
    void crawler.autoscaledPool?.notify();
    await done;
  };
  for (let i = 0; i < 50; i++) await one(i);
  const runs: number[] = [];
  for (let i = 50; i < 50 + Number(extra); i++) {
    const t = performance.now();
    await one(i);
    runs.push(performance.now() - t);
  }
  console.log(
    JSON.stringify({ msPerTask: median(runs), p90: [...runs].sort((a, b) => a - b)[Math.floor(runs.length * 0.9)] }),
  );
  process.exit(0);
}
