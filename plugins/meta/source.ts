// The document the metadata rules read on a long page: what they look at (the head's tags, JSON-LD, the top of the
// body: headline, byline, dateline) without what they never read (scripts, styles, inline SVG, comments), which
// is most of a long page's bytes. The rules' time grows with the document: on a 5 MB page they held the event loop
// for most of a second; on what is left here they take a few milliseconds.
import { parseHtml, type CheerioAPI } from '../../engine/index.ts';

/** Pages up to this long (characters) are read whole, as parsed for every step. */
export const META_WHOLE_CHARS = 512 * 1024;
/** Of a longer page, the rules read this much of what is left once its noise is gone, and its JSON-LD. */
const META_KEPT_CHARS = 256 * 1024;

/** Blocks the rules never read, and comments; a JSON-LD script is kept. */
const NOISE = /<(script|style|svg|noscript|template)\b([^>]*)>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const JSON_LD = /type\s*=\s*["']?application\/ld\+json/i;

/** The source the rules read of a long page (see above); the page itself when it is short. */
export function metaSource(html: string): string {
  if (html.length <= META_WHOLE_CHARS) return html;
  const structured: string[] = [];
  const lean = html.replace(NOISE, (block: string, tag: string | undefined, attrs: string | undefined) => {
    if (tag?.toLowerCase() !== 'script' || !JSON_LD.test(attrs ?? '')) return '';
    structured.push(block);
    return block;
  });
  if (lean.length <= META_KEPT_CHARS) return lean;
  const cut = lean.lastIndexOf('<', META_KEPT_CHARS);
  const head = lean.slice(0, cut > 0 ? cut : META_KEPT_CHARS);
  // JSON-LD past the cut (many sites put it at the end of the body) is kept, after what was read.
  const late = structured.filter((block) => !head.includes(block));
  return late.length ? `${head}${late.join('')}` : head;
}

/** The parsed document the rules read: the page's own (`$`) when short, else its lean source parsed once. */
export function metaDocument(html: string, $: () => CheerioAPI, url: string): CheerioAPI {
  return html.length <= META_WHOLE_CHARS ? $() : parseHtml(metaSource(html), url);
}
