// The content of a page that is not one article (a forum thread, a product, a listing, a service page, a home page):
// its body without the site around it. Readability keeps one container, which on these pages is one post, one card
// or one section; here the page's own landmarks and the names of its parts decide what goes instead.
import { createCounts, words, type El } from './content-text.ts';
import { named } from './content-prune.ts';
import type { PageKind } from './content-kind.ts';

/** Markup that is never content. */
const NEVER = 'script, style, template, iframe, svg, canvas, button, input, select, textarea, option, dialog';
/** Landmarks and parts of the site around the content. */
const AROUND =
  'header, footer, aside, nav, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"], [role="menu"], [role="menubar"]';
/** What a reader does not see until asked (a dialog, a modal): never the page, however long. */
const UNSEEN = '[role="dialog"], [role="alertdialog"], [aria-modal="true"]';

/**
 * Removes what a reader does not see until asked: a terms-of-service modal at the end of a shop's page holds more
 * words than the product, and was taken for the content (by Readability too), whatever else the page held.
 */
export function dropUnseen(document: Document): void {
  for (const el of [...(document.body?.querySelectorAll(UNSEEN) ?? [])]) el.remove();
}

/**
 * Names (class or id words) of a product page's parts around its description: the buy box (price, variants,
 * quantity, cart, payment, delivery) and offers of other products.
 */
const BUY_BOX =
  /^(product-form|add-to-cart|addtocart|atc|buy-box|buybox|cart|minicart|mini-cart|variant|variants|variant-picker|swatch|swatches|quantity|qty|size-selector|size-guide|sizes|options|recently-viewed|upsell|upsells|cross-sell|crosssell|also-like|you-may-also-like|wishlist|compare|shipping|delivery|klarna|afterpay|paypal|payment-methods)$/;
/**
 * Names of a product page's parts that other people wrote or that offer other products: its reviews, ratings and
 * questions (review apps' own names among them), recommendations and bundles. People label none of them the product.
 */
const OTHERS_ON_PRODUCT =
  /^(reviews?|product-reviews?|customer-reviews?|ratings?|testimonials?|yotpo|okendo|jdgm|judgeme|stamped|bazaarvoice|trustpilot|questions|product-qa|recommendations?|related|related-products|bundles?|also-bought)$/;
/** Names of the parts of a thread's post around what its author wrote: votes, actions, signatures, user statistics. */
const POST_PARTS =
  /^(signature|signatures|post-signature|message-signature|sig|votecell|js-voting-container|voting|votes|vote|post-menu|js-post-menu|post-controls|post-actions|postcontrols|message-actionbar|actionbar|action-bar|reactions|reactionsbar|likes|like-button|badges|flair|user-stats|userstats|message-userextras|reputation|reputation-score|post-stats|topic-map|crawler-linkback-list|post-likes|signaturecontainer|postprofile)$/;
/** The whole text of a post's buttons drawn as links: never what its author wrote. */
const ACTIONS =
  /^(share|improve this (answer|question)|follow|reply|quote|report|like|likes|flag|edit|permalink|click to expand\.*|add a comment|show \d+ more comments?|multi-?quote|bookmark|upvote|downvote|thanks|save|report post|reply with quote|link|cite|share this post|share on other sites)$/i;
/** Names of a shelf's parts around its items (filters, sorting, pages) and of what floats over a page. */
const SHELF_PARTS =
  /^(filters?|facets?|refinements?|sort|sort-by|sorting|toolbar|pagination|pager|announcement|announcement-bar|promo-bar|drawer|modal|popup|overlay)$/;

/**
 * What a page shows a reader whose browser runs no script: an application page (Discourse, Flarum) writes its
 * content for such readers inside `<noscript>`, and the rest of its body is an empty shell. A `<noscript>` that
 * holds more words than everything outside it is read as content; any other (a tracking pixel, "enable
 * JavaScript") is dropped.
 */
