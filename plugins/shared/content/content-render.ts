// The other renderings of a page's content (markdown.ts finds it and writes its Markdown): HTML with the title as
// its `<h1>`, and plain text with blocks apart and no markup.
import { headed, readable, type PageContent } from './markdown.ts';

/** HTML of a page's content (links absolute), the title as its `<h1>`. */
export function contentHtml(content: PageContent): string {
  // A page with nothing to read (a script's empty shell) has no content: its title alone is no HTML of it.
  if (!readable(content.root)) return '';
  const body = content.root.innerHTML.trim();
  if (!content.title || content.root.querySelector('h1')) return body;
  const escaped = content.title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<h1>${escaped}</h1>\n${body}`;
}

/** Elements after which plain text breaks a line (a paragraph, a heading, a list item...). */
const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'UL',
  'OL',
  'LI',
  'DL',
  'DT',
  'DD',
  'BLOCKQUOTE',
  'PRE',
  'TABLE',
  'TR',
  'FIGURE',
  'FIGCAPTION',
  'HR',
  'ADDRESS',
]);

/** Plain text of an element: blocks apart, a line per list item and table row, code as written, no markup. */
function plainText(root: Element): string {
  const out: string[] = [];
  const walk = (node: Node, pre: boolean) => {
    // Code keeps its spaces (marked, so that the tidying of lines below leaves them).
    if (node.nodeType === 3) {
      out.push(pre ? (node.textContent ?? '').replace(/ /g, '\u0001') : (node.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    if (el.tagName === 'BR') {
      out.push('\n');
      return;
    }
    if (el.tagName === 'IMG') return;
    const block = BLOCK.has(el.tagName);
    if (block) out.push(el.tagName === 'LI' ? '\n' : '\n\n');
    for (const child of el.childNodes) walk(child, pre || el.tagName === 'PRE');
    if (el.tagName === 'TD' || el.tagName === 'TH') out.push('\t');
    if (block) out.push(el.tagName === 'LI' || el.tagName === 'TR' ? '\n' : '\n\n');
  };
  walk(root, false);
  return (
    out
      .join('')
      .split('\n')
      .map((line) => line.replace(/[ \t]+$/, '').replace(/^ +/, ''))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0001 is the mark content-text.ts puts where a space must stay.
      .replace(/\u0001/g, ' ')
  );
}

/** Plain text of a page's content, the title as its first line; empty when it has nothing to read. */
export function contentText(content: PageContent): string {
  if (!readable(content.root)) return '';
  return headed(content.title, plainText(content.root), '');
}
