import { byAttr, byJsonLd, byMeta, byText, clean, type Rule } from '../helpers.ts';

/** Ordered rules for the publication date. */
export const date: Rule[] = [
  byJsonLd('datePublished'), byMeta('article:published_time'), byMeta('article:published'), byMeta('og:published_time'),
  byMeta('datePublished'), byMeta('date'), byMeta('dc.date'), byMeta('dc.date.issued'), byMeta('dcterms.created'),
  byMeta('pubdate'), byMeta('publishdate'), byMeta('publish-date'), byMeta('sailthru.date'), byMeta('parsely-pub-date'),
  byJsonLd('dateCreated'), byJsonLd('uploadDate'), byAttr('[itemprop*="datepublished" i]', 'content'),
  byAttr('[itemprop*="datepublished" i]', 'datetime'), byAttr('time[datetime]', 'datetime'), byText('[itemprop*="datepublished" i]'),
  byJsonLd('dateModified'), byMeta('article:modified_time'), byMeta('og:updated_time'), byMeta('last-modified'),
  byAttr('[itemprop*="datemodified" i]', 'content'),
];

const ISO_DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Parses a date strictly and returns ISO 8601, or undefined when the text is not a plausible date. */
export function toDate(value: unknown): string | undefined {
  let text: string | undefined;
  if (typeof value === 'number') text = String(value);
  else text = clean(value);
  if (!text) return undefined;
  let ms: number;
  if (/^\d{10}$/.test(text)) ms = Number(text) * 1000;
  else if (/^\d{13}$/.test(text)) ms = Number(text);
  else if (ISO_DATE_ONLY.test(text)) ms = Date.parse(`${text}T00:00:00Z`);
  else if (/^\d{4}$/.test(text)) return undefined;
  else ms = Date.parse(text.replace(/\s+at\s+/i, ' '));
  if (!Number.isFinite(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1990 || year > new Date().getUTCFullYear() + 1) return undefined;
  return new Date(ms).toISOString();
}
