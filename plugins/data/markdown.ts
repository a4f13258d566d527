import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
// @ts-expect-error: the GFM plugin ships no type declarations.
import { gfm } from '@joplin/turndown-plugin-gfm';

import { mainContent, NOISE } from './content.ts';

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
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

/** Converts an element to Markdown (the element is changed: noise removed, links made absolute). */
function elementToMarkdown(root: Element, base: string): string {
  for (const el of root.querySelectorAll(NOISE)) el.remove();
  absolutize(root, base);
  return tidy(turndown().turndown(root.innerHTML));
}

/** Converts an HTML fragment (a selection of the page) to Markdown. */
export function fragmentToMarkdown(html: string, base: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return elementToMarkdown(document.body, base);
}

/**
 * Converts a whole page to Markdown of its main content (content.ts picks and cleans it); the title heads the
 * text once. A page with no article found in it is converted whole, without its navigation.
 */
export function pageToMarkdown(html: string, base: string): string {
  const main = mainContent(parseHTML(html).document as unknown as Document);
  if (main) {
    const body = elementToMarkdown(main.root, base);
    return main.title && !body.startsWith('# ') ? `# ${main.title}\n\n${body}` : body;
  }
  // No article: the page as it came (the search for one changed it), without its navigation and furniture.
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll('header, footer, aside')) el.remove();
  return elementToMarkdown(document.body, base);
}
