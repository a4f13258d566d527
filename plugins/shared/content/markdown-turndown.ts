// Markdown of parsed nodes: turndown with GFM tables (markdown-tables.ts), fenced code with its language, compact list items and
// cards (links around blocks) written as Markdown can hold them.
import TurndownService from 'turndown';
// @ts-expect-error: the GFM plugin ships no type declarations.
import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import { tidy } from './markdown-tidy.ts';
import { tables } from './markdown-tables.ts';

/** Markdown of an element (read, not changed; its adjacent text nodes are merged first, as a parser gives them). */
export function toMarkdown(root: Element): string {
  root.normalize();
  // A converter a call (0.03 ms to make): no state of one conversion outlives it.
  const service = turndown();
  // Turndown reads the parsed nodes themselves (not their HTML parsed again: half of its time on the articles corpus).
  return tidy(service.turndown(root as unknown as HTMLElement));
}

/** Turndown set up as Refract writes Markdown. */
function turndown(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    linkStyle: 'inlined',
  });
  // GFM: struck text, task lists and highlighted code from the plugin; tables by rules of our own.
  service.use([highlightedCodeBlock, strikethrough, taskListItems, tables]);
  // A fenced block keeps its language, read from the classes highlighters write on the code, the `<pre>` or the
  // block around it (`language-*`, `lang-*`, Sphinx's `highlight-python`, GitHub's `highlight-source-js`). A `<pre>`
  // without `<code>` (Sphinx, Pygments, AsciiDoc) is code as well: as text, its brackets and stars were escaped.
  service.addRule('fencedWithLanguage', {
    filter: 'pre',
    replacement: (_content, node) => {
      const pre = node as HTMLElement;
      const code = pre.firstElementChild?.nodeName === 'CODE' ? pre.firstElementChild : pre;
      const text = (code.textContent ?? '').replace(/\n$/, '');
      const fence = text.includes('```') ? '~~~' : '```';
      return `\n\n${fence}${languageOf(code, pre)}\n${text}\n${fence}\n\n`;
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
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  // A card: a link around blocks (a thumbnail, a heading, a summary). Markdown has no link around blocks (it came
  // out as `[` and `](url)` on lines of their own): its pictures come first, then its text as one link.
  service.addRule('blockLink', {
    filter: (node) =>
      node.nodeName === 'A' &&
      !!(node as HTMLElement).getAttribute('href') &&
      !!(node as HTMLElement).querySelector(CARD_BLOCKS),
    replacement: (content, node) => {
      const href = (node as HTMLElement).getAttribute('href')!.replace(/[()]/g, '\\$&');
      const pictures = content.match(PICTURE) ?? [];
      const text = content
        .replace(PICTURE, ' ')
        .replace(/^\s*(?:#{1,6}|[-*+]|\d+\.)\s+/gm, '')
        .replace(/\s+/g, ' ')
        .trim();
      const link = text ? `[${text}](${href})` : pictures.length === 1 ? `[${pictures.pop()}](${href})` : '';
      return `\n\n${[...pictures, link].filter(Boolean).join('\n\n')}\n\n`;
    },
  });
  // A video or an audio clip (Markdown has no player): a link to it, named by its title, so that the heading over it
  // is not left empty and a reader can follow it.
  service.addRule('mediaLink', {
    filter: ['video', 'audio'],
    replacement: (_content, node) => {
      const el = node as HTMLElement;
      const src = el.getAttribute('src') || el.querySelector('source[src]')?.getAttribute('src');
      if (!src) return '';
      const kind = el.nodeName === 'VIDEO' ? 'Video' : 'Audio';
      const name = (el.getAttribute('title') || el.getAttribute('aria-label') || kind).replace(/[[\]]/g, '').trim();
      return `\n\n[${name}](${src.replace(/[()]/g, '\\$&')})\n\n`;
    },
  });
  service.remove(['script', 'style', 'noscript', 'template']);
  return service;
}

/** A picture in Markdown, `![alt](src)` (every one of a text). */
const PICTURE = /!\[[^\]]*\]\([^)]*\)/g;

/** Block elements that make a link a card (see the `blockLink` rule). */
const CARD_BLOCKS =
  'p, div, section, article, header, footer, figure, h1, h2, h3, h4, h5, h6, ul, ol, li, table, blockquote';

/** The class words that name a code block's language, and the words there that name none. */
const LANGUAGE = /(?:^|\s)(?:language|lang|highlight(?:-source|-text)?)-([\w+#-]+)/;
const NO_LANGUAGE = /^(default|none|text|plain|plaintext|notranslate)$/;

/** A code block's language, from its classes, its `<pre>`'s or those of the block around it (Sphinx's div). */
function languageOf(code: Element, pre: Element): string {
  for (const el of [code, pre, pre.parentElement, pre.parentElement?.parentElement]) {
    const lang = LANGUAGE.exec(el?.getAttribute('class') ?? '')?.[1];
    if (lang && !NO_LANGUAGE.test(lang)) return lang;
  }
  return '';
}
