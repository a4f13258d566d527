// Counting and walking helpers of the main-content rules (content.ts): words without making them, link density,
// memoised subtree counts, word shingles for the page's own evidence, and the next block of content after an element.

export type El = Element;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
let bmpTable: Uint8Array | undefined;
/**
 * Whether each code unit of the Basic Multilingual Plane is a letter or digit (`_` too), read once from the same
 * expression: testing it on every non-ASCII character of a page (most of the corpus is not English) was 6% of an
 * extraction.
 */
function wordUnits(): Uint8Array {
  if (bmpTable) return bmpTable;
  const table = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    table[c] = c === 95 || LETTER_OR_DIGIT.test(String.fromCharCode(c)) ? 1 : 0;
  }
  return (bmpTable = table);
}

/**
 * The words of a text (runs of letters, digits and `_`), counted without making them: this runs on the text of
 * nearly every element, several times, and a regular expression's array of matches cost 5x the time.
 */
export function words(text: string | null | undefined): number {
  if (!text) return 0;
  const units = wordUnits();
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let w: boolean;
    if (c >= 0xd800 && c <= 0xdbff) {
      w = LETTER_OR_DIGIT.test(text.slice(i, i + 2));
      i++;
    } else w = units[c] === 1;
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}

/** An element's text as a reader sees it: runs of spaces as one, none at its ends. */
export const textOf = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The words of an element's text that are inside links, over all its words (0 when it has none). */
export function linkDensity(el: El): number {
  const total = words(el.textContent);
  if (!total) return 0;
  let linked = 0;
  for (const a of el.querySelectorAll('a')) linked += words(a.textContent);
  return linked / total;
}

const isWordChar = (text: string, at: number): boolean =>
  words(text.slice(at, at + (text.charCodeAt(at) >= 0xd800 && text.charCodeAt(at) <= 0xdbff ? 2 : 1))) > 0;
/** A node's words and words inside links, and whether its text starts and ends inside a word (for joining). */
interface Count {
  words: number;
  linked: number;
  empty: boolean;
  opens: boolean;
  closes: boolean;
}
const NO_TEXT: Count = { words: 0, linked: 0, empty: true, opens: false, closes: false };

/**
 * `words(el.textContent)` and `linkDensity(el)` for many elements of one tree, each subtree counted once: the loops
 * of `refine` ask for nearly every element, and their ancestors' text again and again. A count is the same as the
 * text's (words that run across a child's edge are joined); `changed()` forgets them all after the tree changed.
 */
export function createCounts() {
  let memo = new WeakMap<Node, Count>();
  const count = (node: Node): Count => {
    if (node.nodeType === 3) {
      const text = (node as Text).data;
      if (!text) return NO_TEXT;
      let last = text.length - 1;
      const low = text.charCodeAt(last);
      if (low >= 0xdc00 && low <= 0xdfff && last > 0) last--;
      return {
        words: words(text),
        linked: 0,
        empty: false,
        opens: isWordChar(text, 0),
        closes: isWordChar(text, last),
      };
    }
    if (node.nodeType !== 1) return NO_TEXT;
    const known = memo.get(node);
    if (known) return known;
    const out: Count = { words: 0, linked: 0, empty: true, opens: false, closes: false };
    for (const child of node.childNodes) {
      const c = count(child);
      if (c.empty) continue;
      out.words += c.words - (!out.empty && out.closes && c.opens ? 1 : 0);
      out.linked += c.linked;
      if (out.empty) out.opens = c.opens;
      out.closes = c.closes;
      out.empty = false;
    }
    if ((node as El).tagName === 'A') out.linked += out.words;
    memo.set(node, out);
    return out;
  };
  return {
    words: (el: El) => count(el).words,
    density: (el: El) => {
      const c = count(el);
      return c.words ? c.linked / c.words : 0;
    },
    changed: () => {
      memo = new WeakMap();
    },
  };
}
