// The metadata step on a saved page, for WCXB's scorer in module mode (../shared/corpus/wcxb/score.mjs --module):
// title, author and date as the `meta` plugin answers them (no network: media fields are left out).
import { parseHtml } from '../engine/kernel/html.ts';
import { extractMeta } from '../plugins/meta/index.ts';
import { createDoc } from '../plugins/shared/page/helpers.ts';

export function extract({ html, url }: { html: string; url: string }) {
  const m = extractMeta(createDoc(parseHtml(html, url), url), { media: false });
  return { text: '', title: m.title, author: m.author, date: m.date };
}
