// What a page shows its reader, for comparing names with it (a meta tag's author the page never shows is none).
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { select } from './select.ts';

/** Text as names are compared with a page's: case, Unicode forms, quotes and white space aside. */
export function comparable(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201b`´]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f]/g, '"')
    .replace(/\s+/g, ' ');
}

/** Elements whose text a reader never sees. */
const UNSEEN = new Set(['script', 'style', 'noscript', 'template', 'head']);
/** The most text read of a page's body (characters). */
const MAX_SHOWN = 500_000;

/** The body's readable text, in order. */
export function shownText($: CheerioAPI): string {
  const parts: string[] = [];
  let length = 0;
  const walk = (node: AnyNode): void => {
    if (length > MAX_SHOWN) return;
    if (node.type === 'text') {
      const data = (node as Text).data;
      parts.push(data);
      length += data.length;
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    if (node.type === 'tag' && UNSEEN.has((node as Element).name)) return;
    parts.push(' ');
    for (const child of (node as Element).children) walk(child);
  };
  for (const body of select($, 'body')) walk(body);
  return parts.join('');
}

/** An element's text as a reader sees it: its elements' texts apart (`Harry Rabinowitz` and `Tech Reporter`, not glued). */
export function elementText(el: Element): string {
  const parts: string[] = [];
  const walk = (node: AnyNode): void => {
    if (node.type === 'text') parts.push((node as Text).data);
    else if (node.type === 'tag' && !UNSEEN.has((node as Element).name)) {
      parts.push(' ');
      for (const child of (node as Element).children) walk(child);
      parts.push(' ');
    }
  };
  walk(el);
  return parts.join('').replace(/\s+([,.;:!?)])/g, '$1');
}