export function readNoscript(body: El): void {
  const blocks = [...body.getElementsByTagName('noscript')];
  if (!blocks.length) return;
  const inside = blocks.map((el) => words(noscriptText(el)));
  const outside = words(body.textContent) - inside.reduce((s, n) => s + n, 0);
  blocks.forEach((el, i) => {
    if (inside[i]! >= 50 && inside[i]! > outside) {
      // A parser that reads `<noscript>` as text (scripting on) leaves its markup as one text node: parse it.
      if (el.children.length === 0 && /<\w/.test(el.textContent ?? '')) el.innerHTML = el.textContent ?? '';
      el.replaceWith(...el.childNodes);
    } else el.remove();
  });
}

const noscriptText = (el: El): string =>
  el.children.length === 0 ? (el.textContent ?? '').replace(/<[^>]*>/g, ' ') : (el.textContent ?? '');

/**
 * The content of a page that is not one article, in place: the body (or its one `<main>` when that holds most of
 * the text) without script, landmarks of the site (header, footer, navigation, asides), parts named as the site's
 * (cookie notices, newsletters, share bars, breadcrumbs) and menus (lists that are all links).
 */
export function pageBody(document: Document, kind?: PageKind): El | undefined {
  const body = document.body as El | null;
  if (!body) return undefined;
  for (const el of body.querySelectorAll(NEVER)) el.remove();
  // Hidden by its style: a reader never sees it (a menu's panel, a template, a tab's copy for another device).
  for (const el of body.querySelectorAll('[style]'))
    if (/(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(el.getAttribute('style') ?? '')) el.remove();
  readNoscript(body);
  const all = words(body.textContent);
  let root: El = body;
  const mains = [...body.querySelectorAll('main, [role="main"]')].filter(
    (el) => !el.parentElement?.closest('main, [role="main"]'),
  );
  if (mains.length === 1 && words(mains[0]!.textContent) >= all * 0.5) root = mains[0]!;
  for (const el of [...root.querySelectorAll(`${AROUND}, [hidden], [aria-hidden="true"]`)]) {
    // A landmark that holds most of the page is the page (a whole site inside one `<header>` or `<form>`).
    if (root.contains(el) && words(el.textContent) < words(root.textContent) * 0.5) el.remove();
  }
  const total = words(root.textContent);
  for (const el of [...root.querySelectorAll('[class], [id]')])
    if (root.contains(el) && named(el) && words(el.textContent) < total * 0.3) el.remove();
  kindParts(root, kind);
  const counts = createCounts();
  for (const el of [...root.querySelectorAll('ul, ol')]) {
    if (!root.contains(el)) continue;
    const items = el.children.length;
    // A menu: a list of short links (a card of a listing has more than its link's words).
    if (items >= 3 && counts.density(el) > 0.9 && counts.words(el) / items < 6) {
      el.remove();
      counts.changed();
    }
  }
  return root;
}

/**
 * Removes the parts a page of this kind has around its content, by their names: a shop's shelf (filters, sorting,
 * pages) on any page that is not an article, a product's buy box, a forum post's votes, actions and signature, and
 * its buttons drawn as links. Run on whichever container holds the content (the body, or Readability's).
 */
export function kindParts(root: El, kind: PageKind | undefined): void {
  if (kind === 'article') return;
  const total = words(root.textContent);
  // A product's reviews may hold more words than its description: they go unless they are most of the page.
  if (kind === 'product')
    for (const el of [...root.querySelectorAll('[class], [id], [itemprop="review"]')])
      if (
        root.contains(el) &&
        (named(el, OTHERS_ON_PRODUCT) || el.getAttribute('itemprop') === 'review') &&
        words(el.textContent) < total * 0.7
      )
        el.remove();
  for (const el of [...root.querySelectorAll('[class], [id]')])
    if (
      root.contains(el) &&
      (named(el, SHELF_PARTS) ||
        (kind === 'product' && named(el, BUY_BOX)) ||
        (kind === 'forum' && named(el, POST_PARTS))) &&
      words(el.textContent) < total * 0.3
    )
      el.remove();
  if (kind === 'forum')
    for (const el of [...root.querySelectorAll('a, button, span, div, li, p')])
      if (!el.children.length && ACTIONS.test((el.textContent ?? '').trim())) el.remove();
}
