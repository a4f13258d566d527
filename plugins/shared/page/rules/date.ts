import * as chrono from 'chrono-node';
import { byAttr, byJsonLd, byMeta, byMetaLike, byText, clean, firstOf, type Doc, type Rule } from '../helpers.ts';
import { dateInText } from './date-text.ts';
import { localStatement } from './date-zone.ts';

/** Ordered rules for the date (docs/metadata.md): "published", then generic rules; "modified" comes last (below). */
export const date: Rule[] = [
  byJsonLd('datePublished'), byJsonLd('dateCreated'), byJsonLd('uploadDate'), byMetaLike('published_time'), byMetaLike('release_date'),
  byAttr('[itemprop="datepublished" i]', 'content'), byAttr('[itemprop*="datepublished" i]', 'title'), byText('[class*="publish" i]'),
  byMeta('date'), byMeta('dc.date'), byMeta('dc.date.issued'), byMeta('dc.date.created'), byMeta('dcterms.date'), byMeta('dcterms.created'),
  byMeta('pubdate'), byMeta('publishdate'), byMeta('publish-date'), byMeta('sailthru.date'), byMeta('parsely-pub-date'),
  byAttr('[itemprop*="date" i]', 'content'), byAttr('[itemprop*="date" i]', 'title'), byAttr('time[itemprop*="date" i]', 'datetime'), byAttr('time[datetime]', 'datetime'),
  byText('[class*="byline" i] time'), byText('[class*="byline" i]'), byText('[class*="dateline" i]'), byText('[id*="date" i]'), byText('[class*="date" i]'),
  byText('[id*="publish" i]'), byText('[class*="post-meta" i]'), byText('[class*="time" i]'),
];
/** Dates of the last change: a page's date only when it shows no other. */
const modified: Rule[] = [
  byJsonLd('dateModified'), byMetaLike('modified_time'), byMetaLike('updated_time'), byAttr('[itemprop*="datemodified" i]', 'content'),
];

const ISO_DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MACHINE_DATE = /^\d{4}-\d{2}-\d{2}[T ]\d|^(mon|tue|wed|thu|fri|sat|sun)[a-z]*, \d{1,2} [a-z]{3} \d{4} \d/i;

/** Words of a date relative to the moment of reading, which is never when the page was written. */
const RELATIVE = /\b(ago|today|yesterday|tomorrow|just now)\b/i;

/** chrono's parsers by language (`en-gb`: English written day first); English reads first where the page's language has none. */
const PARSERS: Record<string, chrono.Chrono> = {
  en: chrono.strict, 'en-gb': chrono.en.GB, de: chrono.de.strict, fr: chrono.fr.strict, es: chrono.es.strict, pt: chrono.pt.strict, it: chrono.it.strict,
  nl: chrono.nl.strict, sv: chrono.sv.strict, fi: chrono.fi.strict, ru: chrono.ru.strict, uk: chrono.uk.strict, ja: chrono.ja.strict,
};
const FALLBACK = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'ru', 'uk'];
/** A date written with dots, day first, as every language that writes it so reads it (`12.03.2020`, `5.1.19`). */
const DOTTED = /(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})(?![\d.])/;

/**
 * Reads a date written for people (`12 Jan, 2016, 10.34PM IST`, `12. März 2020`, `3 janvier 2019`, `12.03.2020`);
 * only when day, month and year are all stated. The page's language is read first, then the commonest others.
 */
function fromText(text: string, lang?: string): number | undefined {
  if (RELATIVE.test(text)) return undefined;
  const head = text.slice(0, 200);
  // The first date written wins: one with dots (read here), or one chrono reads before it.
  let dotted: { index: number; ms: number } | undefined;
  const found = DOTTED.exec(head);
  if (found) {
    const [day, month, y] = [Number(found[1]), Number(found[2]), Number(found[3])];
    const year = y < 100 ? 2000 + y : y;
    if (day >= 1 && day <= 31 && month >= 1 && month <= 12) dotted = { index: found.index, ms: Date.UTC(year, month - 1, day) };
  }
  const order = lang && PARSERS[lang] ? [lang, ...FALLBACK.filter((l) => l !== lang)] : FALLBACK;
  for (const code of order) {
    const written = PARSERS[code]!.parse(dotted ? head.slice(0, dotted.index) : head)[0];
    if (!written) continue;
    const { start } = written;
    if (!start.isCertain('day') || !start.isCertain('month') || !start.isCertain('year')) continue;
    return start.date().getTime();
  }
  return dotted?.ms;
}

/** Parses a date strictly and returns ISO 8601, or undefined when the text is not a plausible date. */
export function toDate(value: unknown, lang?: string): string | undefined {
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
  else ms = fromText(text, lang) ?? Date.parse(text.replace(/\s+at\s+/i, ' '));
  if (!Number.isFinite(ms)) return undefined;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1990 || year > new Date().getUTCFullYear() + 1) return undefined;
  return inOwnZone(ms, text);
}

/** A stated offset from UTC at the end of a written time (`+02:00`, `-0800`, `Z`). */
const OFFSET = /T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([+-])(\d{2}):?(\d{2})$/;

/**
 * The instant in ISO 8601, in the zone the page wrote it in when it stated one (`2023-11-08T19:00:00-08:00` stays
 * on the 8th, the day its readers saw, where UTC says the 9th); else in UTC. The instant is the same either way.
 */
function inOwnZone(ms: number, text: string): string {
  const zone = OFFSET.exec(text);
  if (!zone) return new Date(ms).toISOString();
  const minutes = (zone[1] === '-' ? -1 : 1) * (Number(zone[2]) * 60 + Number(zone[3]));
  if (minutes === 0 || Math.abs(minutes) > 14 * 60) return new Date(ms).toISOString();
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, -1)}${zone[1]}${zone[2]}:${zone[3]}`;
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
export function pageDate(doc: Doc, lang?: string): string | undefined {
  for (const rule of date) {
    let raw: unknown;
    try { raw = rule(doc); } catch { continue; }
    const found = toDate(raw, lang);
    if (!found) continue;
    if (typeof raw === 'string' && !ZONED.test(raw.trim())) {
      for (const rule of STRUCTURED) {
        const zoned = rule(doc);
        const precise = typeof zoned === 'string' && ZONED.test(zoned.trim()) ? toDate(zoned) : undefined;
        if (precise && Math.abs(Date.parse(precise) - Date.parse(found)) < 86_400_000) return precise;
      }
    }
    return localStatement(doc, raw, found, toDate) ?? found;
  }
  // A date the page shows only in its text, else the date of its last change.
  return dateInText(doc, (text) => toDate(text, lang)) ?? firstOf(doc, modified, (v) => toDate(v, lang));
}
