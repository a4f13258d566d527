// A date as written, read strictly: machine forms (ISO 8601, RFC 2822, epoch times) and text written for people in
// the page's language (chrono), only when day, month and year are all stated; answered in the zone it was written in.
import * as chrono from 'chrono-node';
import { clean } from '../page/helpers.ts';
import { ARABIC_SCRIPT, inLatin } from './date-arabic.ts';

const ISO_DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MACHINE_DATE = /^\d{4}-\d{2}-\d{2}[T ]\d|^(mon|tue|wed|thu|fri|sat|sun)[a-z]*, \d{1,2} [a-z]{3} \d{4} \d/i;
/** A machine date and time at the start of a text, with its zone when stated. */
const MACHINE_LEAD =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.:]\d+)?)?(?:\s?(?:[zZ]|[+-]\d{2}:?\d{2}))?)?(?=\s)/;
const COLON_MS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}):(\d{3})(?=[zZ+-]|$)/;

/** Words of a date relative to the moment of reading, which is never when the page was written. */
const RELATIVE = /\b(ago|today|yesterday|tomorrow|just now)\b/i;

/** chrono's parsers by language (`en-gb`: English written day first); English reads first where the page's language has none. */
const PARSERS: Record<string, chrono.Chrono> = {
  en: chrono.strict,
  'en-gb': chrono.en.GB,
  de: chrono.de.strict,
  fr: chrono.fr.strict,
  es: chrono.es.strict,
  pt: chrono.pt.strict,
  it: chrono.it.strict,
  nl: chrono.nl.strict,
  sv: chrono.sv.strict,
  fi: chrono.fi.strict,
  ru: chrono.ru.strict,
  uk: chrono.uk.strict,
  ja: chrono.ja.strict,
};
const FALLBACK = ['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'ru', 'uk'];
/** A date written with dots, day first, as every language that writes it so reads it (`12.03.2020`, `5.1.19`). */
const DOTTED = /(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{4}|\d{2})(?![\d.])/;

/**
 * Languages written in one time zone only (minutes from UTC, no daylight saving): a time their pages write without a
 * zone is a time there. Japanese (Japan), Korean (South Korea), Chinese (China, Taiwan, Hong Kong, Singapore: +08:00).
 */
const ZONE_OF_LANGUAGE: Record<string, number> = { ja: 9 * 60, ko: 9 * 60, zh: 8 * 60 };

/** A moment read from text: its instant, and the zone it was written in when the language tells (minutes). */
interface Read {
  ms: number;
  offset?: number;
}

/**
 * Reads a date written for people (`12 Jan, 2016, 10.34PM IST`, `12. März 2020`, `3 janvier 2019`, `12.03.2020`);
 * only when day, month and year are all stated. The page's language is read first, then the commonest others.
 */
function fromText(text: string, lang?: string): Read | undefined {
  if (RELATIVE.test(text)) return undefined;
  const head = ARABIC_SCRIPT.test(text) ? inLatin(text.slice(0, 200)) : text.slice(0, 200);
  // The first date written wins: one with dots (read here), or one chrono reads before it.
  let dotted: { index: number; ms: number } | undefined;
  const found = DOTTED.exec(head);
  if (found) {
    const [day, month, y] = [Number(found[1]), Number(found[2]), Number(found[3])];
    const year = y < 100 ? 2000 + y : y;
    if (day >= 1 && day <= 31 && month >= 1 && month <= 12)
      dotted = { index: found.index, ms: Date.UTC(year, month - 1, day) };
  }
  const order = lang && PARSERS[lang] ? [lang, ...FALLBACK.filter((l) => l !== lang)] : FALLBACK;
  for (const code of order) {
    // A span of time from now (`within 2 days`, `in 7 days`: chrono's relative dates) is never the page's date.
    const written = PARSERS[code]!.parse(dotted ? head.slice(0, dotted.index) : head).find(
      (r) => !r.tags().has('result/relativeDate'),
    );
    if (!written) continue;
    const { start } = written;
    if (!start.isCertain('day') || !start.isCertain('month') || !start.isCertain('year')) continue;
    // A time of day without a zone, on a page whose language is written in one zone: a time in that zone.
    const offset = ZONE_OF_LANGUAGE[lang?.slice(0, 2) ?? ''];
    if (offset !== undefined && start.isCertain('hour') && !start.isCertain('timezoneOffset')) {
      const [y, mo, d, h, mi, sec] = (['year', 'month', 'day', 'hour', 'minute', 'second'] as const).map(
        (unit) => start.get(unit) ?? 0,
      );
      return { ms: Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!) - offset * 60_000, offset };
    }
    return { ms: start.date().getTime() };
  }
  return dotted ? { ms: dotted.ms } : undefined;
}

/** A year as dates write it. */
const YEAR = /(?<!\d)(?:19|20)\d\d(?!\d)/;

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
  // Milliseconds written after a colon (`2022-01-10T22:06:08:684Z`, a CMS's slip) are read as the fraction they are.
  else if (MACHINE_DATE.test(text)) {
    ms = Date.parse(text.replace(COLON_MS, '$1.$2'));
    // A machine date with words after it (`2019-11-10 13:28:18 by Mats`, a wiki's last edit): the date as written.
    const lead = Number.isNaN(ms) ? MACHINE_LEAD.exec(text)?.[0] : undefined;
    if (lead && lead !== text) return toDate(lead, lang);
  } else {
    const read = fromText(text, lang);
    if (read?.offset !== undefined) return plausible(read.ms) ? atOffset(read.ms, read.offset) : undefined;
    // The engine's own reading last, only of a text that writes a year: it reads a word with a figure as a day of
    // 2001 (`Marianne1`, a login, is 1 March 2001).
    ms = read?.ms ?? (YEAR.test(text) ? Date.parse(text.replace(/\s+at\s+/i, ' ')) : Number.NaN);
  }
  if (!plausible(ms)) return undefined;
  return inOwnZone(ms, text);
}

/** An instant a page could be dated by: 1990 to next year. */
function plausible(ms: number): boolean {
  if (!Number.isFinite(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= 1990 && year <= new Date().getUTCFullYear() + 1;
}

/** The instant written as the local time of a zone `minutes` from UTC (`…T14:30:00.000+09:00`). */
export function atOffset(ms: number, minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  const mm = String(Math.abs(minutes) % 60).padStart(2, '0');
  return `${new Date(ms + minutes * 60_000).toISOString().slice(0, -1)}${sign}${hh}:${mm}`;
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
  return atOffset(ms, minutes);
}
