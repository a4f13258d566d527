// What the main-content rules remove before Readability looks (content.ts): noise, landmark roles and hidden parts,
// and the wrappers of embedded posts; and the names (class or id words) of the site around an article.
import { words, type El } from './content-text.ts';

/** Markup that is never content. */
const NEVER = 'script, style, noscript, template, iframe, svg, canvas, button, input, select, textarea';
/**
 * Markup that is rarely content: dropped unless it holds much of the page's text (a page inside a `<form>`). A link
 * hidden from screen readers alone (`aria-hidden` on the `<a>`) is shown to everyone else: a card's teaser written a
 * second time as a link to the story, which a screen reader would read twice.
 */
const RARELY_TAGS = ['form', 'nav'];
const RARELY = `${RARELY_TAGS.join(', ')}, [aria-hidden="true"]:not(a), [hidden]`;
export const NOISE = `${NEVER}, ${RARELY}, [role="navigation"]`;
/** RARELY, tested on one element with plain reads (css-select on every element of the page cost more). */
const rarelyContent = (el: El): boolean =>
  RARELY_TAGS.includes(el.localName) ||
  (el.getAttribute('aria-hidden') === 'true' && el.localName !== 'a') ||
  el.hasAttribute('hidden');

/** Names (class or id words) of the parts of a page around an article. */
const BOILERPLATE =
  /^(related|recommended|recommendations?|share|sharing|social|sociallinks|newsletter|subscribe|subscription|signup|promo|promos|sponsored|advert|advertisement|ads?|adslot|banner|cookies?|consent|comments?|disqus|breadcrumbs?|byline|bylines|tags|tag-list|caption|credits?|sidebar|widget|widgets|popular|trending|most-read|mostread|more-stories|outbrain|taboola|print|toolbar|rating|pagination|pager|author-bio|author-box|authorbox|about-author|bio|share-bar|sharebar|social-share|share-buttons|related-posts|related-articles|read-more|readmore|see-also|jp-relatedposts|yarpp|disclaimer|copyright|footer|masthead|skip-link|screen-reader-text|sr-only|visually-hidden|visuallyhidden)$/;
/** Roles of the parts of a page around an article. */
const ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'toolbar',
  'dialog',
  'alert',
]);

/**
 * The name word (of an element's class or id words) that marks it as the site around the article, or as one of the
 * parts that `list` names (the parts around a forum post or a product: content-page.ts); `undefined` when none does.
 */
export function nameOf(el: El, list: RegExp = BOILERPLATE): string | undefined {
  const name = firstName(el, list);
  // Inside code, a name is the highlighter's (`hljs-comment`, `token comment`): the code's own text.
  return name && !el.closest('pre, code') ? name : undefined;
}

function firstName(el: El, list: RegExp): string | undefined {
  const names = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.toLowerCase();
  if (!names.trim()) return undefined;
  for (const name of names.split(/\s+/)) {
    if (!name) continue;
    if (list.test(name)) return name;
    // Compound names (`post-share-bar`, `related_articles`): their last or first word decides.
    const parts = name.split(/[-_]+/).filter(Boolean);
    if (
      parts.length < 2 ||
      /^(article|post|entry|story|content|main|body|text|embed|embeds|embedded)$/.test(parts.at(-1)!)
    )
      continue;
    if (list.test(parts.at(-1)!)) return parts.at(-1);
    if (list.test(parts[0]!)) return parts[0];
  }
  return undefined;
}

/** True when a name marks an element as the site around the article, or as one of the parts `list` names. */
export const named = (el: El, list: RegExp = BOILERPLATE): boolean => nameOf(el, list) !== undefined;

/**
 * Removes the site around the article before Readability looks: noise, and landmark roles and hidden parts unless
 * one holds much of the page's paragraph text (a page inside a `<form>`). Names are judged after Readability
 * (`refine`): judged before, they cost more articles than they saved on the corpus.
 */
export function prune(document: Document): void {
  for (const el of document.querySelectorAll(NEVER)) el.remove();
  const body = document.body;
  if (!body) return;
  unwrapEmbeds(body);
  const pageWords = paragraphWords(body);
  // One walk with plain attribute reads (the selectors `[role]` and RARELY ran css-select on every element, twice).
  // Not getElementsByTagName('*'): linkedom answers it with nothing (this walk removed nothing).
  for (const el of [...body.querySelectorAll('*')]) {
    if (!el.isConnected) continue;
    layoutOnly(el);
    if (el.tagName === 'BODY' || el.tagName === 'MAIN' || el.tagName === 'ARTICLE') continue;
    const role = el.getAttribute('role');
    // The site's footer (not an article's own, within it) is never the content, however much of the page it holds.
    if (el.localName === 'footer' && !el.parentElement?.closest('article, main')) {
      el.remove();
      continue;
    }
    if (!rarelyContent(el) && !(role && ROLES.has(role))) continue;
    if (pageWords && paragraphWords(el) > pageWords * 0.3) continue;
    el.remove();
  }
}

/**
 * Utility class names that set only how a box scrolls or clips (Tailwind's and Bootstrap's `overflow-hidden`,
 * `overflow-x-scroll`, `scroll-mt-2`, `scroll-smooth`, `snap-x`), with their screen variants (`md:overflow-hidden`).
 * Readability reads `hidden` and `scroll` in a class as the site around an article and drops the box, a code block
 * or a section with it: they say nothing of what the box holds.
 */
const LAYOUT_ONLY =
  /^([\w-]+:)*-?(overflow(-[xy])?-(hidden|scroll|auto|clip|visible)|scroll-(smooth|auto|[mp][trblxyse]?-\S+)|overscroll-\S+|snap-\S+|sticky-header)$/;

/** Takes an element's layout-only class names away (see LAYOUT_ONLY). */
function layoutOnly(el: El): void {
  const names = el.getAttribute('class');
  if (!names || !/overflow|scroll|snap|sticky/.test(names)) return;
  const kept = names.split(/\s+/).filter((name) => name && !LAYOUT_ONLY.test(name));
  el.setAttribute('class', kept.join(' '));
}

/** The words of an element's paragraphs. */
const paragraphWords = (el: El): number => words([...el.getElementsByTagName('p')].map((p) => p.textContent).join(' '));

/** Posts quoted from social networks: the article's content, though their wrappers' names say `social`. */
const EMBED_NAMES = ['twitter-tweet', 'instagram-media', 'tiktok-embed', 'reddit-embed-bq'];
const EMBEDS = EMBED_NAMES.map((name) => `blockquote.${name}`).join(', ');

/**
 * Takes embedded posts out of wrappers that hold nothing else (`<div class="social-media-embed">`), which
 * Readability drops by their name with the post in them.
 */
function unwrapEmbeds(body: El): void {
  // Most pages quote no post: their block quotes are looked for by name before the selector runs on the page.
  const quotes = body.getElementsByTagName('blockquote');
  if (![...quotes].some((q) => EMBED_NAMES.some((name) => q.classList.contains(name)))) return;
  for (const post of body.querySelectorAll(EMBEDS)) {
    const text = words(post.textContent);
    let wrapper: El | null = post.parentElement;
    while (
      wrapper &&
      wrapper !== body &&
      !/^(ARTICLE|MAIN)$/.test(wrapper.tagName) &&
      words(wrapper.textContent) === text
    ) {
      const outer: El | null = wrapper.parentElement;
      wrapper.replaceWith(...wrapper.childNodes);
      wrapper = outer;
    }
  }
}
