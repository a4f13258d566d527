// Visual changes: two screenshots of a page (as the `changes` step keeps them: PNG, scaled to one width) compared
// pixel by pixel with pixelmatch (anti-aliasing aside), and the pixels that differ drawn in red over a faint copy of
// the new one: the diff image. Screenshots of different heights are compared on the taller one's canvas, where the
// rows only one of them has count as changed.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';

/** How far apart two pixels' colours may be and still be the same (pixelmatch's threshold, 0 to 1). */
const PIXEL_THRESHOLD = 0.1;

/** `img` on a canvas of `width` x `height`, the space it does not cover opaque magenta (a change, against a page). */
function onCanvas(img: PNG, width: number, height: number): Uint8Array {
  if (img.width === width && img.height === height) return img.data;
  const out = new Uint8Array(width * height * 4);
  new Uint32Array(out.buffer).fill(0xffff00ff);
  for (let y = 0; y < img.height; y++)
    out.set(img.data.subarray(y * img.width * 4, (y + 1) * img.width * 4), y * width * 4);
  return out;
}

/** The share of pixels that differ (0 to 1), and the diff image as PNG (none when nothing differs). */
export function compareScreens(before: Buffer, after: Buffer): { share: number; image?: Buffer } {
  const a = PNG.sync.read(before);
  const b = PNG.sync.read(after);
  const width = Math.max(a.width, b.width);
  const height = Math.max(a.height, b.height);
  const diff = new PNG({ width, height });
  const changed = pixelmatch(onCanvas(a, width, height), onCanvas(b, width, height), diff.data, width, height, {
    threshold: PIXEL_THRESHOLD,
    checkerboard: false,
  });
  const share = changed / (width * height);
  return changed ? { share, image: PNG.sync.write(diff) } : { share };
}
