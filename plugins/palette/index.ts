import { Tinypool } from 'tinypool';
import { definePlugin, options, type Context, type Media } from '../../engine/index.ts';
import { pickColors } from './contrast.ts';

/** Media types sharp can decode (ICO cannot, so an .ico logo gets no palette). */
const DECODABLE = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'tiff', 'bmp']);

/** Palettes are computed on worker threads (decoding and quantizing are CPU work); one pool per engine. */
function createWorkers(): Tinypool {
  return new Tinypool({ filename: new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url).href, minThreads: 0, maxThreads: 2, idleTimeout: 30_000 });
}

function isImageMedia(value: unknown): value is Media {
  if (!value || typeof value !== 'object') return false;
  const m = value as Partial<Media>;
  return typeof m.url === 'string' && (m.type === undefined || DECODABLE.has(m.type)) && m.duration === undefined;
}

async function bytesOf(ctx: Context, media: Media): Promise<Buffer | undefined> {
  return (await ctx.readAsset(media.url)) ?? ctx.fetchBytes(media.url, 'image');
}

/** Adds `palette`, `background_color`, `color` and `alternative_color` to one image Media, in place. */
async function decorate(ctx: Context, media: Media): Promise<void> {
  const bytes = await bytesOf(ctx, media);
  if (!bytes) return;
  let palette: string[];
  try {
    palette = await (ctx.state as Tinypool).run(bytes, { signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.warn(`palette of ${media.url} failed: ${(err as Error).message}`);
    return;
  }
  if (!palette.length) return;
  Object.assign(media, { palette, ...pickColors(palette) });
}

/** Colour information for every image Media of the payload (image, logo, screenshot, and image-typed data fields). */
export default definePlugin({
  name: 'palette',
  description: 'Dominant colours of every image in the payload, with background and text colours chosen by WCAG contrast.',
  needs: 'http',
  merge: true,
  params: options({}),
  init: createWorkers,
  async run(ctx) {
    const images = Object.values(ctx.data).filter(isImageMedia);
    await Promise.all(images.map((media) => decorate(ctx, media)));
    // The Media objects are amended in place; the plugin adds no key of its own.
    return {};
  },
  close: (pool: Tinypool) => pool.destroy(),
});
