import { absoluteUrl, byAttr, byJsonLd, byMeta, type Doc, type Rule } from '../../shared/page/helpers.ts';
import { select } from '../../shared/page/select.ts';

const logoUrl = (v: unknown): unknown =>
  v && typeof v === 'object'
    ? ((v as { url?: unknown; contentUrl?: unknown }).url ?? (v as { contentUrl?: unknown }).contentUrl)
    : v;

/** Accepts a structured-data logo only when it declares a roughly square size, as a brand mark (not a masthead) is. */
const squareLogo = (v: unknown): unknown => {
  if (!v || typeof v !== 'object') return undefined;
  const { width, height } = v as { width?: unknown; height?: unknown };
  const w = Number(typeof width === 'object' && width ? (width as { value?: unknown }).value : width);
  const h = Number(typeof height === 'object' && height ? (height as { value?: unknown }).value : height);
  return w > 0 && h > 0 && Math.max(w, h) / Math.min(w, h) <= 1.5 ? logoUrl(v) : undefined;
};

function iconWidth(sizes: string | undefined, href: string): { width: number; square: boolean } {
  const m = /(\d+)\s*[x×]\s*(\d+)/i.exec(sizes ?? '') ?? /(\d+)x(\d+)/i.exec(href);
  if (!m) return { width: 1, square: true };
  return { width: Number(m[2]) || 1, square: m[1] === m[2] };
}

/** How much a format is worth as a logo: raster app icons best, then JPEG, SVG, and ICO last. */
function formatWeight(href: string): number {
  const path = href.toLowerCase().split(/[?#]/)[0]!;
  if (/apple|android/.test(path) || path.endsWith('.png')) return 5;
  if (/\.jpe?g$/.test(path)) return 4;
  if (path.endsWith('.svg')) return 3;
  if (path.endsWith('.ico')) return 2;
  return 1;
}

/**
 * Ranks the icons a page declares (`<link rel*=icon>`, including apple-touch, fluid and mask icons): square
 * icons first, then by width (declared in `sizes` or in the file name) times a format weight.
 */
export function rankIcons({ $, url }: Doc): string[] {
  const icons: { href: string; square: boolean; score: number; order: number }[] = [];
  select($, 'link[rel*="icon" i][href]').forEach((el, order) => {
    const href = absoluteUrl(el.attribs.href, url);
    if (!href || href === url) return;
    const { width, square } = iconWidth(el.attribs.sizes, href);
    icons.push({ href, square, score: width * formatWeight(href), order });
  });
  icons.sort((a, b) => Number(b.square) - Number(a.square) || b.score - a.score || a.order - b.order);
  return [...new Set(icons.map((i) => i.href))];
}

/** Ordered rules for the publisher's logo (docs/metadata.md): declared logos, square structured-data logos, the best icon, then any structured-data logo. */
export const logo: Rule[] = [
  byMeta('og:logo'),
  byAttr('meta[itemprop="logo" i]', 'content'),
  byAttr('img[itemprop="logo" i]', 'src'),
  byAttr('[itemprop="logo" i] img', 'src'),
  byJsonLd('logo', squareLogo),
  byJsonLd('brand.logo', squareLogo),
  byJsonLd('publisher.logo', squareLogo),
  (doc) => rankIcons(doc)[0],
  byJsonLd('logo', logoUrl),
  byJsonLd('brand.logo', logoUrl),
  byJsonLd('publisher.logo', logoUrl),
];

/** Ordered rules for the canonical URL. */
export const canonical: Rule[] = [
  byMeta('og:url'),
  byMeta('twitter:url'),
  byAttr('link[rel="canonical" i]', 'href'),
  byAttr('link[rel="alternate" i][hreflang="x-default" i]', 'href'),
];
