import { BasicCrawler } from '@crawlee/basic';
import { Configuration, RequestQueue, enqueueLinks, type Request } from '@crawlee/core';
import { MemoryStorage } from '@crawlee/memory-storage';
import { load } from 'cheerio';
import { createRequire } from 'node:module';
import { RefractError } from './errors.ts';
import { parseQuery, type RawObject } from './params.ts';
import { lightGet } from './fetch/light.ts';
import { checkTargetUrl } from './fetch/url.ts';
import type { Engine } from './engine.ts';
import type { Tier } from './plan.ts';

/** Where a crawl starts: a list of pages, a sitemap, or one page whose links are followed. */
export type CrawlInput = { urls: readonly string[] } | { sitemap: string } | { start: string };

/** How a crawl runs: the same query options as the API, and the limits of the walk. */
export interface CrawlOptions {
  /** Query options for every page, written as the API takes them (`screenshot&palette`). */
  query?: string | RawObject;
  maxPages?: number;
  /** Link depth from the start page (0 = the start page only); only for `start` input. */
  maxDepth?: number;
  /** Globs a followed link must match (any of them), and globs that exclude it. */
  include?: readonly string[];
  exclude?: readonly string[];
  /** Follow links to other hosts too (default: the start page's host only). */
  anyHost?: boolean;
  /** Obey robots.txt (default true). */
  robots?: boolean;
  concurrency?: number;
  tier?: Tier;
}

/** One page's outcome, as a line of the crawl's output. */
export type CrawlResult =
  | { url: string; status: 'success'; data: Record<string, unknown>; warnings?: unknown[] }
  | { url: string; status: 'fail' | 'error'; code: string; message: string };

const USER_AGENT_ROBOTS = 'Refract';

interface Robots { isAllowed(url: string, ua?: string): boolean | undefined }
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => Robots;

function failure(url: string, err: unknown): CrawlResult {
  const e = err instanceof RefractError ? err : new RefractError('EFATAL', (err as Error)?.message ?? 'unexpected error');
  return { url, status: e.status < 500 ? 'fail' : 'error', code: e.code, message: e.message };
}

/** Reads a sitemap (or a sitemap index, one level deep) through the SSRF guard. */
async function sitemapUrls(engine: Engine, url: string, depth = 0): Promise<string[]> {
  const res = await lightGet(url, { guard: engine.guard, signal: AbortSignal.timeout(engine.config.timeoutMs), maxBytes: engine.config.maxBodyBytes });
  if (res.statusCode >= 400) throw new RefractError('EINVALURL', `The sitemap ${url} answered ${res.statusCode}`);
  const $ = load(res.body.toString('utf8'), { xml: true });
  const locs = (sel: string) => $(sel).toArray().map((el) => $(el).text().trim()).filter(Boolean);
  const nested = locs('sitemapindex > sitemap > loc');
  if (nested.length && depth < 1) return (await Promise.all(nested.map((n) => sitemapUrls(engine, n, depth + 1)))).flat();
  return locs('urlset > url > loc');
}

/** robots.txt rules per origin, fetched once through the guard; a missing file allows everything. */
function robotsCheck(engine: Engine) {
  const cache = new Map<string, Promise<Robots | undefined>>();
  return async (url: string): Promise<boolean> => {
    const origin = new URL(url).origin;
    let rules = cache.get(origin);
    if (!rules) {
      rules = lightGet(`${origin}/robots.txt`, { guard: engine.guard, signal: AbortSignal.timeout(10_000), maxBytes: 512 * 1024 })
        .then((res) => (res.statusCode < 400 ? robotsParser(`${origin}/robots.txt`, res.body.toString('utf8')) : undefined), () => undefined);
      cache.set(origin, rules);
    }
    const parsed = await rules;
    return parsed ? parsed.isAllowed(url, USER_AGENT_ROBOTS) !== false : true;
  };
}

