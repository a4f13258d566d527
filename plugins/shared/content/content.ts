// The main content of a page: what a reader (or a language model) wants of it, without the site around it.
// Readability picks the container; the rules here clean the page before it looks (noise, landmark roles) and
// the container after (link lists, captions, share bars, bylines, dangling headings), with the page's own JSON-LD
// `articleBody`, when it has one, as evidence of which blocks are the article.
import { Readability } from '@mozilla/readability';
import { BLOCKS, covered, createCounts, linkDensity, nextContent, shingles, tokensOf, words, type El } from './content-text.ts';
import { furnitureLines, images, labelLines } from './content-furniture.ts';
import { named, prune } from './content-prune.ts';

export { NOISE } from './content-prune.ts';

/** Elements whose content is an article's furniture rather than its text. */
const FURNITURE = 'figcaption, aside, footer, [class*="caption"], [class*="credit"], [itemprop="author"], address, time';

/** The page's JSON-LD `articleBody` (the longest), when it has one worth using as evidence. */
function articleBodyOf(document: Document): string | undefined {
  let best = '';
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    const found = /"articleBody"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(script.textContent ?? '');
    if (!found) continue;
    try {
      // Some sites write entities (`&apos;`) into the JSON string: the page's parser reads them.
      const holder = document.createElement('div');
      holder.innerHTML = JSON.parse(`"${found[1]}"`) as string;
      const text = holder.textContent ?? '';
      if (text.length > best.length) best = text;
    } catch { /* a malformed string is no evidence */ }
  }
  return words(best) >= 80 ? best : undefined;
}

const INLINE = new Set(['SPAN', 'STRONG', 'B', 'EM']);

/**
 * Cleans Readability's container: furniture (captions, bylines, asides), lists and blocks that are mostly links
 * (related stories, share bars), blocks the page's `articleBody` does not have, repeated images, and headings left
 * with nothing under them.
 */
function refine(root: El, evidence: string | undefined): void {
  for (const el of [...root.querySelectorAll(FURNITURE)]) el.remove();
  const all = words(root.textContent);
  for (const el of [...root.querySelectorAll('[class], [id]')]) if (root.contains(el) && named(el) && words(el.textContent) < all * 0.3) el.remove();
  // Teasers of other articles (cards of a heading that links elsewhere, a summary, a thumbnail), several in a row.
  const teasers = [...root.querySelectorAll('article, [itemtype*="schema.org/"][itemtype$="Article"]')].filter((el) => el !== root && words(el.textContent) < all * 0.3 && el.querySelector('h1 a, h2 a, h3 a, h4 a, h5 a, h6 a, a h1, a h2, a h3, a h4, a h5, a h6'));
  if (teasers.length >= 2) for (const el of teasers) el.remove();
  // Lists and blocks of links: related stories, tags, share bars.
  const counts = createCounts();
  const drop = (el: El) => { el.remove(); counts.changed(); };
  for (const el of [...root.querySelectorAll('ul, ol, dl, div, section, p, table')]) {
    if (!root.contains(el)) continue;
    const n = counts.words(el);
    if (n === 0) { if (!el.querySelector('img, picture, video, pre, code, table')) drop(el); continue; }
    const density = counts.density(el);
    if ((el.tagName === 'UL' || el.tagName === 'OL' || el.tagName === 'DL') ? density > 0.6 : density > 0.7 && n < 80) drop(el);
  }
  // A block that is all link (a teaser's heading, "read more on ..."), whatever its tag.
  // (An inline element is judged by its block: a link wrapped in a `<span>` inside a sentence is the sentence's.)
  for (const el of [...root.querySelectorAll(`${BLOCKS}, div, span, strong, b, em`)]) {
    if (!root.contains(el) || counts.words(el) === 0 || counts.density(el) < 0.9 || el.querySelector('p, li')) continue;
    if (INLINE.has(el.tagName) && el.parentElement && counts.words(el.parentElement) > counts.words(el)) continue;
    drop(el);
  }
  images(root);
  furnitureLines(root);
  labelLines(root);
  // A list of links that ends the article ("More great stories"): each item links elsewhere.
  const leaves = [...root.querySelectorAll('p, ul, ol, h1, h2, h3, h4, h5, h6, blockquote, pre, table')].filter((el) => !el.parentElement?.closest('ul, ol, blockquote, table'));
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
  // A heading with nothing under it before the next heading ("You may also like", once its list is gone).
  const headings = [...root.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  for (const h of headings) {
    const next = nextContent(h, root);
    if (!next || /^H[1-6]$/.test(next.tagName) && Number(next.tagName[1]) <= Number(h.tagName[1])) h.remove();
  }
}

export interface MainContent { title: string | undefined; root: El }

/**
 * The main content of a parsed page (the document is changed): the article's container, cleaned, and its title;
 * undefined when Readability finds no article (a home page, a list), for the caller's fallback.
 */
export function mainContent(document: Document): MainContent | undefined {
  const evidence = articleBodyOf(document);
  const headings = [...document.querySelectorAll('h1')].map((h) => (h.textContent ?? '').replace(/\s+/g, ' ').trim()).filter((t) => words(t) >= 2);
  prune(document);
  const article = new Readability(document, { keepClasses: true, serializer: (node) => node as El }).parse();
  if (!article?.content) return undefined;
  let root = article.content as unknown as El;
  // The page's own mark of its article, when the container holds more: one <article> (or articleBody) with most of the text.
  const marked = [...root.querySelectorAll('article, [itemprop="articleBody"]')].filter((el) => !el.parentElement?.closest('article, [itemprop="articleBody"]'));
  if (marked.length === 1 && words(marked[0]!.textContent) >= words(root.textContent) * 0.6) root = marked[0]!;
  const before = words(root.textContent);
  refine(root, evidence);
  // What the rules left is no article (a home page of teasers, a list of links): the caller takes the page instead.
  if (words(root.textContent) < Math.max(25, before * 0.2)) return undefined;
  const title = titleOf(article.title, headings);
  // The title heads the Markdown: the same heading inside the container would say it twice.
  const same = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim().toLowerCase() === title?.toLowerCase();
  for (const h of [...root.querySelectorAll('h1, h2, h3')]) if (same(h.textContent)) h.remove();
  return { title, root };
}

/**
 * The article's own title: the page's `<h1>` that the document title contains (without the site's name around
 * it, "Site | Tagline: Title"), else Readability's.
 */
function titleOf(title: string | null | undefined, headings: string[]): string | undefined {
  const t = title?.replace(/\s+/g, ' ').trim();
  if (!t) return headings[0];
  return headings.find((h) => h.length < t.length && t.toLowerCase().includes(h.toLowerCase())) ?? t;
}

