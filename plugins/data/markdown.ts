import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
// @ts-expect-error: the GFM plugin ships no type declarations.
import { gfm } from '@joplin/turndown-plugin-gfm';

import { mainContent, NOISE } from './content.ts';

let service: TurndownService | undefined;

/**
 * linkedom's tables lack `rows`, which the GFM plugin reads (without it a table comes out as its cells run
 * together); given once to linkedom's table class, so that turndown reads our parsed nodes instead of their HTML
 * parsed again (half of turndown's time on the articles corpus).
 */
function tableRows(): void {
  const table = Object.getPrototypeOf(parseHTML('<table></table>').document.createElement('table')) as object;
  if ('rows' in table) return;
  Object.defineProperty(table, 'rows', {
    configurable: true,
    get(this: Element) {
      // The GFM plugin asks again for every cell of a column (`rows.length`, `rows[i]`): during a conversion, which
      // changes no table, each table's rows are found once (else a 500-row table took seconds).
      if (!converting) return rowsOf(this);
      let rows = converting.get(this);
      if (!rows) converting.set(this, rows = rowsOf(this));
      return rows;
    },
  });
}

/** A table's own rows, in order (not a nested table's): its `<tr>` children and those of its sections. */
function rowsOf(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (child.tagName === 'TR') rows.push(child);
    else if (child.tagName === 'THEAD' || child.tagName === 'TBODY' || child.tagName === 'TFOOT') for (const tr of child.children) if (tr.tagName === 'TR') rows.push(tr);
  }
  return rows;
}

/** The rows of each table seen during the conversion under way, if one is. */
let converting: WeakMap<Element, Element[]> | undefined;

/** Markdown of an element (read, not changed; its adjacent text nodes are merged first, as a parser gives them). */
function toMarkdown(root: Element): string {
  root.normalize();
  const service = turndown();
  converting = new WeakMap();
  try {
    return tidy(service.turndown(root as unknown as HTMLElement));
  } finally {
    converting = undefined;
  }
}

function turndown(): TurndownService {
  if (service) return service;
  tableRows();
  service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', linkStyle: 'inlined' });
  service.use(gfm);
  // A fenced block keeps its language, read from the `language-*` / `lang-*` class highlighters use.
  service.addRule('fencedWithLanguage', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName === 'CODE',
    replacement: (_content, node) => {
      const code = node.firstChild as HTMLElement;
      const lang = /(?:^|\s)(?:language|lang)-([\w+#-]+)/.exec(`${code.getAttribute('class') ?? ''} ${(node as HTMLElement).getAttribute('class') ?? ''}`)?.[1] ?? '';
      const text = (code.textContent ?? '').replace(/\n$/, '');
      const fence = text.includes('```') ? '~~~' : '```';
      return `\n\n${fence}${lang}\n${text}\n${fence}\n\n`;
    },
  });
  // List items with one space after the marker ("- item", "1. item"), as people and most renderers write them.
  service.addRule('compactListItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const parent = node.parentNode as HTMLElement | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? 1);
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  service.remove(['script', 'style', 'noscript', 'template']);
  return service;
}

/** Absolute links and image sources, so the Markdown reads the same away from the page. */
function absolutize(root: ParentNode, base: string): void {
  for (const el of root.querySelectorAll('a[href], img[src]')) {
    const attr = el.tagName === 'A' ? 'href' : 'src';
    try { el.setAttribute(attr, new URL(el.getAttribute(attr)!, base).href); } catch { /* left as written */ }
  }
}

function tidy(markdown: string): string {
  return markdown.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
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
export interface PageContent { title: string | undefined; root: Element }

/**
 * The main content of a page (content.ts picks and cleans it), noise removed and links absolute. With `main`
 * false, or on a page with no article (a home page, a list), the whole page without navigation, header, footer and
 * asides.
 */
export function pageContent(html: string, base: string, main = true): PageContent {
  const found = main ? mainContent(parseHTML(html).document as unknown as Document) : undefined;
  if (found) return { title: found.title, root: clean(found.root, base) };
  // The search for an article changed the document it read: the page is parsed again as it came.
  const { document } = parseHTML(html);
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
