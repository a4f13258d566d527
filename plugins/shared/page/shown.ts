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

/**
 * A declaration in an element's `style` that hides it (`display: none`, `visibility: hidden`), read only where a
 * declaration starts: `--menu-display: none` or `font-display: none` hide nothing.
 */
export const HIDING = String.raw`(^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?=;|$)`;
const HIDES = new RegExp(HIDING, 'i');
/** Whether a `style` attribute hides its element (the content's readers and the metadata's alike). */
export const hides = (style: string | null | undefined): boolean => !!style && HIDES.test(style);

/** Elements whose text a reader never sees (nor one its `style` hides: a theme's hidden microformat byline). */
export const UNSEEN: ReadonlySet<string> = new Set(['script', 'style', 'noscript', 'template', 'head']);
/** The most text read of a page's body (characters). */
const MAX_SHOWN = 500_000;

/**
 * Walks what a reader sees of a node, in order: `visit` gets each text's data, and a space where an element starts
 * and where it ends (its text apart from its neighbours'); elements a reader never sees are skipped. The walk stops
 * once `visit` returns false.
 */
export function walkShown(node: AnyNode, visit: (text: string) => unknown): void {
  let stopped = false;
  const walk = (n: AnyNode): void => {
    if (stopped) return;
    if (n.type === 'text') {
      if (visit((n as Text).data) === false) stopped = true;
      return;
    }
    if (n.type !== 'tag' && n.type !== 'root') return;
    if (n.type === 'tag' && (UNSEEN.has((n as Element).name) || hides((n as Element).attribs.style))) return;
    if (visit(' ') === false) stopped = true;
    for (const child of (n as Element).children) walk(child);
    if (!stopped && visit(' ') === false) stopped = true;
  };
  walk(node);
}

/** The body's readable text, in order (at most MAX_SHOWN characters of it). */
export function shownText($: CheerioAPI): string {
  const parts: string[] = [];
  let length = 0;
  for (const body of select($, 'body'))
    walkShown(body, (text) => {
      parts.push(text);
      length += text.length;
      return length <= MAX_SHOWN;
    });
  return parts.join('');
}

/** An element's text as a reader sees it: its elements' texts apart (`Harry Rabinowitz` and `Tech Reporter`, not glued). */
export function elementText(el: Element): string {
  const parts: string[] = [];
  walkShown(el, (text) => {
    parts.push(text);
  });
  return parts.join('').replace(/\s+([,.;:!?)])/g, '$1');
}
