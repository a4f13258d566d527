// The last step of every content output: noise removed, empty links dropped, links and media sources absolute; and,
// for the main content (not `.main=false`'s whole page), what it says twice removed (repeats, page-content.ts).
import { NOISE } from './content.ts';
import { textOf, words } from './content-text.ts';

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

/** The words of a link that skips the page's furniture; a link's class or role word that draws it as a button. */
const SKIP = /^(skip|jump) (to|over|navigation|this|listing)\b|^go to (the )?(main )?content\b/i;
const BUTTON = /(^|\s|[-_])(btn|button|cta)([-_\s]|$)/i;

/** The headings of a table of contents. */
const CONTENTS =
  /^(table of contents|contents|in this (article|post|guide|page)|on this page|jump to( section)?|sections?)$/i;

/**
 * Removes a table of contents: a list of three or more links that all lead within the page (`#section`), and the
 * heading over it that names it. The sections it links to are the content.
 */
function tableOfContents(root: Element): void {
  for (const list of [...root.querySelectorAll('ul, ol')]) {
    if (!list.isConnected || list.parentElement?.closest('ul, ol')) continue;
    const links = [...list.querySelectorAll('a')];
    if (links.length < 3 || !links.every((a) => a.getAttribute('href')?.startsWith('#'))) continue;
    const linked = links.reduce((n, a) => n + words(a.textContent), 0);
    if (linked < words(list.textContent) * 0.9) continue;
    const before = list.previousElementSibling;
    if (before && CONTENTS.test((before.textContent ?? '').trim())) before.remove();
    list.remove();
  }
  // Its heading left alone (the list went with the page's menus): it heads nothing of the content.
  for (const el of [...root.querySelectorAll('h2, h3, h4, h5, h6, p, div, span, strong')])
    if (!el.children.length && NAMED_CONTENTS.test((el.textContent ?? '').trim())) el.remove();
}

/** The unambiguous names of a table of contents, that head nothing else. */
const NAMED_CONTENTS = /^(table of contents|in this (article|post|guide)|on this page)$/i;

/** Removes the noise of an element and makes its links absolute (the element is changed). */
export function clean(root: Element, base: string): Element {
  // A form that holds much of the content is the page's (XenForo and ASP.NET pages live inside one); the content's
  // words are counted only when it has a form.
  const total = root.querySelector('form') ? words(root.textContent) : 0;
  for (const el of root.querySelectorAll(NOISE))
    if (el.tagName !== 'FORM' || words(el.textContent) < total * 0.3) el.remove();
  for (const a of root.querySelectorAll('a')) {
    const text = (a.textContent ?? '').trim();
    // A link with nothing to click (its icon or thumbnail gone) would be `[](url)`; a link within the page that skips
    // its furniture (`Skip to main content`, for keyboards and screen readers) is the site's, never the content.
    if ((!text && !a.querySelector('img')) || (SKIP.test(text) && a.getAttribute('href')?.startsWith('#'))) a.remove();
    // A link drawn as a button (class `btn`, `button`, `cta`, role button: Get started, See plans) is an action.
    else if (BUTTON.test(`${a.getAttribute('class')} ${a.getAttribute('role')}`) && words(text) <= 6) a.remove();
  }
  tableOfContents(root);
  absolutize(root, base);
  return root;
}

/** A block that is one number alone (`17`, `1,204`, `+3`, `2.5k`). */
const COUNT = /^[+-]?\d[\d,.]*k?$/;

/** The elements that hold a block of text; one holding none of the others is a block of its own. */
const BLOCKS = new Set(
  'P H1 H2 H3 H4 H5 H6 LI BLOCKQUOTE DT DD FIGCAPTION DIV SECTION ARTICLE TD TH PRE ASIDE HEADER MAIN FORM TABLE UL OL'.split(
    ' ',
  ),
);

interface Block {
  el: Element;
  /** Its text, spaces collapsed, in lower case. */
  key: string;
  words: number;
}

/** The blocks of text of an element, in the page's order, outside code (where lines repeat by nature). */
function blocks(root: Element): Block[] {
  const out: Block[] = [];
  const walk = (el: Element): boolean => {
    let holds = false;
    for (const child of [...el.children]) if (walk(child)) holds = true;
    if (!BLOCKS.has(el.tagName)) return holds;
    if (holds) return true;
    const key = textOf(el).toLowerCase();
    const n = words(key);
    if (n && !el.closest('pre, code')) out.push({ el, key, words: n });
    return true;
  };
  walk(root);
  return out;
}

/**
 * Removes what the content says again. Every repeated block goes when `each` (a thread: quotes of earlier posts,
 * signatures, the user card's lines; a product: its description drawn again for another screen, a card's buttons),
 * except in tables and definition lists, where values repeat. Otherwise only a copy: a run of repeated blocks that
 * holds 40 words and 15% of the content (a carousel's slides cloned, an article or a first post drawn twice);
 * lines a page repeats on purpose (each plan's features, each card's note) stay. When `each`, a block that is a lone
 * number goes too (a post's votes, its number in the thread, a card's count of reviews), outside tables and code.
 */
export function repeats(root: Element, each: boolean): void {
  const all = blocks(root);
  const total = all.reduce((n, b) => n + b.words, 0);
  const seen = new Set<string>();
  let run: Block[] = [];
  const end = () => {
    if (run.reduce((n, b) => n + b.words, 0) >= Math.max(40, total * 0.15)) for (const b of run) b.el.remove();
    run = [];
  };
  for (const b of all) {
    if (each && COUNT.test(b.key) && !b.el.closest('table, dl')) b.el.remove();
    else if (!seen.has(b.key)) {
      end();
      seen.add(b.key);
    } else if (each && !b.el.closest('table, dl')) b.el.remove();
    else run.push(b);
  }
  end();
}
