// A site's URLs without rendering anything (`GET /map`, `refract map`, the MCP `map` tool): the sitemaps robots.txt
// names (or /sitemap.xml), with their nested sitemaps, gzipped too, and the links of the start page; same site by
// default, canonical (no fragment, one spelling per page), de-duplicated, filtered by `search`, each host through
// the SSRF guard.
import { constructGlobObjectsFromGlobs, createRequests } from '@crawlee/core';
import {
  bool,
  checkTargetUrl,
  describeIssue,
  num,
  oneOf,
  parseHtml,
  parseQuery,
  RefractError,
  text,
  withDeadline,
  z,
  type Engine,
} from '../engine/index.ts';
import { robotsParser, sitemapPages } from './sitemaps.ts';
import { pageKey } from './pages.ts';

export interface MapOptions {
  /** At most this many URLs (default 5,000). */
  limit?: number;
  /** Only URLs holding this text (without case), or matching it as a glob when it has `*` (`**\/blog/*`). */
  search?: string;
  /** Hosts under the start's too (`blog.example.com` for `example.com`); default false: that host only (`www.` aside). */
  subdomains?: boolean;
  /** Sitemaps and links (`include`, the default), sitemaps only (`only`), or the start page's links only (`skip`). */
  sitemap?: 'include' | 'only' | 'skip';
  /** Ends the work early; the engine's request timeout bounds it anyway. */
  signal?: AbortSignal;
}

export const MAP_LIMIT = 5000;

/** The options of `GET /map` (and of the CLI and the MCP tool): one schema, described in OpenAPI from here. */
export const mapParams = z.object({
  url: text().describe('The site: its start page (its links) and its origin (robots.txt, sitemaps).'),
  limit: num({ min: 1, max: 100_000, int: true })
    .default(MAP_LIMIT)
    .describe(`At most this many URLs (default ${MAP_LIMIT}).`),
  search: text()
    .optional()
    .describe('Only URLs holding this text (without case), or matching it as a glob when it has `*`.'),
  subdomains: bool().default(false).describe("Hosts under the start's too (default: that host only, `www.` aside)."),
  sitemap: oneOf(['include', 'only', 'skip'])
    .default('include')
    .describe("Sitemaps and links (`include`), sitemaps only (`only`), or the start page's links only (`skip`)."),
});
export type MapQuery = z.output<typeof mapParams>;

/** A `/map` query string checked: its options, and the names nothing reads; a bad one is 400 EINVALQUERY. */
export function mapQuery(search: string | URLSearchParams): { query: MapQuery; unknown: string[] } {
  const raw = parseQuery(search);
  const parsed = mapParams.safeParse(raw);
  if (!parsed.success) {
    const { param, message } = describeIssue('', parsed.error);
    throw new RefractError(param === 'url' ? 'EINVALURL' : 'EINVALQUERY', message, { data: { param } });
  }
  return { query: parsed.data, unknown: Object.keys(raw).filter((k) => !Object.hasOwn(mapParams.shape, k)) };
}

/** The host a site is named by: without `www.`. */
const siteHost = (host: string) => host.toLowerCase().replace(/^www\./, '');

/** Whether a URL is of the start's site: the same host (`www.` aside) or, with `subdomains`, one under it. */
function scopeOf(start: URL, subdomains: boolean): (url: URL) => boolean {
  const site = siteHost(start.hostname);
  return (url) => {
    const host = siteHost(url.hostname);
    return host === site || (subdomains && host.endsWith(`.${site}`));
  };
}

/** Whether a URL matches `search`: a glob when it has `*` (Crawlee's, as a crawl's `include`), else its text. */
function searchOf(search: string | undefined): (urls: string[]) => string[] {
  if (!search) return (urls) => urls;
  if (search.includes('*')) {
    const globs = constructGlobObjectsFromGlobs([search]);
    return (urls) => createRequests(urls, globs).map((r) => r.url);
  }
  const needle = search.toLowerCase();
  return (urls) => urls.filter((u) => u.toLowerCase().includes(needle));
}

