// The parts of a page around its content (navigation, footers, sidebars, comments, archives, widgets): their dates
// and names are other pages' or other people's, never the page's own (date-text.ts, author.ts).
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { select } from '../../shared/page/select.ts';
import { hides } from '../../shared/page/shown.ts';

/** Elements that are never the page's own content. */
export const CHROME_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'footer',
  'aside',
  'form',
  'select',
  'option',
  'svg',
  'iframe',
  'head',
]);
/** Words in classes and ids of the same. */
const CHROME_WORDS = /^(?:comments?|sidebar|widgets?|archives?|related|footer|menu|navigation|breadcrumbs?|cookies?)$/i;

/**
 * Whether a class or id names such a part: one of its words (`comment-list`, `sidebarLeft`), read in the block's
 * name only when it is written as BEM (`m-intro__breadcrumbNavigation` is the intro's part beside its breadcrumb,
 * not a breadcrumb), and never in a modifier (`has-sidebar`).
 */
export function chromeName(names: string): boolean {
  return namesWord(names, CHROME_WORDS) && !OWN_FOOTER.test(names);
}

/** A footer named for the post it closes (`post-footer`, `entry-footer`): its byline and date are the post's own. */
const OWN_FOOTER = /(?:^|\s)(?:post|entry|article|story)[-_]?footer(?:$|\s)/i;

/** A modifier class says what the layout has beside a part (`has-sidebar`, `no-byline`), not what the part is. */
export const MODIFIER = /^(?:has|with|no|without)[-_]/i;

/** Page builders whose every block is a `<builder>-widget`: Elementor's (WordPress's most used). */
const BUILDER = /^elementor$/i;

/** Whether one word of the classes and ids `names` is one of `words`, read in a BEM name's block only (above). */
function namesWord(names: string, words: RegExp): boolean {
  for (const name of names.split(/\s+/)) {
    // A modifier says what the layout has beside it (`main-content has-double-sidebar`), not what this part is.
    if (MODIFIER.test(name)) continue;
    const block = name.split(/__|--/)[0]!;
    const named = block.split(/[-_]|(?<=[a-z])(?=[A-Z])/);
    // A page builder that names every part of its layout a widget (`elementor-widget-author-box`): not a sidebar's.
    if (named.some((word, i) => words.test(word) && !(i === 1 && BUILDER.test(named[0]!) && /^widget/i.test(word))))
      return true;
  }
  return false;
}

/**
 * Parts where other people's names stand: comments, sidebars, widgets, related pages, menus, and the quotes of
 * customers (testimonials, quotes, their carousels and sliders). Not `review`: a critic's review names its parts so
 * (`review-byline`), and customers' reviews are read apart (REVIEW below, and pages of products have no byline).
 */
const OTHERS_WORDS =
  /^(?:comments?|sidebar|widgets?|related|menu|navigation|testimonials?|quotes?|blockquote|customers?|carousel|slider)$/i;

/**
 * Whether an element stands where other people's names do (itself or any element around it): in navigation, in a
 * quotation (its attribution names who is quoted) or in a part named as above. Footers are not (many pages put their
 * byline in an article's footer), nor the parts that hold the page's headline (`content-sidebar-wrap` is a layout
 * around everything: `wrappers`).
 */
export function amongOthers(el: Element, wrappers: ReadonlySet<Element>): boolean {
  for (
    let node: Element | null = el;
    node && node.type === 'tag' && !wrappers.has(node);
    node = node.parent as Element | null
  ) {
    if (node.name === 'nav' || node.name === 'aside' || node.name === 'blockquote') return true;
    // Nor is a part its style hides shown at all (a theme's hidden microformat byline).
    if (hides(node.attribs.style)) return true;
    if (namesWord(`${node.attribs.class ?? ''} ${node.attribs.id ?? ''}`, OTHERS_WORDS)) return true;
  }
  return false;
}

/** The elements matching a selector that stand where the page's own people are named (not among others'), in order. */
export function* ownPlaces($: CheerioAPI, selector: string): Generator<Element> {
  let wrappers: Set<Element> | undefined;
  for (const el of select($, selector)) if (!amongOthers(el, (wrappers ??= aroundHeadline(headlineOf($))))) yield el;
}

/**
 * The page's headline: its first `<h1>` that says something, not the site's logo set in one (an empty `<h1>`, or one
 * that is nothing but a link to the site's home: `<h1><a href="/" class="logo">Deutschlandfunk</a></h1>`).
 */
export function headlineOf($: CheerioAPI): Element | undefined {
  return select($, 'h1').find((h1) => isHeadline($, h1));
}
/** Whether an `<h1>` says something of the page, not the site's logo (above). */
export function isHeadline($: CheerioAPI, h1: Element): boolean {
  const text = $(h1).text().trim();
  if (!text) return false;
  const links = $(h1).find('a');
  return !(links.length === 1 && HOME.test(links.attr('href') ?? '') && links.text().trim() === text);
}
/** A link to a site's home page: its root, or its root's index. */
const HOME = /^(?:(?:https?:)?\/\/[^/]+)?\/?(?:index\.\w+)?$/i;

/** The elements around a page's headline (`headlineOf`), up to the root: its layout, never a sidebar of it. */
export function aroundHeadline(h1: Element | undefined): Set<Element> {
  const around = new Set<Element>();
  for (
    let node = h1?.parent as Element | null | undefined;
    node && node.type === 'tag';
    node = node.parent as Element | null
  )
    around.add(node);
  return around;
}

/**
 * The microdata properties of a review or a comment of the item a page shows (a customer's, on a product page):
 * what is inside one is its own, not the page's (its date, its author). A page that is itself a review is not inside
 * one.
 */
const REVIEW_PROPS = ['review', 'reviews', 'comment'];
/** Elements that hold a review or a comment of the page's item. */
export const REVIEW = REVIEW_PROPS.map((p) => `[itemprop~="${p}" i]`).join(', ');
/** Whether an element's `itemprop` makes it a review or a comment of the page's item. */
export const isReview = (itemprop: string | undefined): boolean =>
  !!itemprop &&
  itemprop
    .toLowerCase()
    .split(/\s+/)
    .some((p) => REVIEW_PROPS.includes(p));
