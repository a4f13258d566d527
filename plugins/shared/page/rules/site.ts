// The site a page belongs to, by the names it gives it and by its address: what a title's suffix and an author
// standing in for a person are compared with (title.ts, author.ts).
import { absoluteUrl, byAttr, byMeta, candidatesOf, type Doc, type Rule } from '../helpers.ts';
import { publisher, toPublisher } from './publisher.ts';

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

/** The page's own address as it states it (canonical link, og:url), and the address it was read from. */
const addressRules: Rule[] = [byAttr('link[rel="canonical"]', 'href'), byMeta('og:url')];

/** The names of each page's site, found once per page (the title and every author candidate ask). */
const found = new WeakMap<Doc, { given: string[]; all: string[] }>();

/**
 * Every name the site goes by on this page: the names it gives itself (og:site_name, application name, JSON-LD
 * publisher...) and, with `byAddress`, its address too (a person's own site is named after the person).
 */
export function siteNames(doc: Doc, byAddress = true): string[] {
  let names = found.get(doc);
  if (!names) {
    const given = [...candidatesOf(doc, publisher.slice(0, 10), toPublisher, (v) => v)]
      .map(key)
      .filter((k) => k.length >= 2);
    const addresses = [
      doc.url,
      ...candidatesOf(
        doc,
        addressRules,
        (v) => absoluteUrl(v, doc.url),
        (v) => v,
      ),
    ];
    names = { given, all: [...new Set([...given, ...addresses.flatMap(hostNames)])] };
    found.set(doc, names);
  }
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
