// A crawl's pages apart from the walk itself: each page's key and failure line, the robots.txt rules and sitemaps
// it reads through the SSRF guard, and its query options checked once as `GET /` checks them.
import { Request } from '@crawlee/core';
import {
  toFailure,
  parseQuery,
  queryParams,
  withDeadline,
  type Engine,
  type RawObject,
  type Tier,
} from '../engine/index.ts';
import { robotsParser, sitemapPages, type Robots } from './sitemaps.ts';
import type { CrawlInput, CrawlOptions, CrawlResult } from './walk.ts';

const USER_AGENT_ROBOTS = 'Refract';
/** A page's failure as a line of the crawl's output (the API's JSend failure). */
export function failure(url: string, err: unknown): CrawlResult {
  const f = toFailure(err, (err as Error)?.message ?? 'unexpected error');
  return { url, status: f.jsend, code: f.code, message: f.message };
}

/** The identity of a page in a crawl: Crawlee's unique key (normalized URL), or the text itself when it is no URL. */
export function pageKey(url: string): string {
  try {
    return new Request({ url }).uniqueKey;
  } catch {
    return url;
  }
}

/** Reads a sitemap (or a sitemap index and the sitemaps it nests, gzipped or not) through the SSRF guard. */
export function sitemapUrls(engine: Engine, url: string, maxPages = Number.POSITIVE_INFINITY): Promise<string[]> {
  // Read no further than the pages the crawl may visit (streamed: a sitemap of a million URLs stops there).
  return withDeadline(engine.config.timeoutMs, [], (signal) =>
    sitemapPages(engine, [url], { signal, enough: (found) => found >= maxPages }),
  );
}

/** robots.txt rules per origin, fetched once through the guard; a missing file allows everything. */
export function robotsCheck(engine: Engine) {
  const cache = new Map<string, Promise<Robots | undefined>>();
  return async (url: string): Promise<boolean> => {
    const origin = new URL(url).origin;
    let rules = cache.get(origin);
    if (!rules) {
      rules = withDeadline(10_000, [], (signal) =>
        engine.get(`${origin}/robots.txt`, { signal, maxBytes: 512 * 1024 }),
      ).then(
        (res) => (res.statusCode < 400 ? robotsParser(`${origin}/robots.txt`, res.body.toString('utf8')) : undefined),
        () => undefined,
      );
      cache.set(origin, rules);
    }
    const parsed = await rules;
    return parsed ? parsed.isAllowed(url, USER_AGENT_ROBOTS) !== false : true;
  };
}

/** The URL a crawl's input names (the sitemap or the start page; none for a list), for a line about the whole input. */
export function inputUrl(input: CrawlInput): string {
  return 'sitemap' in input ? input.sitemap : 'start' in input ? input.start : '';
}

/**
 * Parses a crawl's query options and validates them once, as a plan for a stand-in page: a bad option is the
 * caller's error (a RefractError), not every page's.
 */
export function crawlQuery(engine: Engine, query: CrawlOptions['query'], tier: Tier = 'pro'): RawObject {
  return checkedQuery(engine, query, tier).parsed;
}

/**
 * A crawl's query options checked as `GET /` checks a query: the options as query text (the one shape a job
 * keeps, whichever shape the caller gave), and the names it does not know (`screenshot.fulPage`), to be said.
 */
export function checkedQuery(
  engine: Engine,
  query: CrawlOptions['query'],
  tier: Tier = 'pro',
): { parsed: RawObject; text: string; unknown: string[] } {
  const params = queryParams(query);
  const parsed = parseQuery(params);
  const { unknownParams } = engine.plan({ ...parsed, url: 'https://example.com/' }, tier);
  return { parsed, text: params.toString(), unknown: unknownParams };
}
