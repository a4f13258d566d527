// What a product page's content holds that its container or its markup may leave out: its price, its
// specifications (in a tab beside the description), and its own description as it declares it in JSON-LD
// (`Product.description`): a shop drawn by script sends its description there and in its script's data, and its
// markup holds a promotion banner and the buy box.
import { parseJsonLd, typesOf } from '../page/jsonld.ts';
import { textOf, words, type El } from './content-text.ts';

/** The types of the product a page is about. */
const PRODUCT = /^(Product|ProductGroup|IndividualProduct|ProductModel|Car|Vehicle|Book)$/;

/**
 * The description the page declares for its product (the longest, of 12 words or more), as markup when it is
 * written as HTML (Shopify writes the description's HTML into the JSON-LD); undefined when it declares none.
 */
export function declaredDescription(document: Document): string | undefined {
  let best: string | undefined;
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    const raw = script.textContent ?? '';
    if (!raw.includes('description')) continue;
    for (const node of parseJsonLd(raw)) {
      const text = readable(node.description);
      if (!typesOf(node).some((t) => PRODUCT.test(t)) || !text || words(text) < 12) continue;
      if (!best || text.length > best.length) best = text;
    }
  }
  return best;
}

/** A description as text: some shops write it URL-encoded (`An%20elegant%20sofa`). */
function readable(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (!/%20/.test(value) || /\s/.test(value.trim())) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The distinct words of a text, lower-cased. */
const wordSet = (text: string | null | undefined): Set<string> =>
  new Set((text ?? '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/**
 * Adds the declared description to a product's content that lacks it (half its words are not there), after the
 * content's first heading: a script's shell shows none of it.
 */
export function addDescription(root: El, description: string | undefined): void {
  if (!description) return;
  const holder = root.ownerDocument.createElement('div');
  if (/<[a-z][^>]*>/i.test(description)) holder.innerHTML = description;
  else
    for (const line of description.split(/\n+/)) {
      if (!line.trim()) continue;
      const p = root.ownerDocument.createElement('p');
      p.textContent = line.trim();
      holder.append(p);
    }
  // Already there, as the page words it (its markup may differ from its JSON-LD: entities, breaks, a shortened copy).
  const have = wordSet(root.textContent);
  const theirs = wordSet(holder.textContent);
  if (!theirs.size || [...theirs].filter((w) => have.has(w)).length >= theirs.size * 0.5) return;
  const heading = root.querySelector('h1');
  if (heading) heading.after(...holder.childNodes);
  else root.prepend(...holder.childNodes);
}

/** Where a product's price stands: its microdata, or a part named as its price. */
const PRICE = '[itemprop="price"], [class~="price"], [class~="product-price"], [class~="price-box"], [id="price"]';

/** A product's price that the container of its description left out: put before the description. */
export function price(root: Element, body: Element): void {
  for (const el of body.querySelectorAll(PRICE)) {
    const text = textOf(el);
    if (!/\d/.test(text) || words(text) > 8) continue;
    if (!(root.textContent ?? '').includes(text)) root.prepend(el);
    return;
  }
}

/**
 * A product's specifications (its tables and definition lists) that the container of its description left out
 * (they sit in a tab beside it): appended to the content, each under its heading when it has one.
 */
export function specifications(root: Element, body: Element): void {
  const have = (root.textContent ?? '').replace(/\s+/g, ' ');
  for (const table of body.querySelectorAll('table, dl')) {
    if (table.parentElement?.closest('table, dl') || words(table.textContent) < 4) continue;
    const text = textOf(table);
    if (have.includes(text.slice(0, 60))) continue;
    const heading = table.parentElement?.querySelector('h2, h3, h4');
    if (heading && !heading.contains(table)) root.append(heading);
    root.append(table);
  }
}
