import { absoluteUrl, byAttr, byJsonLd, byMeta, type Doc, type Rule } from '../helpers.ts';

const logoUrl = (v: unknown): unknown => (v && typeof v === 'object' ? (v as { url?: unknown; contentUrl?: unknown }).url ?? (v as { contentUrl?: unknown }).contentUrl : v);

function iconSize(sizes: string | undefined): number {
  const m = /(\d+)x(\d+)/i.exec(sizes ?? '');
  return m ? Number(m[1]) : 0;
}

/** Picks the best icon link: apple-touch-icons and large PNG/SVG icons first, by declared size. */
function bestIcon({ $, url }: Doc): string | undefined {
  const icons: { href: string; score: number }[] = [];
  $('link[rel][href]').each((_, el) => {
    const rel = (el.attribs.rel ?? '').toLowerCase();
    if (!/(^|\s)(icon|apple-touch-icon|apple-touch-icon-precomposed|mask-icon|fluid-icon)(\s|$)/.test(rel)) return;
    if (rel.includes('mask-icon')) return;
    const href = absoluteUrl(el.attribs.href, url);
    if (!href) return;
    const size = iconSize(el.attribs.sizes);
    const type = (el.attribs.type ?? '').toLowerCase();
    let score = size || (rel.includes('apple-touch-icon') ? 180 : 16);
    if (type.includes('svg') || href.endsWith('.svg')) score += 50;
    if (href.endsWith('.ico')) score -= 10;
    icons.push({ href, score });
  });
  icons.sort((a, b) => b.score - a.score);
  return icons[0]?.href;
}

/** Ordered rules for the publisher's logo; the favicon is the last resort. */
export const logo: Rule[] = [
  byMeta('og:logo'), byMeta('itemprop:logo'), byJsonLd('publisher.logo', logoUrl), byJsonLd('logo', logoUrl),
  byAttr('img[itemprop="logo"]', 'src'), byAttr('[itemprop="logo"]', 'content'), bestIcon,
  ({ url }) => new URL('/favicon.ico', url).href,
];

/** Ordered rules for the canonical URL. */
export const canonical: Rule[] = [
  byMeta('og:url'), byMeta('twitter:url'), byAttr('link[rel="canonical" i]', 'href'), byAttr('link[rel="alternate" i][hreflang="x-default" i]', 'href'),
];
