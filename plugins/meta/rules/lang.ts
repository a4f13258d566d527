import { byAttr, byJsonLd, byMeta, clean, type Rule } from '../helpers.ts';

/** Ordered rules for the language. */
export const lang: Rule[] = [
  byMeta('og:locale'), byMeta('inLanguage'), byJsonLd('inLanguage'), byAttr('html', 'lang'),
  byAttr('meta[http-equiv="content-language" i]', 'content'), byMeta('language'), byMeta('dc.language'),
];

/** Accepts a language tag and returns its ISO 639-1 primary subtag. */
export function toLang(value: unknown): string | undefined {
  const text = clean(typeof value === 'object' && value ? (value as { name?: unknown }).name : value)?.toLowerCase();
  if (!text) return undefined;
  const primary = text.split(/[-_,;\s]/)[0]!;
  return /^[a-z]{2}$/.test(primary) ? primary : undefined;
}
