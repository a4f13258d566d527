// A page's date in the zone its readers saw it in, when the page states the instant in UTC and also as a local
// time (date.ts answers with it).
import { byAttr, byJsonLd, byMetaLike, clean, type Doc } from '../helpers.ts';

/** Written in UTC: `Z` or `+00:00`. */
const IN_UTC = /(?:[zZ]|[+-]00:?00)$/;
/** A local time written without its zone (`2023-11-08 17:49:09`). */
const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?$/;
/** Where pages state their date for machines, in any zone (the rules of `date` that read markup). */
const STATED = [...['datePublished', 'dateCreated'].map((key) => byJsonLd(key)), byMetaLike('published_time'), byAttr('time[datetime]', 'datetime')];

/**
 * A date the page states in UTC (`2023-11-09T01:49:09Z`) that it also states as a local time without a zone, whole
 * hours away (`2023-11-08 17:49:09`, UTC-8): the same instant, on the day its readers saw; answered with that offset.
 */
export function localStatement(doc: Doc, raw: unknown, found: string, read: (text: string) => string | undefined): string | undefined {
  if (typeof raw !== 'string' || !IN_UTC.test(raw.trim())) return undefined;
  const instant = Date.parse(found);
  for (const rule of STATED) {
    let other: unknown;
    try { other = rule(doc); } catch { continue; }
    for (const text of (Array.isArray(other) ? other : [other]).map(clean)) {
      if (!text || !NAIVE.test(text)) continue;
      const minutes = Math.round((Date.parse(`${text.replace(' ', 'T')}Z`) - instant) / 60_000);
      if (minutes === 0 || minutes % 15 !== 0 || minutes < -12 * 60 || minutes > 14 * 60) continue;
      const sign = minutes < 0 ? '-' : '+';
      const zone = `${sign}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
      return read(`${text.replace(' ', 'T')}${zone}`);
    }
  }
  return undefined;
}
