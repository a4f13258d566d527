// The rules for a page's representative image (its normalisation, toImage, is media.ts's).
import { byAttr, byAttrs, byJsonLd, byMeta, type Doc, type Rule } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';
import { contentUrl } from '../../shared/normalize/media.ts';
import { poster } from './media.ts';

/** The images a reader sees: not hidden from assistive technology, not inside `<noscript>` (a tracking pixel). */
function visibleImages({ $ }: Doc): string[] {
  const out: string[] = [];
  for (const el of select($, 'img[src]:not([aria-hidden="true"])')) {
    if ($(el).closest('noscript').length) continue;
    const src = $(el).attr('src')?.trim();
    if (src) out.push(src);
    if (out.length === 8) break;
  }
  return out;
}

/** Ordered rules for the representative image (docs/metadata.md). */
export const image: Rule[] = [
  byMeta('og:image:secure_url'),
  byMeta('og:image:url'),
  byMeta('og:image'),
  byMeta('twitter:image:src'),
  byMeta('twitter:image'),
  byMeta('itemprop:image'),
  byJsonLd('image', contentUrl),
  poster,
  byJsonLd('thumbnailUrl'),
  byAttr('link[rel="image_src" i]', 'href'),
  byAttr('[itemprop="image"]', 'content'),
  byAttr('[itemprop="image"]', 'src'),
  byAttrs('article img[src]', 'src'),
  byAttrs('#content img[src]', 'src'),
  byAttr('img[alt*="author" i][src]', 'src'),
  visibleImages,
];
