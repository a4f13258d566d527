// Blocks of content and the words they share (content.ts, content-refine.ts, content-furniture.ts): word shingles
// for the page's own evidence, emphasis, and the next block of content after an element.
import { words, type El } from './content-text.ts';

export const tokensOf = (text: string | null | undefined) => (text ?? '').toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
export function shingles(tokens: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 2 < tokens.length; i++) out.add(`${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
  return out;
}

/** How much of an element's text the evidence has (a share of its shingles). */
export function covered(root: El, known: Set<string>): number {
  const own = shingles(tokensOf(root.textContent));
  let hit = 0;
  for (const s of own) if (known.has(s)) hit++;
  return own.size ? hit / own.size : 0;
}

/** The blocks of a container: its leaves of text (paragraphs, headings, list items, quotes, tables, figures). */
export const BLOCKS = 'p, h1, h2, h3, h4, h5, h6, li, blockquote, pre, table, figure, dd, dt';

/** True when (nearly) all of an element's words are inside emphasis (or the other marks given). */
export function emphasised(el: El, marks = 'em, i'): boolean {
  const marked = [...el.querySelectorAll(marks)].filter((e) => !e.parentElement?.closest(marks));
  const n = words(el.textContent);
  return n > 0 && words(marked.map((e) => e.textContent).join(' ')) >= n * 0.9;
}

/** The element after `el` in document order, within `root`, that is not inside it and has text or media. */
export function nextContent(el: El, root: El): El | undefined {
  let node: El | null = el;
  while (node && node !== root) {
    let sibling = node.nextElementSibling;
    while (sibling) {
      if (words(sibling.textContent) || sibling.querySelector('img, pre, table')) return firstBlock(sibling);
      sibling = sibling.nextElementSibling;
    }
    node = node.parentElement;
  }
  return undefined;
}
const firstBlock = (el: El): El =>
  /^H[1-6]$/.test(el.tagName)
    ? el
    : (el.querySelector('h1, h2, h3, h4, h5, h6, p, li, pre, table, img, blockquote') ?? el);
