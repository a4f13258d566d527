import { byJsonLd, byMeta, byAttr, byText, clean, type Rule, type Doc } from '../helpers.ts';
import { select } from '../select.ts';

const orgName = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { name?: unknown }).name : v);

/** Ordered rules for the publisher (docs/metadata.md): structured data, site and application names, logos, the title's suffix. */
export const publisher: Rule[] = [
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

/** Accepts a publisher name: short text, not a URL or handle. */
export function toPublisher(value: unknown): string | undefined {
  const text = clean(value);
  if (!text || text.length > 80 || /^https?:/i.test(text)) return undefined;
  return text.replace(/\s+logo$/i, '') || undefined;
}
