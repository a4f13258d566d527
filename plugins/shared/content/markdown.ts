// The content of a page as Markdown, HTML or text: its main content (content.ts), or the page without its furniture
// when it has no article; noise removed and links absolute before it is written (markdown-turndown.ts).
import { parseHTML } from 'linkedom';
import { MAX_DEPTH, parseHtml } from '../../../engine/index.ts';
import { deeperThan, wholeDocument } from './document.ts';
import { mainContent, NOISE } from './content.ts';
import { toMarkdown } from './markdown-turndown.ts';

/** Attributes that hold one URL, and the elements that carry them. */
const URL_ATTRS =
  'a[href], area[href], img[src], video[src], video[poster], audio[src], source[src], track[src], iframe[src], embed[src], object[data]';
const SRCSET = 'img[srcset], source[srcset]';

/** Absolute links and media sources (images, video, audio, their sources and posters), so the content reads the same away from the page. */
function absolutize(root: ParentNode, base: string): void {
  const absolute = (value: string) => {
    try {
      return new URL(value, base).href;
    } catch {
      return value;
    }
  };
  for (const el of root.querySelectorAll(URL_ATTRS)) {
    for (const attr of ['href', 'src', 'poster', 'data']) {
      const value = el.getAttribute(attr);
      if (value !== null && !(attr === 'data' && el.tagName !== 'OBJECT')) el.setAttribute(attr, absolute(value));
    }
  }
  // `srcset`: candidates apart by commas, each a URL and an optional width or density.
  for (const el of root.querySelectorAll(SRCSET)) {
    const set = el.getAttribute('srcset')!;
    el.setAttribute(
      'srcset',
      set
        .split(/,\s+/)
        .map((c) => c.trim().replace(/^\S+/, (u) => absolute(u)))
        .join(', '),
    );
  }
}

/** Removes the noise of an element and makes its links absolute (the element is changed). */
function clean(root: Element, base: string): Element {
  for (const el of root.querySelectorAll(NOISE)) el.remove();
  // A link with nothing to click (its icon or thumbnail gone) would be `[](url)`.
  for (const a of root.querySelectorAll('a')) if (!(a.textContent ?? '').trim() && !a.querySelector('img')) a.remove();
  absolutize(root, base);
  return root;
}

/** Converts an HTML fragment (a selection of the page) to Markdown. */
export function fragmentToMarkdown(html: string, base: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return toMarkdown(clean(document.body as unknown as Element, base));
}

/** A page's content: its main content (or, for a page with no article, the page without its furniture), and its title. */
export interface PageContent {
  title: string | undefined;
  root: Element;
}

/**
 * The main content of a page (content.ts picks and cleans it), noise removed and links absolute. With `main`
 * false, or on a page with no article (a home page, a list), the whole page without navigation, header, footer and
 * asides.
 */
export function pageContent(raw: string, base: string, main = true): PageContent {
  let html = wholeDocument(raw);
  let { document } = parseHTML(html);
  let whole = !main;
  if (deeperThan(document.documentElement as unknown as Element, MAX_DEPTH)) {
    // Nested past the depth browsers build: bounded as the engine's parse bounds it, and read whole (the search for
    // an article costs the depth times the elements there: 8 s for a page nested 100,000 deep).
    html = wholeDocument(parseHtml(html).html());
    ({ document } = parseHTML(html));
    whole = true;
  }
  const found = whole ? undefined : mainContent(document as unknown as Document);
  if (found) return { title: found.title, root: clean(found.root, base) };
  // The search for an article changed the document it read: the page is parsed again as it came.
  if (!whole) ({ document } = parseHTML(html));
  const title = document.title?.replace(/\s+/g, ' ').trim() || undefined;
  for (const el of document.querySelectorAll('header, footer, aside')) el.remove();
  return { title, root: clean(document.body, base) };
}

/** Starts a text with its title (a heading in Markdown) unless the text already opens with it. */
export function headed(title: string | undefined, body: string, heading: string): string {
  if (!title || body.startsWith(`${heading}${title}`) || (heading && body.startsWith(heading))) return body;
  return body ? `${heading}${title}\n\n${body}` : `${heading}${title}`;
}

/** Markdown of a page's content, the title as its first heading, once. */
export function contentMarkdown(content: PageContent): string {
  return headed(content.title, toMarkdown(content.root), '# ');
}

/** Converts a whole page to Markdown of its main content; the title heads the text once. */
export function pageToMarkdown(html: string, base: string): string {
  return contentMarkdown(pageContent(html, base));
}
