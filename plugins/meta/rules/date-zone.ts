// A page's date in the zone its readers saw it in, when the page states the instant in UTC and also states its
// local time elsewhere (date.ts answers with it).
import { byAttr, byJsonLd, byMetaLike, clean, type Doc } from '../../shared/page/helpers.ts';
import { atOffset } from '../../shared/normalize/date.ts';

/** Written in UTC: `Z` or `+00:00`. */
const IN_UTC = /(?:[zZ]|[+-]00:?00)$/;
/**
 * A UTC time on the hour at 21:00, 22:00 or 23:00, to the second: a date that a system stored as its local midnight
 * one to three hours east of UTC (a person's time of publishing is seldom so round).
 */
const MIDNIGHT_EAST = /T(2[123]):00(?::00(?:\.0+)?)?(?:[zZ]|[+-]00:?00)$/;
/** A local time written without its zone (`2023-11-08 17:49:09`). */
const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?$/;
/** A time written with a zone other than UTC (`2023-11-08T21:11:03-05:00`). */
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?([+-])(\d{2}):?(\d{2})$/;
/** Where pages state their dates for machines, in any zone (the rules of `date` that read markup). */
const STATED = [
  ...['datePublished', 'dateCreated', 'uploadDate'].map((key) => byJsonLd(key)),
  byMetaLike('published_time'),
  byAttr('time[datetime]', 'datetime'),
];

/**
 * A date the page states in UTC (`2023-11-09T01:49:09Z`) while it states local times elsewhere: the same instant
 * as a local time without a zone, whole hours away (`2023-11-08 17:49:09`, UTC-8), or any of its times with a zone
 * of its own (`<time datetime="2023-11-08T21:11:03-05:00">`): answered in that zone, the day its readers saw.
 */
export function localStatement(
  doc: Doc,
  raw: unknown,
  found: string,
  read: (text: string) => string | undefined,
): string | undefined {
  if (typeof raw !== 'string' || !IN_UTC.test(raw.trim())) return undefined;
  const instant = Date.parse(found);
  const midnight = MIDNIGHT_EAST.exec(raw.trim());
  for (const rule of STATED) {
    let other: unknown;
    try {
      other = rule(doc);
    } catch {
      continue;
    }
    for (const text of (Array.isArray(other) ? other : [other]).map(clean)) {
      const minutes = text ? offsetOf(text, instant) : undefined;
      if (minutes === undefined || minutes === 0 || minutes % 15 !== 0 || minutes < -12 * 60 || minutes > 14 * 60)
        continue;
      return read(atOffset(instant, minutes));
    }
  }
  // A day stored as its local midnight east of UTC (`2021-11-04T23:00:00Z`: the 5th in Central Europe).
  if (midnight) return read(atOffset(instant, (24 - Number(midnight[1])) * 60));
  return undefined;
}

/** The offset from UTC, in minutes, that a statement shows the page's readers' zone to be. */
function offsetOf(text: string, instant: number): number | undefined {
  if (NAIVE.test(text)) return Math.round((Date.parse(`${text.replace(' ', 'T')}Z`) - instant) / 60_000);
  const zoned = LOCAL.exec(text);
  if (!zoned) return undefined;
  return (zoned[1] === '-' ? -1 : 1) * (Number(zoned[2]) * 60 + Number(zoned[3]));
}
