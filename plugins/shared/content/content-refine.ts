// The cleaning of Readability's container (content.ts): furniture, link lists, blocks the page's own `articleBody`
// does not have, repeated images, dangling headings.
import { createCounts, linkDensity, words, type El } from './content-text.ts';
import { BLOCKS, covered, nextContent, shingles, tokensOf } from './content-blocks.ts';
import { furnitureLines, images, labelLines } from './content-furniture.ts';
import { named } from './content-prune.ts';

/** Elements whose content is an article's furniture rather than its text. */
const FURNITURE =
  'figcaption, aside, footer, [class*="caption"], [class*="credit"], [itemprop="author"], address, time';

/** The page's JSON-LD `articleBody` (the longest), when it has one worth using as evidence. */

const INLINE = new Set(['SPAN', 'STRONG', 'B', 'EM']);

/** A table of data: its first row heads three columns or more (a navigation box heads its rows, not its columns). */
const grid = (table: El): boolean => (table.querySelector('tr')?.querySelectorAll('th').length ?? 0) >= 3;

/**
 * Cleans Readability's container: furniture (captions, bylines, asides), lists and blocks that are mostly links
 * (related stories, share bars), blocks the page's `articleBody` does not have, repeated images, and headings left
 * with nothing under them.
 */
export function refine(root: El, evidence: string | undefined): void {
  for (const el of [...root.querySelectorAll(FURNITURE)]) el.remove();
  const all = words(root.textContent);
  for (const el of [...root.querySelectorAll('[class], [id]')])
    if (root.contains(el) && named(el) && words(el.textContent) < all * 0.3) el.remove();
  // Teasers of other articles (cards of a heading that links elsewhere, a summary, a thumbnail), several in a row.
  const teasers = [...root.querySelectorAll('article, [itemtype*="schema.org/"][itemtype$="Article"]')].filter(
    (el) =>
      el !== root &&
      words(el.textContent) < all * 0.3 &&
      el.querySelector('h1 a, h2 a, h3 a, h4 a, h5 a, h6 a, a h1, a h2, a h3, a h4, a h5, a h6'),
  );
  if (teasers.length >= 2) for (const el of teasers) el.remove();
  // Lists and blocks of links: related stories, tags, share bars.
  const counts = createCounts();
  const drop = (el: El) => {
    el.remove();
    counts.changed();
  };
  for (const el of [...root.querySelectorAll('ul, ol, dl, div, section, p, table')]) {
    if (!root.contains(el)) continue;
    const n = counts.words(el);
    if (n === 0) {
      if (!el.querySelector('img, picture, video, pre, code, table')) drop(el);
      continue;
    }
    const density = counts.density(el);
    if (el.tagName === 'UL' || el.tagName === 'OL' || el.tagName === 'DL' ? density > 0.6 : density > 0.7 && n < 80)
      if (el.tagName !== 'TABLE' || !grid(el)) drop(el);
  }
  // A block that is all link (a teaser's heading, "read more on ..."), whatever its tag.
  // (An inline element is judged by its block: a link wrapped in a `<span>` inside a sentence is the sentence's.)
  for (const el of [...root.querySelectorAll(`${BLOCKS}, div, span, strong, b, em`)]) {
    if (!root.contains(el) || counts.words(el) === 0 || counts.density(el) < 0.9 || el.querySelector('p, li')) continue;
    if (INLINE.has(el.tagName) && el.parentElement && counts.words(el.parentElement) > counts.words(el)) continue;
    // A table of data (a header row of three columns or more) is content though its cells link their data (a
    // laureate's name to the laureate), as is each cell's link.
    if (el.tagName === 'TABLE' ? grid(el) : el.closest('td, th')) continue;
    drop(el);
  }
  images(root);
  furnitureLines(root);
  labelLines(root);
  // A list of links that ends the article ("More great stories"): each item links elsewhere.
  const leaves = [...root.querySelectorAll('p, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, pre, table')].filter(
    (el) => !el.parentElement?.closest('ul, ol, blockquote, table'),
  );
  const last = leaves.at(-1);
  if (last && (last.tagName === 'UL' || last.tagName === 'OL')) {
    const items = [...last.querySelectorAll('li')];
    if (items.length >= 3 && items.every((li) => li.querySelector('a')) && linkDensity(last) > 0.3) last.remove();
  }
  const known = evidence ? shingles(tokensOf(evidence)) : undefined;
  // Evidence only when it is the whole text (some pages' `articleBody` is a summary, or another language).
  if (known && covered(root, known) >= 0.6) {
    for (const el of [...root.querySelectorAll(BLOCKS)]) {
      if (!root.contains(el) || el.querySelector(BLOCKS) || tokensOf(el.textContent).length < 4) continue;
      if (covered(el, known) < 0.2) el.remove();
    }
  }
  // A heading with nothing under it before the next heading ("You may also like", once its list is gone); a list's
  // items written as headings are its items.
  const headings = [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  for (const h of headings) {
    if (h.parentElement?.closest('li')) continue;
    const next = nextContent(h, root);
    if (!next || (/^H[1-6]$/.test(next.tagName) && Number(next.tagName[1]) <= Number(h.tagName[1]))) h.remove();
  }
}
