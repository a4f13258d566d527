// The language (docs/metadata.md); its normalisation is plugins/shared/normalize/lang.ts's.
import { byAttr, byJsonLd, byMeta, type Rule } from '../../shared/page/helpers.ts';

/** Ordered rules for the language (docs/metadata.md). */
export const lang: Rule[] = [
  byMeta('og:locale'),
  byMeta('inLanguage'),
  byJsonLd('inLanguage'),
  byAttr('html', 'lang'),
  byAttr('html', 'xml:lang'),
  byAttr('meta[http-equiv="content-language" i]', 'content'),
  byMeta('language'),
  byMeta('dc.language'),
];
