// A crawl's walk: its seeds (a list, a sitemap or a start page), how a page is visited (the API's plan, robots.txt,
// retries of what may pass) and which of its links are followed; `crawl` walks it in this process with a journal,
// distributed.ts and worker.ts share it through Redis.
import { constructGlobObjectsFromGlobs, createRequests } from '@crawlee/core';
import { randomUUID } from 'node:crypto';
import { RefractError, filtered, checkTargetUrl, type Engine, type QueryInput, type Tier } from '../engine/index.ts';
import { openJournal } from './journal.ts';
import { crawlQuery, failure, inputUrl, pageKey, robotsCheck, sitemapUrls } from './pages.ts';

/** Where a crawl starts: a list of pages, a sitemap, or one page whose links are followed. */
export type CrawlInput = { urls: readonly string[] } | { sitemap: string } | { start: string };

/** How a crawl runs: the same query options as the API, and the limits of the walk. */
export interface CrawlOptions {
  /**
   * Query options for every page, written as the API takes them (`screenshot&palette`), or as an object read the
   * same way (`{ screenshot: { fullPage: true }, meta: false }`).
   */
  query?: QueryInput;
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
  /** Times a page is tried again after a failure that may pass (time-outs, network errors, a busy browser); default 2. */
  retries?: number;
  tier?: Tier;
  /**
   * A folder that keeps the crawl's journal, so that running the same crawl again resumes it: pages already
   * taken are not redone, and the links they found are walked.
   */
  stateDir?: string;
  /**
   * Pages whose results the caller already holds (for example, the URLs of an existing output file). When links
   * are followed, give `stateDir` too: the journal keeps the links those pages found, which are walked on.
   */
  done?: Iterable<string>;
  /** Told how many pages the crawl knows of so far (done, in progress and queued), for progress and eta. */
  onKnown?: (pages: number) => void;
}

/** One page's outcome, as a line of the crawl's output. */
export type CrawlResult =
  | { url: string; status: 'success'; data: Record<string, unknown>; warnings?: unknown[] }
  | { url: string; status: 'fail' | 'error'; code: string; message: string };

/** Failures that may pass when the page is tried again, and the first wait before that (doubling). */
const TRANSIENT = new Set(['ETIMEOUT', 'EBRWSRTIMEOUT', 'EBUSY', 'EFATAL', 'EFATALCLIENT', 'EPROXY']);
const RETRY_BACKOFF_MS = 500;

/** A link to walk: where, and how deep. */
export interface Link {
  url: string;
  depth: number;
}

/** What one page of a crawl gave: its result line, and the links to walk from it (already filtered). */
export interface Visit {
  result: CrawlResult;
  links: Link[];
}

/**
 * A crawl's walk, shared by the local crawler and the Redis workers: the seeds, how one page is visited (the
 * API's plan for its query options, robots.txt), and which of its links are followed.
 */
export interface Walk {
  seeds(): Promise<{ valid: string[]; invalid: CrawlResult[] }>;
  visit(url: string, depth: number): Promise<Visit>;
  /** Closes what the walk's pages shared (its browser contexts). */
  close(): Promise<void>;
}

export function createWalk(engine: Engine, input: CrawlInput, options: CrawlOptions = {}): Walk {
  const tier = options.tier ?? 'pro';
  const query = crawlQuery(engine, options.query, tier);
  const following = 'start' in input;
  const maxDepth = options.maxDepth ?? (following ? 3 : 0);
  const allowed = options.robots === false ? async () => true : robotsCheck(engine);
  const include = options.include?.length ? constructGlobObjectsFromGlobs(options.include) : undefined;
  const exclude = options.exclude?.length ? constructGlobObjectsFromGlobs(options.exclude) : [];
  const retries = options.retries ?? 2;
  // The walk's browser pages share contexts, like one crawler session (cookies carry from page to page).
  const share = `crawl-${randomUUID()}`;

  const follow = (pageUrl: string, depth: number, links: readonly string[]): Link[] => {
    if (!following || depth >= maxDepth) return [];
    const host = new URL(pageUrl).hostname;
    const candidates = options.anyHost ? links : links.filter((l) => URL.canParse(l) && new URL(l).hostname === host);
    return createRequests([...candidates], include, exclude).map((r) => ({ url: r.url, depth: depth + 1 }));
  };

  return {
    async seeds() {
      const seeds =
        'urls' in input
          ? [...input.urls]
          : 'sitemap' in input
            ? await sitemapUrls(engine, input.sitemap, options.maxPages)
            : [input.start];
      const valid: string[] = [];
      const invalid: CrawlResult[] = [];
      for (const url of seeds) {
        try {
          valid.push(checkTargetUrl(url).href);
        } catch (err) {
          invalid.push(failure(url, err));
        }
      }
      return { valid, invalid };
    },
    async visit(url, depth) {
      for (let attempt = 0; ; attempt++) {
        try {
          if (!(await allowed(url)))
            return {
              result: { url, status: 'fail', code: 'EROBOTS', message: 'robots.txt disallows this page' },
              links: [],
            };
          const planned = engine.plan({ ...query, url }, tier);
          // A retry must not be answered by the failure the cache remembers from the attempt before.
          const options = attempt > 0 ? { ...planned.options, force: true } : planned.options;
          const plan = { ...planned, options, collectLinks: following && depth < maxDepth, shareContext: share };
          // Through the engine's cache, as an API request would: a warm cache answers without a fetch.
          const out = await engine.extract(plan);
          const data = filtered(out.data, plan.options);
          return {
            result: { url, status: 'success', data, ...(out.warnings.length ? { warnings: out.warnings } : {}) },
            links: follow(url, depth, out.links ?? []),
          };
        } catch (err) {
          const result = failure(url, err);
          if (attempt >= retries || result.status === 'success' || !TRANSIENT.has(result.code))
            return { result, links: [] };
          await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS * 2 ** attempt));
        }
      }
    },
    close: () => engine.closeShared(share),
  };
}

