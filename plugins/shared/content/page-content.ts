// The content of a page: its main content. An article (or documentation) is one container, found by content.ts;
// a page of another kind (a thread, a product, a listing, a service page) is its body without the site around it
// (content-page.ts). Which one a page is, is read from its own signals (content-kind.ts) and from how much of the
// cleaned body the one container holds.
import { parseHTML } from 'refract-linkedom';
import { MAX_DEPTH, parseHtml } from '../../../engine/index.ts';
import { adoptStrays, deeperThan, unwrapFieldless, wholeDocument } from './document.ts';
import { dropPlaceholders, dropUnseen, showPanels } from './content-seen.ts';
import { headlines, mainContent, titleOf } from './content.ts';
import { pageKind, type PageKind } from './content-kind.ts';
import { pageBody } from './content-page.ts';
import { kindParts } from './content-kind-parts.ts';
import { clean, repeats } from './content-clean.ts';
import { attributePosts, threadOf, writePostLines } from './content-posts.ts';
import { words } from './content-text.ts';
import { revealStreamed } from './streamed.ts';
import { addDescription, declaredDescription, price, specifications } from './content-product.ts';

/** A page's content: its main content (or, for a page with no article, the page without its furniture), and its title. */
export interface PageContent {
  title: string | undefined;
  root: Element;
  /** The kind of page it is (content-kind.ts), when its signals say. */
  kind?: PageKind | undefined;
}

/** Kinds of page whose content is one container, found as an article's is; the others' is their body, cleaned. */
const ONE_CONTAINER = new Set<PageKind | undefined>(['article']);

/**
 * Whether the container Readability found is the page's content, from the share of the cleaned body's words it
 * holds: a fifth or less is one post of a thread, one card of a list (whatever the page says it is); less than
 * 70% on a page that does not say it is an article is one section of several, and so is less than 80% that is not
 * prose (a service page's sections of short blocks, its hero and its cards' titles left out). Documentation is read
 * whole, its generator's sidebar and table of contents aside (content-page.ts): Readability's container drops its
 * headings and code blocks (their class names read as the site's), though it holds nearly all of its words.
 */
function oneContainer(kind: PageKind | undefined, share: number, written: () => boolean): boolean {
  if (share < 0.2 || kind === 'documentation') return false;
  if (ONE_CONTAINER.has(kind)) return true;
  if (share < 0.7) return false;
  // A product's description and a thread's posts are what they are, prose or not.
  return share >= 0.8 || kind === 'product' || kind === 'forum' || written();
}

/** The share of a container's words that stand in paragraphs of 25 words or more: an article's text is most of it. */
function prose(root: Element): number {
  let long = 0;
  for (const p of root.querySelectorAll('p')) {
    const n = words(p.textContent);
    if (n >= 25) long += n;
  }
  return long / (words(root.textContent) || 1);
}

/**
 * The page as a browser builds it (streamed parts in place), read by linkedom, without what a reader does not see
 * until asked (dialogs).
 */
function parse(html: string): Document {
  const document = parseHTML(html).document as unknown as Document;
  adoptStrays(document, html);
  revealStreamed(document);
  showPanels(document);
  dropUnseen(document);
  if (html.includes('{{')) dropPlaceholders(document);
  unwrapFieldless(document);
  return document;
}

/**
 * The main content of a page, noise removed and links absolute: its one container (content.ts) when that is the
 * page's content, else its body without the site around it (content-page.ts). With `main` false, the whole page
 * without navigation, header, footer and asides.
 */
export function pageContent(raw: string, base: string, main = true): PageContent {
  let html = wholeDocument(raw);
  let document = parse(html);
  if (deeperThan(document.documentElement, MAX_DEPTH)) {
    // Nested past the depth browsers build: bounded as the engine's parse bounds it, and read whole (the search for
    // an article costs the depth times the elements there: 8 s for a page nested 100,000 deep).
    html = wholeDocument(parseHtml(html).html());
    document = parse(html);
    main = false;
  }
  const kind = pageKind(document, base);
  const described = kind === 'product' ? declaredDescription(document) : undefined;
  if (!main) {
    const title = document.title?.replace(/\s+/g, ' ').trim() || undefined;
    for (const el of document.querySelectorAll('header, footer, aside')) el.remove();
    return { title, root: clean(document.body, base), kind };
  }
  // A thread's posts carry their authors and times into the content (their user cards are furniture).
  if (document.body && kind === 'forum') attributePosts(document.body);
  // The parts a page of its kind has around its content go before Readability looks (it renames what it keeps).
  if (document.body && (kind === 'forum' || kind === 'collection' || kind === 'listing' || kind === 'product'))
    kindParts(document.body, kind);
  // The most words the cleaned body can hold (scripts and styles aside): a container that holds enough of them is
  // the content whatever the body's reading would say, which is then not made (most articles).
  let most = words(document.body?.textContent) + 1;
  for (const el of document.body?.querySelectorAll('script, style, template') ?? []) most -= words(el.textContent);
  // A page whose markup holds one <article> says what its text is, prose or not (a story of short paragraphs).
  const oneArticle = document.querySelectorAll('article').length === 1;
  const found = mainContent(document);
  let isProse: boolean | undefined;
  const written = () => oneArticle || (isProse ??= prose(found!.root) >= 0.5);
  const held = found ? words(found.root.textContent) : 0;
  if (found && kind !== 'product' && oneContainer(kind, held / (most || 1), written))
    return { title: found.title, root: settle(found.root, kind, base), kind };
  // The search for an article changed the document it read: the body is read from the page as it came.
  const again = parse(html);
  if (again.body && kind === 'forum') attributePosts(again.body);
  const body = pageBody(again, kind);
  if (found && (!body || oneContainer(kind, held / (words(body.textContent) || 1), written))) {
    if (kind === 'product' && body) {
      specifications(found.root, body);
      price(found.root, body);
    }
    return { title: found.title, root: settle(found.root, kind, base, described), kind };
  }
  const title = found?.title ?? titleOf(again.title, headlines(again));
  return { title, root: settle(body ?? again.body, kind, base, described), kind };
}

/**
 * The chosen content as it is answered: a thread's part, the noise cleaned, links absolute, what it repeats removed
 * (every repeated block of a thread or a product), then each post's line written (an author's line repeats by nature).
 */
function settle(root: Element, kind: PageKind | undefined, base: string, described?: string): Element {
  const part = thread(root, kind);
  addDescription(part, described);
  const cleaned = clean(part, base);
  repeats(cleaned, kind === 'forum' || kind === 'product');
  return writePostLines(cleaned);
}

/**
 * A thread's content is the part that holds its posts, without the threads listed after them (trending, similar),
 * unless that part is a small share of the content (posts found in a sidebar's list).
 */
function thread(root: Element, kind: PageKind | undefined): Element {
  const part = kind === 'forum' ? threadOf(root) : undefined;
  return part && words(part.textContent) >= words(root.textContent) * 0.3 ? part : root;
}
