import { byAttr, byJsonLd, byMeta, byText, clean, type Rule } from '../helpers.ts';

const personName = (v: unknown): unknown => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return (v as { name?: unknown }).name;
  return undefined;
};

/** Ordered rules for the author: structured data and meta first, then bylines in the markup. */
export const author: Rule[] = [
  byJsonLd('author.name'), byJsonLd('author', personName), byMeta('author', false), byMeta('article:author'), byMeta('book:author'),
  byMeta('sailthru.author'), byMeta('parsely-author'),
  byText('[itemprop*="author" i] [itemprop="name"]'), byAttr('[itemprop*="author" i] [itemprop="name"]', 'content'),
  byText('[itemprop*="author" i]'), byText('[rel="author"]'), byText('a[class*="author" i]'), byText('[class*="author" i] a'),
  byText('a[href*="/author/" i]'), byText('[class*="author" i]'), byText('[class*="byline" i]'), byMeta('twitter:creator'),
];

const URLISH = /^(https?:)?\/\/|^www\.|\.(com|net|org)\/?$/i;

/** Accepts an author: a short human name, never a URL, with a leading "By" removed. */
export function toAuthor(value: unknown): string | undefined {
  let text = clean(value);
  if (!text || URLISH.test(text)) return undefined;
  text = text.replace(/^by[:\s]+/i, '').replace(/^@/, '').trim();
  if (!text || text.length > 100 || /^\d+$/.test(text)) return undefined;
  return text;
}
