import { Tinypool } from 'tinypool';
import { definePlugin, options, type Context, type Media } from '../../engine/index.ts';
import { pickColors } from './contrast.ts';

/** Media types sharp can decode (ICO cannot, so an .ico logo gets no palette). */
const DECODABLE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'tiff', 'bmp']);

/** Palettes are computed on worker threads (decoding and quantizing are CPU work); one pool per engine. */
function createWorkers(): Tinypool {
  return new Tinypool({
    filename: new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: 2,
    idleTimeout: 30_000,
  });
}

function isImageMedia(value: unknown): value is Media {
  if (!value || typeof value !== 'object') return false;
  const m = value as Partial<Media>;
  return typeof m.url === 'string' && (m.type === undefined || DECODABLE.has(m.type)) && m.duration === undefined;
}

async function bytesOf(ctx: Context, media: Media): Promise<Buffer | undefined> {
  return (await ctx.readAsset(media.url)) ?? ctx.fetchBytes(media.url, 'image');
}

/**
 * Captures of the page itself: what is transparent there (a page that sets no background, captured with
 * `omitBackground`) is the browser's white to a reader, so it counts as white in the palette.
 */
const PAGE_CAPTURES = new Set(['screenshot']);

/** The `palette`, `background_color`, `color` and `alternative_color` of one image Media, or undefined. */
async function colours(ctx: Context, media: Media, field: string): Promise<Record<string, unknown> | undefined> {
  const bytes = await bytesOf(ctx, media);
  if (!bytes) return undefined;
  let palette: string[];
  try {
    palette = await (ctx.state as Tinypool).run(
      { bytes, background: PAGE_CAPTURES.has(field) ? '#ffffff' : undefined },
      { signal: ctx.signal },
    );
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.warn(`palette of ${media.url} failed: ${(err as Error).message}`);
    return undefined;
  }
  return palette.length ? { palette, ...pickColors(palette) } : undefined;
}

/** Colour information for every image Media of the payload (image, logo, screenshot, and image-typed data fields). */
export default definePlugin({
  name: 'palette',
  description:
    'Dominant colours of every image in the payload, with background and text colours chosen by WCAG contrast.',
  needs: 'http',
  enriches: true,
  params: options({}),
  init: createWorkers,
  async run(ctx) {
    const images = Object.entries(ctx.data).filter(([, value]) => isImageMedia(value)) as [string, Media][];
    const found = await Promise.all(
      images.map(async ([field, media]) => [field, await colours(ctx, media, field)] as const),
    );
    // Amendments by field, merged by the engine into copies of the Media objects.
    return Object.fromEntries(found.filter(([, c]) => c));
  },
  close: (pool: Tinypool) => pool.destroy(),
});
