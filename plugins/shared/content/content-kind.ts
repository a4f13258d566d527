// What kind of page a document is (article, forum, product, collection, listing, documentation, service), from its
// own signals: the schema.org types it declares (JSON-LD and microdata), its Open Graph type, the markup of forum
// and documentation software, repeated cards, and the shape of its URL. The main-content rules read an article and
// a page of another kind differently (content.ts); callers get the kind as `pageType`.
import type { El } from './content-text.ts';

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
  [/^(CollectionPage|OfferCatalog|SearchResultsPage)$/, 'collection'],
  [/^(TechArticle|APIReference|SoftwareSourceCode)$/, 'documentation'],
  [
    /^(NewsArticle|Article|BlogPosting|Blog|ReportageNewsArticle|AnalysisNewsArticle|OpinionNewsArticle|ScholarlyArticle|Report|Recipe|LiveBlogPosting|HowTo)$/,
    'article',
  ],
  [/^(Service|ProfessionalService|LocalBusiness|SoftwareApplication|WebApplication|Course|Event)$/, 'service'],
];

/** The schema.org types a document declares (JSON-LD `@type` and microdata `itemtype`), in order. */
function declaredTypes(document: Document): string[] {
  const out: string[] = [];
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    for (const m of (script.textContent ?? '').matchAll(/"@type"\s*:\s*(\[[^\]]*\]|"[^"]*")/g))
      for (const t of m[1]!.matchAll(/"([^"]+)"/g)) out.push(t[1]!.replace(/^.*[/:]/, ''));
  }
  for (const el of document.querySelectorAll('[itemtype]')) {
    // An item inside another (a review's author, a product's offer) is not the page's subject.
    if (el.parentElement?.closest('[itemscope]')) continue;
    for (const t of (el.getAttribute('itemtype') ?? '').split(/\s+/)) if (t) out.push(t.replace(/^.*\//, ''));
  }
  return out;
}

/** Markup of forum software (Discourse, XenForo, phpBB, vBulletin, Invision, Stack Exchange, Flarum, Lemmy...). */
const FORUM_MARKUP =
  '.crawler-post, .message--post, .js-post, .postbody, .post-body .postmessage, [id^="post_message_"], .cPost, article.cPost, .answercell, .postcell, .js-answer, .PostView, .comment-tree, .topic-post, .bbWrapper, .forum-post, .post-content.forum, #thread, .thread-post';
/** Markup of documentation generators (Sphinx, MkDocs, Docusaurus, GitBook, Read the Docs, VitePress, Nextra...). */
const DOCS_MARKUP =
  '.sphinxsidebar, .rst-content, .md-content, .theme-doc-markdown, .docs-content, .docMainContainer, .VPDoc, .nextra-content, .gitbook-root, [class*="docs-sidebar"], [class*="DocSearch"], .toctree-wrapper, .highlight-python, .highlight-default';

/** The URL's shape: the forum, shop and documentation paths most software writes. */
function kindOfUrl(url: URL): PageKind | undefined {
  const path = url.pathname.toLowerCase();
  const host = url.hostname.toLowerCase();
  if (
    /\/(t|d|threads?|topics?|questions|showthread\.php|viewtopic\.php|comments|post|discussion|discussions)\/?[^/]*/.test(
      path,
    ) &&
    /^(forums?|community|discuss|discussion|boards?|answers|talk|users)\.|forum|community|board|discuss|stackexchange|stackoverflow|superuser|serverfault|askubuntu|reddit|lemmy/.test(
      host + path,
    )
  )
    return 'forum';
  if (/^(docs?|developers?|devdocs|api|wiki|learn|manual|help)\./.test(host)) return 'documentation';
  if (/\/(docs?|documentation|reference|manual|api-reference|guides?)\//.test(path)) return 'documentation';
  if (/\/(products?|p|dp|item|items|shop\/product)\/[^/]+/.test(path)) return 'product';
  if (/\/(collections?|categories|category|c|shop|store|catalog|browse)(\/|$)/.test(path)) return 'collection';
  return undefined;
}

/**
 * The kind of a page, from its declared types first (the page's own word), then the markup of forum and
 * documentation software, its Open Graph type, the shape of its URL and repeated cards; `undefined` when nothing
 * says (the caller reads it as an article, as before).
 */
export function pageKind(document: Document, url: string): PageKind | undefined {
  const declared = declaredTypes(document);
  const found = new Set<PageKind>();
  for (const t of declared) for (const [re, kind] of TYPES) if (re.test(t)) found.add(kind);
  // Several products, or a list of items, are a shop's shelf rather than one product's page.
  const products = declared.filter((t) => /^(Product|ProductGroup)$/.test(t)).length;
  if (products >= 3) found.add('collection');
  if (products >= 3) found.delete('product');
  // A thread or a product declared outranks the article or page types that sites add around everything.
  for (const kind of ['forum', 'product', 'documentation', 'collection'] as const) if (found.has(kind)) return kind;
  if (document.querySelector(FORUM_MARKUP)) return 'forum';
  if (document.querySelector(DOCS_MARKUP)) return 'documentation';
  const og = document.querySelector('meta[property="og:type"]')?.getAttribute('content')?.toLowerCase() ?? '';
  if (/product/.test(og)) return 'product';
  if (found.has('article')) return 'article';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    /* no URL shape */
  }
  const byUrl = parsed && kindOfUrl(parsed);
  if (byUrl) return byUrl;
  if (og === 'article') return 'article';
  if (found.has('service')) return 'service';
  if (cards(document) >= 5) return 'listing';
  return undefined;
}

/** The most teasers of other pages one container repeats: a heading that links, each in its own block. */
function cards(document: Document): number {
  let best = 0;
  const seen = new Map<El, number>();
  for (const a of document.querySelectorAll('h2 a[href], h3 a[href], h4 a[href], a[href] h2, a[href] h3')) {
    const card = a.closest('article, li, div');
    const parent = card?.parentElement;
    if (!parent) continue;
    const n = (seen.get(parent) ?? 0) + 1;
    seen.set(parent, n);
    if (n > best) best = n;
  }
  return best;
}
