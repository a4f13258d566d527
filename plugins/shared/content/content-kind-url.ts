// What a page's address says of its kind: the forum, shop and documentation paths most software writes. Read from
// the URL fetched and, when that says nothing, from the address the page declares for itself (`<link
// rel=canonical>`, `og:url`): a short link, a tracking redirect or a mirror still names the page's own path.
import type { PageKind } from './content-kind.ts';

/** A path segment of a thread (Discourse's `/t/`, XenForo's `/threads/`, phpBB's `viewtopic.php`, Reddit's...). */
const THREAD_SEGMENT =
  /^(t|d|threads?|topics?|questions|comments|post|posts|discussion|discussions|showthread\.php|viewtopic\.php)$/;
/** A forum's name, as a word of its host or path (`community.`, `/forum/`, `travel-forum`; not `keyboards`). */
const FORUM_WORD =
  /(^|[^a-z])(forums?|community|communities|boards?|discuss|discussions?|answers|talk)([^a-z]|$)|stackexchange|stackoverflow|superuser|serverfault|askubuntu|reddit|lemmy/;
/** A shop's path to one product, Amazon's `/dp/` among them. */
const PRODUCT_PATH = /\/(products?|dp|item|items|shop\/product)\/(.+)$/;
/**
 * Whether the last segment of a shop's product path names one product: it carries a model number or code
 * (`sennheiser-hd-600`, `B0D1PC8551`) or four words or more (`beatrice-tan-tufted-rug`); a shelf's names one kind
 * of thing in fewer (`/products/monitor-arms`, `/products/bike`).
 */
const oneProduct = (segment: string): boolean => /\d/.test(segment) || segment.split(/[-_]/).length >= 4;

/** The kind a URL's shape says, if any. */
export function kindOfUrl(url: URL): PageKind | undefined {
  const path = url.pathname.toLowerCase();
  const host = url.hostname.toLowerCase();
  const segments = path.split('/').filter(Boolean);
  if (segments.some((s) => THREAD_SEGMENT.test(s)) && FORUM_WORD.test(`${host}${path}`)) return 'forum';
  if (/^(docs?|developers?|devdocs|api|wiki|learn|manual|help)\./.test(host)) return 'documentation';
  if (/\/(docs?|documentation|reference|manual|api-reference)\//.test(path)) return 'documentation';
  const product = PRODUCT_PATH.exec(path)?.[2]?.split('/').filter(Boolean).pop();
  if (product && oneProduct(product.replace(/\.html?$/, ''))) return 'product';
  if (/\/(collections?|categories|category|c|shop|store|catalog|browse)(\/|$)/.test(path)) return 'collection';
  return undefined;
}

/** The kind the page's address says: the URL fetched, else the address the page declares as its own. */
export function kindOfAddress(document: Document, url: string): PageKind | undefined {
  const declared =
    document.querySelector('link[rel="canonical"]')?.getAttribute('href') ??
    document.querySelector('meta[property="og:url"]')?.getAttribute('content');
  for (const address of [url, declared]) {
    if (!address) continue;
    try {
      const kind = kindOfUrl(new URL(address, url));
      if (kind) return kind;
    } catch {
      /* not a URL: no shape */
    }
  }
  return undefined;
}
