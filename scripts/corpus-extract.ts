// Adapter for the corpus scorer (scripts/corpus-score.mjs, a copy of ../shared/corpus/score.mjs) --module: Refract's extraction core on a page's HTML, no network.
import { parseHtml } from '../engine/kernel/html.ts';
import { extractMeta } from '../plugins/meta/index.ts';
import { createDoc } from '../plugins/shared/page/helpers.ts';

/** Extracts metadata from one page as the scorer calls it. */
export function extract({ html, url }: { html: string; url: string }): Record<string, unknown> {
  const $ = parseHtml(html, url);
  return extractMeta(createDoc($, url), { audio: true, video: true });
}