/**
 * Crawls with the engine: every page runs the same plan an API request would (its query options), on a Crawlee
 * crawler with bounded concurrency; links are followed for `start` input. Yields each page's result as it
 * comes; one bad page never stops the crawl. `stateDir` keeps the queue on disk (Crawlee's storage).
 */
export async function* crawl(engine: Engine, input: CrawlInput, options: CrawlOptions = {}, stateDir?: string): AsyncGenerator<CrawlResult> {
  const query: RawObject = typeof options.query === 'string' || options.query === undefined ? parseQuery(new URLSearchParams(options.query ?? '')) : options.query;
  const tier = options.tier ?? 'pro';
  const follow = 'start' in input;
  const maxDepth = options.maxDepth ?? (follow ? 3 : 0);
  const allowed = options.robots === false ? async () => true : robotsCheck(engine);
  const results: CrawlResult[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const emit = (r: CrawlResult) => { results.push(r); wake?.(); };
  let started = 0;

  // The start: the list (invalid entries are reported at once, not queued), the sitemap's pages, or the start page.
  let seeds: string[] = [];
  try {
    seeds = 'urls' in input ? [...input.urls] : 'sitemap' in input ? await sitemapUrls(engine, input.sitemap) : [input.start];
  } catch (err) {
    yield failure('sitemap' in input ? input.sitemap : '', err);
    return;
  }
  const valid: string[] = [];
  for (const url of seeds) {
    try { valid.push(checkTargetUrl(url).href); } catch (err) { emit(failure(url, err)); }
  }

  const config = new Configuration({ persistStorage: !!stateDir, purgeOnStart: false, storageClient: new MemoryStorage({ localDataDirectory: stateDir, persistStorage: !!stateDir, writeMetadata: !!stateDir }) });
  const queue = await RequestQueue.open('crawl', { config });
  await queue.addRequests(valid.map((url) => ({ url, userData: { depth: 0 } })));
  const crawler = new BasicCrawler({
    requestQueue: queue,
    maxConcurrency: options.concurrency ?? 4,
    minConcurrency: Math.min(options.concurrency ?? 4, 2),
    maxRequestsPerCrawl: options.maxPages,
    maxRequestRetries: 0,
    requestHandlerTimeoutSecs: Math.ceil(engine.config.maxTimeoutMs / 1000) + 30,
    statusMessageLoggingInterval: 3600,
    async requestHandler({ request }) {
      // Crawlee's own cap can overshoot by the pages already in flight: the count here is exact.
      if (options.maxPages !== undefined && started >= options.maxPages) return;
      started++;
      const depth = Number(request.userData.depth ?? 0);
      if (!(await allowed(request.url))) {
        emit({ url: request.url, status: 'fail', code: 'EROBOTS', message: 'robots.txt disallows this page' });
        return;
      }
      try {
        const plan = { ...engine.plan({ ...query, url: request.url }, tier), collectLinks: follow && depth < maxDepth };
        const out = await engine.run(plan);
        if (plan.collectLinks && out.links?.length) {
          await enqueueLinks({
            urls: out.links, requestQueue: queue, baseUrl: request.url, strategy: options.anyHost ? 'all' : 'same-hostname',
            globs: options.include?.length ? [...options.include] : undefined, exclude: options.exclude?.length ? [...options.exclude] : undefined,
            userData: { depth: depth + 1 },
          });
        }
        emit({ url: request.url, status: 'success', data: out.data, ...(out.warnings.length ? { warnings: out.warnings } : {}) });
      } catch (err) {
        emit(failure(request.url, err));
      }
    },
    async failedRequestHandler({ request }: { request: Request }, error: Error) {
      emit(failure(request.url, error));
    },
  }, config);
  const run = crawler.run().finally(() => { finished = true; wake?.(); });
  try {
    for (;;) {
      while (results.length) yield results.shift()!;
      if (finished) break;
      await new Promise<void>((resolve) => { wake = resolve; });
      wake = undefined;
    }
    await run;
    while (results.length) yield results.shift()!;
  } finally {
    if (!finished) crawler.autoscaledPool?.abort();
  }
}
