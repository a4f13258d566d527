// Adapter for ../shared/corpus/score.mjs --module: Refract's extraction core on a page's HTML, no network.
import { load } from 'cheerio';
import { extractMeta } from '../plugins/meta/index.ts';
import { readJsonLd } from '../plugins/meta/helpers.ts';

/** Extracts metadata from one page as the scorer calls it. */
export function extract({ html, url }: { html: string; url: string }): Record<string, unknown> {
  const $ = load(html, { baseURI: url });
  return extractMeta({ $, url, jsonld: readJsonLd($) }, { audio: true, video: true });
}
