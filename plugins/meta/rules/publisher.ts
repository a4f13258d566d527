// The publisher (docs/metadata.md): the names the site gives itself (plugins/shared/normalize/site.ts), then its
// logo's words and the title's suffix; its normalisation is plugins/shared/normalize/publisher.ts's.
import { byAttr, byText, clean, type Rule, type Doc } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { key, SITE_NAMES, siteNames } from '../../shared/normalize/site.ts';
import { interfaceText } from '../../shared/normalize/byline-extra.ts';

/** A mark of the site's brand, not a button in the brand's colours (`button-brand`, `btn-brand`). */
const BRAND = 'a[class*="brand" i]:not([class*="btn" i], [class*="button" i], [role="button"])';

/** A rule whose text is the page's interface (`Log In`, `Menu`) gives no name. */
const named =
  (rule: Rule): Rule =>
  (doc) => {
    const value = rule(doc);
    return typeof value === 'string' && interfaceText(value) ? undefined : value;
  };

/** Ordered rules for the publisher: structured data, site and application names, logos, the title's suffix. */
export const publisher: Rule[] = [
  ...SITE_NAMES,
  ...[
    byText('#logo'),
    byText('.logo'),
    byText(BRAND),
    byAttr('[class*="logo" i] a img[alt]', 'alt'),
    byAttr('[class*="logo" i] img[alt]', 'alt'),
    byAttr('[class*="brand" i] img[alt]', 'alt'),
  ].map(named),
  titleSuffix,
];

function titleSuffix(doc: Doc): string | undefined {
  const title = clean(doc.$(select(doc.$, 'title')[0]).text());
  if (!title) return undefined;
  const parts = title.split(/\s[|\-–—·:]\s/);
  if (parts.length < 2) return undefined;
  // The part that is the site's name itself (`Reddit - The heart of the internet` on reddit.com), else the last.
  const names = siteNames(doc);
  return clean(parts.find((part) => names.includes(key(part))) ?? parts[parts.length - 1]);
}
