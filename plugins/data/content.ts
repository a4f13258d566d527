// The main content of a page: what a reader (or a language model) wants of it, without the site around it.
// Readability picks the container; the rules here clean the page before it looks (noise, landmark roles) and
// the container after (link lists, captions, share bars, bylines, dangling headings), with the page's own JSON-LD
// `articleBody`, when it has one, as evidence of which blocks are the article.
import { Readability } from '@mozilla/readability';

/** Markup that is never content. */
const NEVER = 'script, style, noscript, template, iframe, svg, canvas, button, input, select, textarea';
/** Markup that is rarely content: dropped unless it holds much of the page's text (a page inside a `<form>`). */
const RARELY = 'form, nav, [aria-hidden="true"], [hidden]';
export const NOISE = `${NEVER}, ${RARELY}, [role="navigation"]`;

/** Names (class or id words) of the parts of a page around an article. */
const BOILERPLATE = /^(related|recommended|recommendations?|share|sharing|social|sociallinks|newsletter|subscribe|subscription|signup|promo|promos|sponsored|advert|advertisement|ads?|adslot|banner|cookies?|consent|comments?|disqus|breadcrumbs?|byline|bylines|tags|tag-list|caption|credits?|sidebar|widget|widgets|popular|trending|most-read|mostread|more-stories|outbrain|taboola|print|toolbar|rating|pagination|pager|author-bio|author-box|authorbox|about-author|bio|share-bar|sharebar|social-share|share-buttons|related-posts|related-articles|read-more|readmore|see-also|jp-relatedposts|yarpp|disclaimer|copyright|footer|masthead|skip-link|screen-reader-text|sr-only|visually-hidden|visuallyhidden)$/;
/** Roles of the parts of a page around an article. */
const ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar', 'toolbar', 'dialog', 'alert']);
/** Elements whose content is an article's furniture rather than its text. */
const FURNITURE = 'figcaption, aside, footer, [class*="caption"], [class*="credit"], [itemprop="author"], address, time';

type El = Element;

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/**
 * The words of a text (runs of letters, digits and `_`), counted without making them: this runs on the text of
 * nearly every element, several times, and a regular expression's array of matches cost 5x the time.
 */
function words(text: string | null | undefined): number {
  if (!text) return 0;
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let w: boolean;
    if (c < 128) w = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    else if (c >= 0xd800 && c <= 0xdbff) { w = LETTER_OR_DIGIT.test(text.slice(i, i + 2)); i++; }
    else w = LETTER_OR_DIGIT.test(text[i]!);
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}

/** The words of an element's text that are inside links, over all its words (0 when it has none). */
function linkDensity(el: El): number {
  const total = words(el.textContent);
  if (!total) return 0;
  let linked = 0;
  for (const a of el.querySelectorAll('a')) linked += words(a.textContent);
  return linked / total;
}

const isWordChar = (text: string, at: number): boolean => words(text.slice(at, at + (text.charCodeAt(at) >= 0xd800 && text.charCodeAt(at) <= 0xdbff ? 2 : 1))) > 0;
/** A node's words and words inside links, and whether its text starts and ends inside a word (for joining). */
interface Count { words: number; linked: number; empty: boolean; opens: boolean; closes: boolean }
const NO_TEXT: Count = { words: 0, linked: 0, empty: true, opens: false, closes: false };

/**
 * `words(el.textContent)` and `linkDensity(el)` for many elements of one tree, each subtree counted once: the loops
 * of `refine` ask for nearly every element, and their ancestors' text again and again. A count is the same as the
 * text's (words that run across a child's edge are joined); `changed()` forgets them all after the tree changed.
 */
