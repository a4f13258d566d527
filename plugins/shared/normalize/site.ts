// The site a page belongs to, by the names it gives it and by its address: what a title's suffix and an author
// standing in for a person are compared with (the meta plugin's title, the author normaliser).
import { absoluteUrl, byAttr, byJsonLd, byMeta, candidatesOf, type Doc, type Rule } from '../page/helpers.ts';
import { toPublisher } from './publisher.ts';
import { select } from '../page/select.ts';

const orgName = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { name?: unknown }).name : v);

/** The names a site gives itself: structured data, Open Graph, application names (the publisher's first rules). */
export const SITE_NAMES: readonly Rule[] = [
  byJsonLd('publisher.name'),
  byJsonLd('publisher', orgName),
  byMeta('og:site_name'),
  byAttr('meta[name*="application-name" i]', 'content'),
  byAttr('meta[name*="app-title" i]', 'content'),
  byAttr('meta[property*="app_name" i]', 'content'),
  byMeta('publisher'),
  byMeta('twitter:app:name:iphone'),
  byMeta('twitter:app:name:ipad'),
  byMeta('twitter:app:name:googleplay'),
];

/** Letters and digits only, lower case: how names are compared. */
export const key = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** The labels of the page's host that name it (`de.globalvoices.org` → globalvoices; `helge.at` → helge). */
function hostNames(url: string): string[] {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return [];
  }
  if (/^[\d.]+$|^\[/.test(host)) return [];
  const labels = host.replace(/^www\d?\./, '').split('.');
  // The registrable label and any longer label before it (a subdomain such as `arsnova` of arsnova.thm.de).
  return labels
    .slice(0, -1)
    .filter((l) => l.length >= 3 && !/^(www|blog|news|web)$/.test(l))
    .map(key);
}

/** The page's own address as it states it (canonical link, og:url). */
const addressRules: Rule[] = [byAttr('link[rel="canonical"]', 'href'), byMeta('og:url')];

/** The addresses a page goes by: the one it was read from, then its canonical link and `og:url`, made absolute. */
export function pageAddresses(doc: Doc): string[] {
  return [
    doc.url,
    ...candidatesOf(
      doc,
      addressRules,
      (v) => absoluteUrl(v, doc.url),
      (v) => v,
    ),
  ];
}

/** The text of an <h1> that is a link to the site's home page: a blog's masthead, which names the blog. */
function homeHeading({ $, url }: Doc): string[] {
  for (const a of select($, 'h1 > a[href]')) {
    const home = absoluteUrl(a.attribs.href, url);
    try {
      const at = new URL(home ?? '');
      if (at.pathname === '/' && at.hostname === new URL(url).hostname) return [key($(a).text())];
    } catch {
      /* not an address */
    }
  }
  return [];
}

/** The names of the page's site (read once a page, through `doc.once`: the title and every author candidate ask). */
function namesOf(doc: Doc): { given: string[]; all: string[] } {
  const given = [...candidatesOf(doc, SITE_NAMES, toPublisher, (v) => v)].map(key).filter((k) => k.length >= 2);
  const all = [...given, ...pageAddresses(doc).flatMap(hostNames), ...homeHeading(doc)].filter((k) => k.length >= 2);
  return { given, all: [...new Set(all)] };
}

/**
 * Every name the site goes by on this page: the names it gives itself (og:site_name, application name, JSON-LD
 * publisher...) and, with `byAddress`, its address too (a person's own site is named after the person).
 */
export function siteNames(doc: Doc, byAddress = true): string[] {
  const names = doc.once(namesOf);
  return byAddress ? names.all : names.given;
}

/** Whether a part of a title is the site's name: one of its names, its address, or a name that contains either. */
export function isSiteName(part: string, names: readonly string[], asName = false): boolean {
  const k = key(part);
  if (k.length < 2) return false;
  // A person's name inside the site's (`Daniel Lemire` in `Daniel Lemire's blog`) does not make it the site's.
  if (asName) return names.some((n) => k === n || (n.length >= 4 && k.includes(n)));
  return names.some(
    (n) => k === n || (n.length >= 4 && k.includes(n)) || (k.length >= 3 && n.includes(k) && k.length >= n.length / 2),
  );
}
