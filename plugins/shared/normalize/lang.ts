// A language tag as a field holds it (ISO 639-1), and the language dates are read in.
import { iso6393To1 } from 'iso-639-3/iso6393-to-1.js';
import { clean } from '../page/helpers.ts';

/** The two-letter ISO 639-1 codes. */
const ISO6391 = new Set(Object.values(iso6393To1));

/** Countries that write English dates month first (`02/10/2020` is February 10th); the rest of English writes them day first. */
const MONTH_FIRST = new Set(['us', 'ph', 'ca', 'fm', 'mh', 'pw']);

/**
 * The language dates are read in: the ISO 639-1 code, or `en-gb` for English written day first (a page tagged
 * `en-GB`, `en_AU`, `en-IN`); English with no region reads month first.
 */
export function toDateLocale(value: unknown): string | undefined {
  const code = toLang(value);
  if (code !== 'en') return code;
  const region = clean(value)?.toLowerCase().split(/[-_]/)[1]?.slice(0, 2);
  return region && /^[a-z]{2}$/.test(region) && !MONTH_FIRST.has(region) ? 'en-gb' : 'en';
}

/** Accepts a language tag and returns its ISO 639-1 code: `en-GB` → `en`, `eng` → `en`; an unknown code is refused. */
export function toLang(value: unknown): string | undefined {
  const text = clean(typeof value === 'object' && value ? (value as { name?: unknown }).name : value)?.toLowerCase();
  if (!text) return undefined;
  const primary = text.split(/[-_,;\s]/)[0]!;
  if (primary.length === 3) return iso6393To1[primary];
  return ISO6391.has(primary) ? primary : undefined;
}
