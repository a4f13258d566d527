import { byAttr, byJsonLd, byMeta, byText, clean, type Rule, type Doc } from '../helpers.ts';
import { select } from '../select.ts';
import { typographic } from '../typography.ts';

/** Ordered rules for the title (docs/metadata.md): social cards, the document's title, structured data, headings. */
export const title: Rule[] = [
  byMeta('og:title'),
  byMeta('twitter:title'),
  byText('title'),
  byJsonLd('headline'),
  byText('.post-title'),
  byText('.entry-title'),
  byText('h1[class*="title" i] a'),
  byText('h1[class*="title" i]'),
  byText('h1'),
];

/** Ordered rules for the description (docs/metadata.md). */
export const description: Rule[] = [
  byMeta('og:description'),
  byMeta('twitter:description'),
  byMeta('description'),
  byMeta('itemprop:description'),
  byJsonLd('articleBody'),
  byJsonLd('description'),
  byAttr('[itemprop="description"]', 'content'),
  byText('[itemprop="description"]'),
  firstParagraph,
];

function firstParagraph({ $ }: Doc): string | undefined {
  for (const el of select($, 'article p, main p, p')) {
    const text = clean($(el).text());
    if (text && text.length > 80) return text;
  }
  return undefined;
}

/** Accepts a title: condensed text of sensible length, with typographic quotes. */
export function toText(value: unknown): string | undefined {
  const text = clean(typeof value === 'number' ? String(value) : value);
  return text && text.length <= 2000 ? typographic(text) : undefined;
}

/** A dateline in capitals that opens a wire story (`WASHINGTON — `). */
const DATELINE = /^[A-Z\s]+\s+[-—–]\s+/;

/** Accepts a description: as a title, without an opening dateline, and a trailing `...` written as `…`. */
export function toDescription(value: unknown): string | undefined {
  const text = toText(typeof value === 'string' ? value.trim().replace(DATELINE, '') : value);
  return text?.replace(/\s?\.\.\.?$/, '…');
}