function createCounts() {
  let memo = new WeakMap<Node, Count>();
  const count = (node: Node): Count => {
    if (node.nodeType === 3) {
      const text = (node as Text).data;
      if (!text) return NO_TEXT;
      let last = text.length - 1;
      const low = text.charCodeAt(last);
      if (low >= 0xdc00 && low <= 0xdfff && last > 0) last--;
      return { words: words(text), linked: 0, empty: false, opens: isWordChar(text, 0), closes: isWordChar(text, last) };
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
    density: (el: El) => { const c = count(el); return c.words ? c.linked / c.words : 0; },
    changed: () => { memo = new WeakMap(); },
  };
}

/** True when a name (a class or id word list) marks an element as the site around the article. */
function named(el: El): boolean {
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.toLowerCase();
  if (!names.trim()) return false;
  for (const name of names.split(/\s+/)) {
    if (!name) continue;
    if (BOILERPLATE.test(name)) return true;
    // Compound names (`post-share-bar`, `related_articles`): their last or first word decides.
    const parts = name.split(/[-_]+/).filter(Boolean);
    if (parts.length > 1 && (BOILERPLATE.test(parts.at(-1)!) || BOILERPLATE.test(parts[0]!)) && !/^(article|post|entry|story|content|main|body|text|embed|embeds|embedded)$/.test(parts.at(-1)!)) return true;
  }
  return false;
}

/**
 * Removes the site around the article before Readability looks: noise, and landmark roles and hidden parts unless
 * one holds much of the page's paragraph text (a page inside a `<form>`). Names are judged after Readability
 * (`refine`): judged before, they cost more articles than they saved on the corpus.
 */
function prune(document: Document): void {
  for (const el of document.querySelectorAll(NEVER)) el.remove();
  const body = document.body;
  if (!body) return;
  unwrapEmbeds(body);
  const pageWords = words([...body.querySelectorAll('p')].map((p) => p.textContent).join(' '));
  const rarely = new Set(body.querySelectorAll(RARELY));
  for (const el of [...body.querySelectorAll(`[role], ${RARELY}`)]) {
    if (!el.isConnected || el.tagName === 'BODY' || el.tagName === 'MAIN' || el.tagName === 'ARTICLE') continue;
    const role = el.getAttribute('role');
    if (!rarely.has(el) && !(role && ROLES.has(role))) continue;
    const own = words([...el.querySelectorAll('p')].map((p) => p.textContent).join(' '));
    if (pageWords && own > pageWords * 0.3) continue;
    el.remove();
  }
}

/** Posts quoted from social networks: the article's content, though their wrappers' names say `social`. */
const EMBEDS = 'blockquote.twitter-tweet, blockquote.instagram-media, blockquote.tiktok-embed, blockquote.reddit-embed-bq';

/**
 * Takes embedded posts out of wrappers that hold nothing else (`<div class="social-media-embed">`), which
 * Readability drops by their name with the post in them.
 */
function unwrapEmbeds(body: El): void {
  for (const post of body.querySelectorAll(EMBEDS)) {
    const text = words(post.textContent);
    let wrapper: El | null = post.parentElement;
    while (wrapper && wrapper !== body && !/^(ARTICLE|MAIN)$/.test(wrapper.tagName) && words(wrapper.textContent) === text) {
      const outer: El | null = wrapper.parentElement;
      wrapper.replaceWith(...wrapper.childNodes);
      wrapper = outer;
    }
  }
}

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

const tokensOf = (text: string | null | undefined) => (text ?? '').toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
function shingles(tokens: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 2 < tokens.length; i++) out.add(`${tokens[i]} ${tokens[i + 1]} ${tokens[i + 2]}`);
  return out;
}

/** How much of an element's text the evidence has (a share of its shingles). */
function covered(root: El, known: Set<string>): number {
  const own = shingles(tokensOf(root.textContent));
  let hit = 0;
  for (const s of own) if (known.has(s)) hit++;
  return own.size ? hit / own.size : 0;
}

const INLINE = new Set(['SPAN', 'STRONG', 'B', 'EM']);
/** The blocks of a container: its leaves of text (paragraphs, headings, list items, quotes, tables, figures). */
const BLOCKS = 'p, h1, h2, h3, h4, h5, h6, li, blockquote, pre, table, figure, dd, dt';

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
  // Short lines only (a few children, a few hundred characters): a label, or a caption that ends with its credit.
  for (const el of [...root.querySelectorAll(`${BLOCKS}, div`)]) {
    if (el.children.length > 3 || !root.contains(el)) continue;
    const text = el.textContent ?? '';
    if (text.length > 400 || el.querySelector(`${BLOCKS}, div, img`)) continue;
    if (isLabel(text) || (words(text) <= 60 && CAPTION_END.test(text))) el.remove();
  }
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

/**
 * Images that belong to the content stay, once each, without their captions and credits; decorative ones (an
 * empty alt), tracking pixels, linked thumbnails (teasers of other pages) and inline data go.
 */
function images(root: El): void {
  const seen = new Set<string>();
  // An alt text that several images share was written for none of them (the page's title, "image"): no description.
  const alts = new Map<string, Set<string>>();
  for (const img of root.querySelectorAll('img[alt]')) {
    const alt = img.getAttribute('alt')!.trim();
    if (alt) alts.set(alt, (alts.get(alt) ?? new Set()).add(img.getAttribute('src') ?? ''));
  }
  for (const img of [...root.querySelectorAll('img')]) {
    const src = img.getAttribute('src') ?? '';
    // A link to the picture's own file (a larger size: a lightbox) is the picture, not a teaser of another page.
    const link = img.closest('a');
    if (link && root.contains(link) && IMAGE_FILE.test(link.getAttribute('href') ?? '') && words(link.textContent) === 0) link.replaceWith(...link.childNodes);
    const tiny = Number(img.getAttribute('width') ?? 99) <= 2 || Number(img.getAttribute('height') ?? 99) <= 2;
    if (img.closest('a') || !src || seen.has(src) || /^data:/.test(src) || img.getAttribute('alt') === '' || tiny) { (img.closest('picture') ?? img).remove(); continue; }
    seen.add(src);
    // A file name is no description ("airpods-pro-2.jpg", "010_Clymer-2").
    const alt = (img.getAttribute('alt') ?? '').trim();
    if (/^[\w.-]+\.(jpe?g|png|gif|webp|avif|svg)$/i.test(alt) || (/^[\p{L}\p{N}_.-]+$/u.test(alt) && /[_\d]/.test(alt)) || (alts.get(alt)?.size ?? 0) > 1) img.setAttribute('alt', '');
    // The image's box: its largest ancestor with little text of its own; that text is a caption or a credit.
    let box: El = img;
    while (box.parentElement && box.parentElement !== root && words(box.parentElement.textContent) <= 40 && box.parentElement.querySelectorAll('img').length === 1) box = box.parentElement;
    // A caption set as its own line in italics right under the picture ("*Kate Henshaw*").
    const after = nextContent(box, root);
    if (after?.tagName === 'P' && words(after.textContent) <= 30 && emphasised(after)) after.remove();
    if (box === img) continue;
    for (const child of [...box.querySelectorAll('*')]) if (root.contains(child) && !child.querySelector('img') && child.tagName !== 'IMG' && child.tagName !== 'SOURCE') child.remove();
    for (const node of [...box.childNodes]) if (node.nodeType === 3) node.remove();
  }
}

