import { byAttr, byJsonLd, byMeta, byText, clean, type Doc, type Rule } from '../helpers.ts';
import { select } from '../select.ts';
import { typographic } from '../typography.ts';
import { toDate } from './date.ts';
import { cleanByline } from './byline.ts';
import { isSiteName, siteNames } from './site.ts';

const personName = (v: unknown): unknown => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return (v as { name?: unknown }).name;
  return undefined;
};

/** Several authors as people write them in a list: `A; B; C`. */
function joinNames(names: string[]): string {
  return names.join('; ');
}

/**
 * The authors JSON-LD names: every one of a list (`"author": [{ "name": "A" }, { "name": "B" }]` gives `A; B`),
 * where the meta tags, and metascraper, keep only the first.
 */
function jsonLdAuthors({ jsonld }: Doc): string | undefined {
  for (const obj of jsonld) {
    const list = Array.isArray(obj.author) ? obj.author : [obj.author];
    const names = [...new Set(list.map((a) => toAuthor(personName(a))).filter((n): n is string => !!n))];
    if (names.length) return joinNames(names);
  }
  return undefined;
}

/** Two words at least: how a byline in loosely named markup (`class*="author"`) shows it is a name. */
const TWO_WORDS = /^\S+\s+\S+/;
const strict = (rule: Rule): Rule => (doc) => {
  const value = rule(doc);
  return typeof value === 'string' && TWO_WORDS.test(value) ? value : undefined;
};

/** A byline's text, unless it is a date (`<div class="byline">July 4, 2019</div>`). */
const bylineNotDate: Rule = ({ $ }) => {
  for (const el of select($, '[class*="byline" i]')) {
    const text = clean($(el).text());
    if (text && !toDate(text)) return text;
  }
  return undefined;
};

/** Ordered rules for the author (docs/metadata.md): structured data and meta first, then bylines in the markup. */
export const author: Rule[] = [
  jsonLdAuthors, byJsonLd('author', personName), byMeta('author', false), byMeta('article:author'), byMeta('book:author'),
  byMeta('sailthru.author'), byMeta('parsely-author'),
  byText('[itemprop*="author" i] [itemprop="name"]'), byAttr('[itemprop*="author" i] [itemprop="name"]', 'content'),
  byText('[itemprop*="author" i]'), byText('[rel="author"]'), strict(byText('a[class*="author" i]')), strict(byText('[class*="author" i] a')),
  byText('a[href*="/author/" i]'), byText('a[href*="/autor/" i]'), byText('a[href*="/autoren/" i]'), byText('a[class*="screenname" i]'), strict(byText('[class*="author" i]')), strict(bylineNotDate),
];

const URLISH = /^(https?:)?\/\/|^www\.|\.(com|net|org)\/?$/i;

/**
 * Accepts an author: a name of at most 128 characters as a byline gives it (cleanByline: no "By", "Von", date or
 * placeholder), never a URL or a handle's "@"; on a page, never the site's own name standing in for a person.
 */
export function toAuthor(value: unknown, doc?: Doc): string | undefined {
  let text = clean(value);
  if (!text || URLISH.test(text)) return undefined;
  text = cleanByline(text.replace(/^@/, ''));
  if (!text || text.length > 128 || /^\d+$/.test(text) || toDate(text)) return undefined;
  // The site standing in for a person: a name it gives itself, or, for an address or handle (no space: `lecker.de`,
  // `finanzcheck_de`), its address too. A name is compared with the site's given names as a whole (a person's own
  // site may carry the person's name: `Daniel Lemire` is not the site `Daniel Lemire's blog`); a handle loosely.
  const handle = !/\s/.test(text) && /[._@\d]/.test(text);
  if (doc && isSiteName(text, siteNames(doc, handle), !handle)) return undefined;
  return typographic(text);
}
