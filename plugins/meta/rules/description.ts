import { byAttr, byJsonLd, byMeta, byText, clean, type Rule, type Doc } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';

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