/** The whole text of a line that labels the site around an article (ads, comments, more stories, reading time). */
const LABEL = /^(advert|advertisement|advertising|ads?|sponsored( content)?|anzeige|werbung|publicidad|publicité|pubblicità|reklama|реклама|iklan|\d* ?comments?|post (a )?comment.*|leave a (comment|reply)|tell us what you think.*|updated|you (may|might) also like.*|related( news| articles| stories| posts| content)?|more( stories| news| from .*)?|recent (articles|posts|news|stories)|popular( now| this week)?|most (read|popular)|trending( now)?|don'?t miss.*|subscribe( now)?|want more stories like this|(reading time|read time|tempo de leitura|lesezeit|temps de lecture)\b.*|filed under\b.*|share( this)?( article| story| post)?|read more|see also)$/i;

/** A credit line of a picture or a story: a short line naming where it came from. */
const CREDIT = /^\(?(image|images|photo|photos|foto|fotos|picture|credit|credits|source|quelle|fuente|fonte|crédit|bild)\s*[:：]|©|\bgetty images\b|\bshutterstock\b|^(reuters|ap|afp|dpa|efe|ansa|associated press)$/i;

/** The end of a picture's caption: its credit in parentheses, "(AP Photo/Jane Doe, File)", "(Photo: Reuters)". */
const CAPTION_END = /\((?:[^()]*\b(?:photo|photos|foto|image|picture|file photo)\b[^()]*)\)\s*$/i;

/** True when a short line's whole text is a label of the site around the article. */
function isLabel(line: string): boolean {
  const text = line.replace(/\s+/g, ' ').replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
  return words(text) <= 8 && (LABEL.test(text) || CREDIT.test(text));
}

/** A URL of an image file. */
const IMAGE_FILE = /\.(jpe?g|png|gif|webp|avif)([?#]|$)/i;

const DATE = /\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(19|20)\d{2}\b/;

/**
 * Lines of an article's furniture at its edges: a byline or a dateline (short, with a date or time) among its first
 * blocks, a copyright or an address line among its last.
 */
function furnitureLines(root: El): void {
  const leaves = [...root.querySelectorAll(`${BLOCKS}, div`)].filter((el) => !el.querySelector(`${BLOCKS}, div`) && words(el.textContent) > 0);
  for (const el of leaves.slice(0, 4)) {
    const n = words(el.textContent);
    if (n <= 14 && DATE.test(el.textContent ?? '') && !/^H[1-6]$/.test(el.tagName)) el.remove();
  }
  for (const el of leaves.slice(-4)) {
    if (words(el.textContent) <= 40 && /©|\(c\)\s*\d{4}|copyright/i.test(el.textContent ?? '')) el.remove();
  }
  // An editor's note at either edge: a paragraph all in emphasis with a link in it (a disclosure, "subscribe to...").
  for (const el of [...leaves.slice(0, 3), ...leaves.slice(-3)]) {
    if (root.contains(el) && el.querySelector('a') && !/^H[1-6]$/.test(el.tagName) && emphasised(el, 'em, i, strong, b, a')) el.remove();
  }
}

/** True when (nearly) all of an element's words are inside emphasis (or the other marks given). */
function emphasised(el: El, marks = 'em, i'): boolean {
  const marked = [...el.querySelectorAll(marks)].filter((e) => !e.parentElement?.closest(marks));
  const n = words(el.textContent);
  return n > 0 && words(marked.map((e) => e.textContent).join(' ')) >= n * 0.9;
}

/** The element after `el` in document order, within `root`, that is not inside it and has text or media. */
function nextContent(el: El, root: El): El | undefined {
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
const firstBlock = (el: El): El => (/^H[1-6]$/.test(el.tagName) ? el : el.querySelector('h1, h2, h3, h4, h5, h6, p, li, pre, table, img, blockquote') ?? el);

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
