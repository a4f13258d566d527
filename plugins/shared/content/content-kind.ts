// What kind of page a document is (article, forum, product, collection, listing, documentation, service), from its
// own signals: the schema.org types it declares (JSON-LD and microdata), its Open Graph type, the markup of forum
// and documentation software, repeated cards, and the shape of its URL. The main-content rules read an article and
// a page of another kind differently (content.ts); callers get the kind as `pageType`.
import type { El } from './content-text.ts';
import { FORUM_POST_CLASSES, FORUM_POST_TAGS } from '../page/forum.ts';
import { kindOfAddress } from './content-kind-url.ts';

export type PageKind = 'article' | 'forum' | 'product' | 'collection' | 'listing' | 'documentation' | 'service';
export const PAGE_KINDS: readonly PageKind[] = [
  'article',
  'forum',
  'product',
  'collection',
  'listing',
  'documentation',
  'service',
];

/** schema.org types and the kind of page that declares them as its subject. */
const TYPES: [RegExp, PageKind][] = [
  [/^(DiscussionForumPosting|QAPage)$/, 'forum'],
  [/^(Product|ProductGroup|IndividualProduct|ProductModel|Car|Vehicle|Book|Offer|AggregateOffer)$/, 'product'],
  [/^(CollectionPage|SearchResultsPage)$/, 'collection'],
  [/^(TechArticle|APIReference|SoftwareSourceCode)$/, 'documentation'],
  [
    /^(NewsArticle|Article|BlogPosting|Blog|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle|ScholarlyArticle|Report|Recipe|LiveBlogPosting|HowTo)$/,
    'article',
  ],
  [
    /^(Service|ProfessionalService|LocalBusiness|OfferCatalog|SoftwareApplication|WebApplication|MobileApplication|Course|Event)$/,
    'service',
  ],
];

/** Whether the types declared beside a service's are a product's with its price, and no application's. */
const soldAsProduct = (types: string[]): boolean =>
  !types.some((t) => /^(SoftwareApplication|WebApplication|MobileApplication)$/.test(t)) &&
  types.some((t) => /^(Product|ProductGroup|IndividualProduct|ProductModel)$/.test(t)) &&
  types.some((t) => /^(Offer|AggregateOffer)$/.test(t));

/** Class names of forum software's posts (plugins/shared/page/forum.ts). */
const FORUM_CLASSES = new Set(FORUM_POST_CLASSES);
const FORUM_TAGS = new Set(FORUM_POST_TAGS.map((tag) => tag.toUpperCase()));
/** Class names of documentation generators (Sphinx, MkDocs, Docusaurus, GitBook, Read the Docs, VitePress...). */
const DOCS_CLASSES = new Set(
  'sphinxsidebar rst-content md-content theme-doc-markdown docs-content docMainContainer VPDoc nextra-content gitbook-root toctree-wrapper highlight-python highlight-default docs-sidebar DocSearch'.split(
    ' ',
  ),
);

/** What the elements of a page say of its kind, read in one walk (selectors of many alternatives cost a parse). */
interface Markup {
  /** The schema.org types the page declares (JSON-LD `@type`, microdata `itemtype` of top-level items), in order. */
  declared: string[];
  forum: boolean;
  docs: boolean;
  /** The most teasers (a heading that links elsewhere) that one container repeats. */
  cards: number;
}