/** The sitemaps robots.txt names, or the conventional /sitemap.xml when it names none. */
async function sitemapRoots(engine: Engine, origin: string, signal: AbortSignal): Promise<string[]> {
  const robots = await engine
    .get(`${origin}/robots.txt`, { signal, maxBytes: 512 * 1024 })
    .then((res) => (res.statusCode < 400 ? robotsParser(`${origin}/robots.txt`, res.body.toString('utf8')) : undefined))
    .catch(() => undefined);
  const named = robots?.getSitemaps() ?? [];
  return named.length ? named : [`${origin}/sitemap.xml`];
}

/** The links of the start page (none when it answers an error), resolved against where it ended up. */
async function pageLinks(engine: Engine, url: string, signal: AbortSignal): Promise<string[]> {
  const res = await engine.get(url, { signal, maxBytes: engine.config.maxBodyBytes });
  if (res.statusCode >= 400 || !/html/i.test(res.contentType)) return [url];
  const $ = parseHtml(res.body.toString('utf8'), res.url);
  const base = $('base[href]').attr('href');
  const links = [res.url];
  $('a[href], area[href]').each((_, el) => {
    const href = $(el).attr('href');
    if (!href) return;
    try {
      links.push(new URL(href, new URL(base ?? res.url, res.url)).href);
    } catch {
      // Not a URL: skipped.
    }
  });
  return links;
}

/** The URLs of the site of `url`: see above. A start URL the guard refuses is EFORBIDDENURL, as for `GET /`. */
export async function mapSite(engine: Engine, url: string, options: MapOptions = {}): Promise<string[]> {
  const start = new URL(checkTargetUrl(url));
  const limit = options.limit ?? MAP_LIMIT;
  const inScope = scopeOf(start, options.subdomains ?? false);
  const matching = searchOf(options.search);
  const mode = options.sitemap ?? 'include';
  return withDeadline(engine.config.timeoutMs, [options.signal], async (signal) => {
    await engine.guard.resolve(start.hostname);
    const seen = new Set<string>();
    const add = (candidates: readonly string[]) => {
      const fresh: string[] = [];
      for (const raw of candidates) {
        let u: URL;
        try {
          u = new URL(raw);
        } catch {
          continue;
        }
        if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !inScope(u)) continue;
        u.hash = '';
        // One spelling per page (Crawlee's unique key: host case, query order...); the first one met is kept.
        const key = pageKey(u.href);
        if (seen.has(key)) continue;
        seen.add(key);
        fresh.push(u.href);
      }
      return fresh;
    };
    const kept: string[] = [];
    const keep = (urls: string[]) => {
      for (const u of matching(add(urls))) if (kept.length < limit) kept.push(u);
    };
    const [links, fromSitemaps] = await Promise.all([
      mode === 'only' ? [] : pageLinks(engine, start.href, signal),
      mode === 'skip'
        ? []
        : sitemapRoots(engine, start.origin, signal).then((roots) =>
            // A missing or broken sitemap leaves the links; the map is what could be read.
            sitemapPages(engine, roots, { signal, onError: () => undefined, enough: (n) => n >= limit * 4 }),
          ),
    ]);
    keep(links);
    keep(fromSitemaps);
    return allowedHosts(engine, kept);
  });
}

/** The URLs whose hosts the guard lets through (each host asked once): a sitemap may name any address. */
async function allowedHosts(engine: Engine, urls: string[]): Promise<string[]> {
  const verdicts = new Map<string, Promise<boolean>>();
  const allowed = (host: string) => {
    let v = verdicts.get(host);
    if (!v)
      verdicts.set(
        host,
        (v = engine.guard.resolve(host).then(
          () => true,
          (err: { code?: string }) => err.code !== 'EFORBIDDENURL',
        )),
      );
    return v;
  };
  const ok = await Promise.all(urls.map((u) => allowed(new URL(u).hostname)));
  return urls.filter((_, i) => ok[i]);
}
