import { iso6393To1 } from 'iso-639-3/iso6393-to-1.js';
import { byAttr, byJsonLd, byMeta, clean, type Rule } from '../helpers.ts';

/** The two-letter ISO 639-1 codes. */
const ISO6391 = new Set(Object.values(iso6393To1));

/** Ordered rules for the language (docs/metadata.md). */
export const lang: Rule[] = [
  byMeta('og:locale'), byMeta('inLanguage'), byJsonLd('inLanguage'), byAttr('html', 'lang'),
  byAttr('meta[http-equiv="content-language" i]', 'content'), byMeta('language'), byMeta('dc.language'),
];

/** Accepts a language tag and returns its ISO 639-1 code: `en-GB` → `en`, `eng` → `en`; an unknown code is refused. */
export function toLang(value: unknown): string | undefined {
  const text = clean(typeof value === 'object' && value ? (value as { name?: unknown }).name : value)?.toLowerCase();
  if (!text) return undefined;
  const primary = text.split(/[-_,;\s]/)[0]!;
  if (primary.length === 3) return iso6393To1[primary];
  return ISO6391.has(primary) ? primary : undefined;
}
