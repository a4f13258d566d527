import { byAttr, byJsonLd, byMeta, byText, clean, type Doc, type Rule } from '../helpers.ts';
import { select } from '../select.ts';
import { typographic } from '../typography.ts';
import { toDate } from './date.ts';

const personName = (v: unknown): unknown => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return (v as { name?: unknown }).name;
  return undefined;
};

/** `A`, `A and B`, `A, B and C`. */
function joinNames(names: string[]): string {
  return names.length < 2 ? names[0] ?? '' : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The authors JSON-LD names: every one of a list (`"author": [{ "name": "A" }, { "name": "B" }]` gives `A and B`),
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
  jsonLdAuthors, byJsonLd('author', personName), byJsonLd('brand.name'), byMeta('author', false), byMeta('article:author'), byMeta('book:author'),
  byMeta('sailthru.author'), byMeta('parsely-author'),
  byText('[itemprop*="author" i] [itemprop="name"]'), byAttr('[itemprop*="author" i] [itemprop="name"]', 'content'),
  byText('[itemprop*="author" i]'), byText('[rel="author"]'), strict(byText('a[class*="author" i]')), strict(byText('[class*="author" i] a')),
  strict(byText('a[href*="/author/" i]')), byText('a[class*="screenname" i]'), strict(byText('[class*="author" i]')), strict(bylineNotDate),
  byMeta('twitter:creator'),
];

const URLISH = /^(https?:)?\/\/|^www\.|\.(com|net|org)\/?$/i;

/** Accepts an author: a human name of at most 128 characters, never a URL, without a leading "By" or "@". */
export function toAuthor(value: unknown): string | undefined {
  let text = clean(value);
  if (!text || URLISH.test(text)) return undefined;
  text = text.replace(/^by[:\s]+/i, '').replace(/^@/, '').trim();
  if (!text || text.length > 128 || /^\d+$/.test(text)) return undefined;
  return typographic(text);
}
