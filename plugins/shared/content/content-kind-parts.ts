// The parts that a page of each kind has around its content, removed by their names: a shop's shelf (filters,
// sorting, pages), a product's buy box, reviews and recommendations, a forum post's votes, actions and signature.
import { named } from './content-prune.ts';
import { words, type El } from './content-text.ts';
import type { PageKind } from './content-kind.ts';

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
  /^(share|improve this (answer|question)|follow|reply|quote|report|like|likes|flag|edit|permalink|click to expand\.*|add a comment|show \d+ more comments?|multi-?quote|bookmark|upvote|downvote|thanks|save|report post|reply with quote|link|cite|share this post|share on other sites|link to (comment|post)|posted)$/i;
/** Headings of a product page's sections that offer other products (a marketplace's shelves beside the item). */
const OTHER_PRODUCTS =
  /^((explore|shop|discover|see|browse) )?(people who (viewed|bought) this( item)? also (viewed|bought)|customers (who (viewed|bought) this( item)? )?also (viewed|bought)|(frequently bought|often bought|goes well|pairs well) (together|with)|similar (items|products)|related (items|products)|(you|you might|you may) (also )?(like|love)|more from (this|the) (seller|shop|store|brand)|seller's other items|recently viewed( items| products)?|complete the look|shop the look)\b/i;
/** A field's name as a template writes it (`retail_price_tier1`, `cat_thumb_Bone`): a shop's data, not its words. */
const FIELD_CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+(:|\s|$)/i;
/** Names of a shelf's parts around its items (filters, sorting, pages) and of what floats over a page. */
const SHELF_PARTS =
  /^(filters?|facets?|refinements?|sort|sort-by|sorting|toolbar|pagination|pager|announcement|announcement-bar|promo-bar|drawer|modal|popup|overlay|dialog|lightbox)$/;

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
      ((named(el, SHELF_PARTS) && !panel(el)) ||
        (kind === 'product' && named(el, BUY_BOX)) ||
        (kind === 'forum' && named(el, POST_PARTS))) &&
      words(el.textContent) < total * 0.3
    )
      el.remove();
  if (kind === 'product') {
    otherProducts(root, total);
    fieldCodes(root);
  }
  if (kind === 'forum')
    for (const el of [...root.querySelectorAll('a, button, span, div, li, p')])
      if (!el.children.length && ACTIONS.test((el.textContent ?? '').trim())) el.remove();
}

/**
 * A part that holds all its tab's panel holds is what the tab shows (a company's offers under tabs whose markup is
 * named `filter-...`), whatever its name; a shelf's filters beside its results in one panel are not all of it.
 */
function panel(el: El): boolean {
  const tab = el.closest('[role="tabpanel"]');
  return !!tab && words(el.textContent) >= words(tab.textContent) * 0.9;
}

/**
 * Removes a product page's sections that offer other products, found by their headings: each heading with the
 * largest part around it that holds no other heading of its rank or above (the products' own headings are below
 * it) and less than a third of the page.
 */
function otherProducts(root: El, total: number): void {
  for (const heading of [...root.querySelectorAll('h2, h3, h4, [role="heading"]')]) {
    if (!root.contains(heading) || !OTHER_PRODUCTS.test((heading.textContent ?? '').trim())) continue;
    const rank = Number(heading.tagName.slice(1)) || 2;
    const peers = ['h1', 'h2', 'h3', 'h4'].slice(0, rank).join(', ');
    let section: Element = heading;
    for (let up = section.parentElement; up && up !== root; up = up.parentElement) {
      const others = [...up.querySelectorAll(peers)].filter((el) => el !== heading).length;
      if (others || words(up.textContent) >= total * 0.3) break;
      section = up;
    }
    section.remove();
  }
}

/** Removes the fields (a definition's term and its values, a table's row) whose name is a template's code. */
function fieldCodes(root: El): void {
  for (const term of [...root.querySelectorAll('dt, th')]) {
    if (!FIELD_CODE.test((term.textContent ?? '').trim())) continue;
    if (term.tagName === 'TH') {
      term.closest('tr')?.remove();
      continue;
    }
    for (let next = term.nextElementSibling; next?.tagName === 'DD'; next = term.nextElementSibling) next.remove();
    term.remove();
  }
}