function readMarkup(document: Document): Markup {
  const out: Markup = { declared: [], forum: false, docs: false, cards: 0 };
  const perParent = new Map<El, number>();
  // (linkedom's getElementsByTagName('*') finds nothing: `*` is the one selector css-select answers at no cost.)
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName;
    if (tag === 'SCRIPT') {
      if (el.getAttribute('type') !== 'application/ld+json') continue;
      for (const m of (el.textContent ?? '').matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g))
        for (const t of m[1]!.matchAll(/"([^"]+)"/g)) out.declared.push(t[1]!.replace(/^.*[/:]/, ''));
      continue;
    }
    const itemtype = el.getAttribute('itemtype');
    // An item inside another (a review's author, a product's offer) is not the page's subject.
    if (itemtype && !el.parentElement?.closest('[itemscope]'))
      for (const t of itemtype.split(/\s+/)) if (t) out.declared.push(t.replace(/^.*\//, ''));
    if (FORUM_TAGS.has(tag)) out.forum = true;
    const names = el.getAttribute('class');
    if (names && !(out.forum && out.docs))
      for (const name of names.split(/\s+/)) {
        if (FORUM_CLASSES.has(name)) out.forum = true;
        else if (DOCS_CLASSES.has(name)) out.docs = true;
      }
    if ((tag === 'H2' || tag === 'H3' || tag === 'H4') && (el.querySelector('a[href]') || el.closest('a[href]'))) {
      const parent = el.closest('article, li, div')?.parentElement;
      if (!parent) continue;
      const n = (perParent.get(parent) ?? 0) + 1;
      perParent.set(parent, n);
      if (n > out.cards) out.cards = n;
    }
  }
  return out;
}

/**
 * Whether a page that says it is an article (`og:type`) is a post: it says when it was published (meta tag, by
 * property or name, or microdata) or WordPress marks it so. WordPress's SEO plugins write `og:type` article on the
 * site's pages as on its posts, and the time of publishing on its posts alone.
 */
const published = (document: Document): boolean =>
  document.querySelector(PUBLISHED) !== null || /(^|\s)single-post(\s|$)/.test(document.body?.className ?? '');
const PUBLISHED =
  'meta[property="article:published_time"],meta[name="article:published_time"],[itemprop=datePublished]';

/**
 * Whether WordPress marks the page as one of the site's Pages (body classes `page` and `page-id-N`), not a post: an
 * SEO plugin declares such a page an `Article` (JSON-LD, `og:type`, a time of publishing) as it does its posts, and a
 * service page built of a page builder's sections was then read as one container, its hero alone.
 */
const wordpressPage = (document: Document): boolean => {
  const names = document.body?.className ?? '';
  return /(^|\s)page(\s|$)/.test(names) && /(^|\s)page-id-\d+(\s|$)/.test(names);
};

/**
 * The kind of a page, from its declared types first (the page's own word), then the markup of forum and
 * documentation software, its Open Graph type, the shape of its URL and repeated cards; `undefined` when nothing
 * says (page-content.ts then weighs the page's two readings by their size alone).
 */
export function pageKind(document: Document, url: string): PageKind | undefined {
  const { declared, forum, docs, cards } = readMarkup(document);
  const found = new Set<PageKind>();
  for (const t of declared) for (const [re, kind] of TYPES) if (re.test(t)) found.add(kind);
  // Several products are a shop's shelf rather than one product's page.
  if (declared.filter((t) => /^(Product|ProductGroup)$/.test(t)).length >= 3) {
    found.add('collection');
    found.delete('product');
  }
  // A software's page declares the product it sells (`Product`, an `Offer`) and is its service page, as is a business's
  // page that declares its services with an offer or with a product for its review stars, but no product with a price.
  if (found.has('product') && found.has('service') && !soldAsProduct(declared)) found.delete('product');
  // A thread or a product declared outranks the article or page types that sites add around everything.
  for (const kind of ['forum', 'product', 'documentation', 'collection'] as const) if (found.has(kind)) return kind;
  if (forum) return 'forum';
  if (docs) return 'documentation';
  const og = document.querySelector('meta[property="og:type"]')?.getAttribute('content')?.toLowerCase() ?? '';
  if (/product/.test(og)) return 'product';
  const post = !wordpressPage(document);
  if (found.has('article') && post) return 'article';
  const byUrl = kindOfAddress(document, url);
  if (byUrl) return byUrl;
  // Sites write `og:type` article on every page: a page of many teasers is their list, and one that never says when
  // it was published is not known for an article (a CMS's service page, read then as its sections, not one).
  if (og === 'article' && cards >= 8) return 'listing';
  if (og === 'article' && post && published(document)) return 'article';
  if (found.has('service')) return 'service';
  if (cards >= 5) return 'listing';
  return undefined;
}