/**
 * Crawls a list, a sitemap or a site from a start page on an engine, yielding each page's result as it comes. An
 * engine that is closed (or whose executor stopped) is refused at once with EBUSY.
 */
export function crawl(engine: Engine, input: CrawlInput, options: CrawlOptions = {}): AsyncGenerator<CrawlResult> {
  if (!engine.alive()) throw new RefractError('EBUSY', 'The engine is closed: create another to crawl again');
  return crawlPages(engine, input, options);
}

/**
 * Crawls with the engine: every page runs the same plan an API request would (its query options) as one task of
 * the engine's own crawler (`engine.extract`: its sessions, proxies and cache), `concurrency` pages at a time,
 * breadth first; links are followed for `start` input. Yields each page's result as it comes; one bad page never
 * stops the crawl.
 *
 * With `stateDir`, every visited page's links are journaled before its result is yielded, and every result the
 * caller has taken (asked for the next one after) is journaled as done; running the same crawl again skips the
 * done pages (and those in `done`) and walks the journaled links, so a killed crawl finishes without redoing or
 * losing a page.
 */
async function* crawlPages(engine: Engine, input: CrawlInput, options: CrawlOptions): AsyncGenerator<CrawlResult> {
  let walk: Walk;
  let seeds: { valid: string[]; invalid: CrawlResult[] };
  try {
    walk = createWalk(engine, input, options);
    seeds = await walk.seeds();
  } catch (err) {
    yield failure(inputUrl(input), err);
    return;
  }
  const journal = options.stateDir ? openJournal(options.stateDir) : undefined;
  const done = new Set<string>();
  for (const url of options.done ?? []) done.add(pageKey(url));
  for (const url of journal?.done ?? []) done.add(pageKey(url));
  let taken = done.size;
  const room = () => options.maxPages === undefined || taken < options.maxPages;

  const results: CrawlResult[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const emit = (r: CrawlResult) => {
    results.push(r);
    wake?.();
  };
  for (const r of seeds.invalid) {
    if (done.has(pageKey(r.url)) || !room()) continue;
    taken++;
    emit(r);
  }

  // The frontier: pages to visit, breadth first, each known once by its unique key (Crawlee's normalized URL).
  const queue: Link[] = [];
  let head = 0;
  const seen = new Set<string>();
  let known = taken;
  const enqueue = (links: readonly Link[]) => {
    let added = 0;
    for (const link of links) {
      const key = pageKey(link.url);
      if (done.has(key) || seen.has(key)) continue;
      seen.add(key);
      queue.push(link);
      added++;
    }
    if (!added) return;
    known += added;
    options.onKnown?.(options.maxPages === undefined ? known : Math.min(known, options.maxPages));
  };
  enqueue(seeds.valid.map((url) => ({ url, depth: 0 })));
  // Resuming: the pages walked before found these links (the frontier itself is rebuilt, not trusted).
  for (const page of journal?.pages ?? []) enqueue(page.links);

  const concurrency = Math.max(1, options.concurrency ?? 4);
  let stopped = false;
  let active = 0;
  // Starts pages while there is room, each one engine task; a page's links are journaled and enqueued before its
  // result is emitted, so a result the caller holds never loses the links it found. Ends when nothing is in flight
  // and nothing more can start.
  const pump = () => {
    while (!stopped && active < concurrency && head < queue.length && room()) {
      const link = queue[head++]!;
      // The taken part of a long frontier goes now and then (shift() would copy it for every page).
      if (head > 4096 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
      taken++;
      active++;
      visitOne(link).finally(() => {
        active--;
        pump();
      });
    }
    if (active === 0) {
      finished = true;
      wake?.();
    }
  };
  const visitOne = async (link: Link) => {
    try {
      const { result, links } = await walk.visit(link.url, link.depth);
      if (stopped) return;
      journal?.page(link.url, link.depth, links);
      if (room()) enqueue(links);
      emit(result);
    } catch (err) {
      if (!stopped) emit(failure(link.url, err));
    }
  };
  pump();
  // The result handed out last: taken once the caller asks for the next, or stops asking (`break`).
  let handed: string | undefined;
  const take = () => {
    if (handed !== undefined) journal?.taken(handed);
    handed = undefined;
  };
  try {
    for (;;) {
      while (results.length) {
        const r = results.shift()!;
        handed = r.url;
        yield r;
        take();
      }
      if (finished) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    take();
    stopped = true;
    journal?.close();
    await walk.close();
  }
}
