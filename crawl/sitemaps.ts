// Sitemaps through the SSRF guard: indexes and their nested sitemaps (to a depth), gzipped or not, in XML or text.
import { parseSitemap } from '@crawlee/utils';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { RefractError, type Engine } from '../engine/index.ts';

/** How deep sitemap indexes are followed (an index of indexes of sitemaps is depth 2), and how many files at most. */
const MAX_DEPTH = 3;
const MAX_FILES = 200;
/** A gzipped sitemap is at most 50 MB unpacked (the protocol's own bound). */
const MAX_UNPACKED = 50 * 1024 * 1024;

/** A site's robots.txt, as robots-parser reads it. */
export interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getSitemaps(): string[];
}
export const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robots;

export interface SitemapOptions {
  signal: AbortSignal;
  /** Stop reading further files once this many page URLs were found. */
  enough?: (found: number) => boolean;
  /** A sitemap that cannot be read: thrown (the default), or told here and skipped. */
  onError?: (url: string, err: Error) => void;
}

/** The text of a sitemap file: gunzipped when its bytes are gzip (a `.xml.gz` served as is). */
function textOf(body: Buffer): string {
  if (body[0] === 0x1f && body[1] === 0x8b) return gunzipSync(body, { maxOutputLength: MAX_UNPACKED }).toString('utf8');
  return body.toString('utf8');
}

/** Reads one file: its page URLs and the nested sitemaps it names. */
async function readOne(
  engine: Engine,
  url: string,
  signal: AbortSignal,
): Promise<{ pages: string[]; nested: string[] }> {
  const res = await engine.get(url, { signal, maxBytes: engine.config.maxBodyBytes });
  if (res.statusCode >= 400) throw new RefractError('EINVALURL', `The sitemap ${url} answered ${res.statusCode}`);
  const pages: string[] = [];
  const nested: string[] = [];
  // Crawlee parses what was fetched here (maxDepth 0: it fetches nothing itself, so every read passes the guard).
  for await (const item of parseSitemap([{ type: 'raw', content: textOf(res.body) }], undefined, {
    emitNestedSitemaps: true,
    maxDepth: 0,
  })) {
    (item.originSitemapUrl === null ? nested : pages).push(item.loc);
  }
  return { pages, nested };
}

/** The page URLs of sitemaps and of the sitemaps they nest, breadth first, each file read once. */
export async function sitemapPages(
  engine: Engine,
  roots: readonly string[],
  options: SitemapOptions,
): Promise<string[]> {
  const seen = new Set<string>(roots);
  const out: string[] = [];
  let level = [...roots];
  for (let depth = 0; level.length && depth <= MAX_DEPTH && !options.enough?.(out.length); depth++) {
    const next: string[] = [];
    const read = await Promise.all(
      level.map((url) =>
        readOne(engine, url, options.signal).catch((err: Error) => {
          if (!options.onError) throw err;
          options.onError(url, err);
          return { pages: [], nested: [] };
        }),
      ),
    );
    for (const { pages, nested } of read) {
      out.push(...pages);
      for (const n of nested) if (!seen.has(n) && seen.size < MAX_FILES && seen.add(n)) next.push(n);
    }
    level = next;
  }
  return out;
}
