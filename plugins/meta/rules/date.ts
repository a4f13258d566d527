import * as chrono from 'chrono-node';
import { byAttr, byJsonLd, byMeta, byMetaLike, byText, clean, type Doc, type Rule } from '../helpers.ts';

/** Ordered rules for the date (docs/metadata.md): metascraper's "modified", then "published", then generic rules. */
export const date: Rule[] = [
  byJsonLd('dateModified'), byMetaLike('modified_time'), byMetaLike('updated_time'), byAttr('[itemprop*="datemodified" i]', 'content'),
  byJsonLd('datePublished'), byJsonLd('dateCreated'), byJsonLd('uploadDate'), byMetaLike('published_time'), byMetaLike('release_date'),
  byAttr('[itemprop="datepublished" i]', 'content'), byAttr('[itemprop*="datepublished" i]', 'title'), byText('[class*="publish" i]'),
  byMeta('date'), byMeta('dc.date'), byMeta('dc.date.issued'), byMeta('dc.date.created'), byMeta('dcterms.date'), byMeta('dcterms.created'),
  byMeta('pubdate'), byMeta('publishdate'), byMeta('publish-date'), byMeta('sailthru.date'), byMeta('parsely-pub-date'),
  byAttr('[itemprop*="date" i]', 'content'), byAttr('[itemprop*="date" i]', 'title'), byAttr('time[itemprop*="date" i]', 'datetime'), byAttr('time[datetime]', 'datetime'),
  byText('[class*="byline" i] time'), byText('[class*="byline" i]'), byText('[class*="dateline" i]'), byText('[id*="date" i]'), byText('[class*="date" i]'),
  byText('[id*="publish" i]'), byText('[class*="post-meta" i]'), byText('[class*="time" i]'),
];

const ISO_DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MACHINE_DATE = /^\d{4}-\d{2}-\d{2}[T ]\d|^(mon|tue|wed|thu|fri|sat|sun)[a-z]*, \d{1,2} [a-z]{3} \d{4} \d/i;

/** Words of a date relative to the moment of reading, which is never when the page was written. */
const RELATIVE = /\b(ago|today|yesterday|tomorrow|just now)\b/i;

/** Reads a date written for people (`12 Jan, 2016, 10.34PM IST`); only when day, month and year are all stated. */
function fromText(text: string): number | undefined {
  if (RELATIVE.test(text)) return undefined;
  const found = chrono.strict.parse(text.slice(0, 200))[0];
  if (!found) return undefined;
  const { start } = found;
  if (!start.isCertain('day') || !start.isCertain('month') || !start.isCertain('year')) return undefined;
  return start.date().getTime();
}

/** Parses a date strictly and returns ISO 8601, or undefined when the text is not a plausible date. */
export function toDate(value: unknown): string | undefined {
  let text: string | undefined;
  if (typeof value === 'number') text = String(value);
  else text = clean(value);
  if (!text) return undefined;
  let ms: number;
  // Epoch times: seconds, milliseconds, microseconds or nanoseconds, told apart by their number of digits.
  if (/^\d{9,10}$/.test(text)) ms = Number(text) * 1000;
  else if (/^\d{12,13}$/.test(text)) ms = Number(text);
  else if (/^\d{15,16}$/.test(text)) ms = Math.floor(Number(text) / 1000);
  else if (/^\d{18,19}$/.test(text)) ms = Math.floor(Number(text) / 1e6);
  else if (ISO_DATE_ONLY.test(text)) ms = Date.parse(`${text}T00:00:00Z`);
  else if (/^\d{4}$/.test(text)) return undefined;
  else if (MACHINE_DATE.test(text)) ms = Date.parse(text);
  else ms = fromText(text) ?? Date.parse(text.replace(/\s+at\s+/i, ' '));
  if (!Number.isFinite(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1990 || year > new Date().getUTCFullYear() + 1) return undefined;
  return new Date(ms).toISOString();
}

/** A written date that states its time zone (`Z`, `+02:00`, `-0500`). */
const ZONED = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?([zZ]|[+-]\d{2}:?\d{2})$/;
/** Where structured data states a page's dates. */
const STRUCTURED = ['dateModified', 'datePublished', 'dateCreated', 'uploadDate'].map((key) => byJsonLd(key));

/**
 * The page's date: the first rule's, except that a date written without its time zone (`2017-07-14`, or
 * `2017-07-14T20:28:07` read as UTC) gives way to a structured date of the same day that states its zone (JSON-LD
 * `datePublished: 2017-07-14T20:28:07+02:00`), the more precise statement of the same moment.
 */
export function pageDate(doc: Doc): string | undefined {
  for (const rule of date) {
    let raw: unknown;
    try { raw = rule(doc); } catch { continue; }
    const found = toDate(raw);
    if (!found) continue;
    if (typeof raw === 'string' && !ZONED.test(raw.trim())) {
      for (const rule of STRUCTURED) {
        const zoned = rule(doc);
        const precise = typeof zoned === 'string' && ZONED.test(zoned.trim()) ? toDate(zoned) : undefined;
        if (precise && Math.abs(Date.parse(precise) - Date.parse(found)) < 86_400_000) return precise;
      }
    }
    return found;
  }
  return undefined;
}
