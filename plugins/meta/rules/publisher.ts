// The publisher (docs/metadata.md): the names the site gives itself (plugins/shared/normalize/site.ts), then its
// logo's words and the title's suffix; its normalisation is plugins/shared/normalize/publisher.ts's.
import { byAttr, byText, clean, type Rule, type Doc } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { SITE_NAMES } from '../../shared/normalize/site.ts';

/** Ordered rules for the publisher: structured data, site and application names, logos, the title's suffix. */
export const publisher: Rule[] = [
  ...SITE_NAMES,
  byText('#logo'),
  byText('.logo'),
  byText('a[class*="brand" i]'),
  byAttr('[class*="logo" i] a img[alt]', 'alt'),
  byAttr('[class*="logo" i] img[alt]', 'alt'),
  byAttr('[class*="brand" i] img[alt]', 'alt'),
  titleSuffix,
];

function titleSuffix({ $ }: Doc): string | undefined {
  const title = clean($(select($, 'title')[0]).text());
  if (!title) return undefined;
  const parts = title.split(/\s[|\-–—·:]\s/);
  return parts.length > 1 ? clean(parts[parts.length - 1]) : undefined;
}
