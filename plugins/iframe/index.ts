import { load } from 'cheerio';
import { definePlugin, options, num, type Context } from '../../engine/index.ts';
import { findEndpoint, loadProviders, type Endpoint } from './providers.ts';

/** What `iframe` returns: markup ready to embed, and the scripts it needs (their attributes), to load once. */
export interface Embed {
  html: string;
  scripts: Record<string, string | boolean>[];
}

interface OEmbed {
  type?: string;
  html?: string;
  url?: string;
  width?: number | string;
  height?: number | string;
  title?: string;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page's own oEmbed discovery link (JSON preferred over XML). */
function discovered(ctx: Context): { href: string; xml: boolean } | undefined {
  const { $ } = ctx;
  for (const [type, xml] of [
    ['application/json+oembed', false],
    ['text/xml+oembed', true],
    ['application/xml+oembed', true],
  ] as const) {
    const href = $(`link[rel~="alternate" i][type="${type}" i][href]`).first().attr('href');
    if (href) {
      try {
        return { href: new URL(href, ctx.url).href, xml };
      } catch {
        /* an unusable link is no link */
      }
    }
  }
  return undefined;
}

function withSize(endpoint: string, sizes: { maxWidth?: number; maxHeight?: number }): string {
  const url = new URL(endpoint);
  if (sizes.maxWidth) url.searchParams.set('maxwidth', String(sizes.maxWidth));
  if (sizes.maxHeight) url.searchParams.set('maxheight', String(sizes.maxHeight));
  return url.href;
}

function parse(bytes: Buffer, xml: boolean): OEmbed | undefined {
  if (!xml) {
    try {
      const value: unknown = JSON.parse(bytes.toString('utf8'));
      return value && typeof value === 'object' ? (value as OEmbed) : undefined;
    } catch {
      return undefined;
    }
  }
  const $ = load(bytes.toString('utf8'), { xml: true });
  const field = (name: string) => $(`oembed > ${name}`).first().text() || undefined;
  return {
    type: field('type'),
    html: field('html'),
    url: field('url'),
    width: field('width'),
    height: field('height'),
    title: field('title'),
  };
}

/** Splits the provider's markup into the HTML to place and the external scripts to load. */
function toEmbed(data: OEmbed): Embed | null {
  let html = data.html?.trim();
  if (!html && data.type === 'photo' && data.url) {
    const size = `${data.width ? ` width="${escapeAttr(String(data.width))}"` : ''}${data.height ? ` height="${escapeAttr(String(data.height))}"` : ''}`;
    html = `<img src="${escapeAttr(data.url)}"${size} alt="${escapeAttr(data.title ?? '')}">`;
  }
  if (!html) return null;
  const $ = load(html, null, false);
  const scripts: Embed['scripts'] = [];
  $('script[src]').each((_, el) => {
    const attrs: Record<string, string | boolean> = {};
    for (const [name, value] of Object.entries(el.attribs)) attrs[name] = value === '' ? true : value;
    scripts.push(attrs);
    $(el).remove();
  });
  return { html: $.html().trim(), scripts };
}

/** Embed markup for the page: from its oEmbed discovery link, else from the known providers list. */
export default definePlugin({
  name: 'iframe',
  description: "Embed HTML and its scripts, from the page's oEmbed discovery link or the known providers list.",
  needs: 'html',
  settings: ['oembedProviders'],
  // The providers list is compiled once per engine, when it starts (a broken operator file fails the start).
  init: (settings) => loadProviders(settings.oembedProviders),
  params: options({
    maxWidth: num({ min: 1, int: true })
      .optional()
      .describe("Largest embed width in pixels, asked of the provider's oEmbed."),
    maxHeight: num({ min: 1, int: true })
      .optional()
      .describe("Largest embed height in pixels, asked of the provider's oEmbed."),
  }),
  async run(ctx, sizes) {
    const link = discovered(ctx);
    const endpoint = link ? undefined : findEndpoint(ctx.url, ctx.state as Endpoint[]);
    const api = link
      ? withSize(link.href, sizes)
      : endpoint
        ? withSize(
            `${endpoint.url}${endpoint.url.includes('?') ? '&' : '?'}url=${encodeURIComponent(ctx.url)}&format=json`,
            sizes,
          )
        : undefined;
    if (!api) return null;
    // The provider's API is fetched through the same SSRF guard as every other URL.
    const bytes = await ctx.fetchBytes(api);
    const data = bytes && parse(bytes, link?.xml ?? false);
    return data ? toEmbed(data) : null;
  },
});
