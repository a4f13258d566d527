import { byJsonLd, byMeta, byAttr, clean, type Rule, type Doc } from '../helpers.ts';

const orgName = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { name?: unknown }).name : v);

/** Ordered rules for the publisher: site name and application name, structured data, then the title's suffix. */
export const publisher: Rule[] = [
  byJsonLd('publisher.name'), byJsonLd('publisher', orgName), byMeta('og:site_name'), byMeta('application-name'), byMeta('apple-mobile-web-app-title'),
  byMeta('al:android:app_name'), byMeta('al:iphone:app_name'), byMeta('twitter:app:name:iphone'), byMeta('publisher'),
  byAttr('[class*="brand" i] img', 'alt'), byAttr('[class*="logo" i] img', 'alt'), titleSuffix,
];

function titleSuffix({ $ }: Doc): string | undefined {
  const title = clean($('title').first().text());
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
