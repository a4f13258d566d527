import { byAttr, byJsonLd, byMeta, byText, clean, type Rule, type Doc } from '../helpers.ts';

/** Ordered rules for the title: social cards, structured data, then the document's own headings. */
export const title: Rule[] = [
  byMeta('og:title'), byMeta('twitter:title'), byJsonLd('headline'), byText('title'),
  byText('.post-title'), byText('.entry-title'), byText('h1[class*="title" i] a'), byText('h1[class*="title" i]'), byText('h1'),
];

/** Ordered rules for the description. */
export const description: Rule[] = [
  byMeta('og:description'), byMeta('twitter:description'), byMeta('description'), byMeta('itemprop:description'),
  byJsonLd('description'), byAttr('[itemprop="description"]', 'content'), byText('[itemprop="description"]'),
  firstParagraph,
];

function firstParagraph({ $ }: Doc): string | undefined {
  for (const el of $('article p, main p, p').toArray()) {
    const text = clean($(el).text());
    if (text && text.length > 80) return text;
  }
  return undefined;
}

/** Accepts a title or description: trimmed text of sensible length. */
export function toText(value: unknown): string | undefined {
  const text = clean(typeof value === 'number' ? String(value) : value);
  return text && text.length <= 2000 ? text : undefined;
}
