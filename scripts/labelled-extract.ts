// The extraction core for the labelled corpus's and WCXB's scorers (score.mjs --module): a page's HTML
// in, its metadata out, as the meta plugin reads it (without media probes: nothing is fetched).
import { parseHtml } from '../engine/kernel/html.ts';
import { extractMeta } from '../plugins/meta/index.ts';
import { createDoc } from '../plugins/shared/page/helpers.ts';

export function extract({ html, url }: { html: string; url: string }): Record<string, unknown> {
  return extractMeta(createDoc(parseHtml(html, url), url), { media: false });
}
