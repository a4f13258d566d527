// Runs in a tinypool worker thread: decodes an image to a small copy with sharp and quantizes its colours.
import sharp from '../shared/sharp.ts';
// @ts-expect-error: quantize ships no type declarations.
import quantize from 'quantize';

/** Side of the decoded copy: enough pixels for a stable palette, few enough to quantize in a millisecond or two. */
const SIDE = 96;
const MAX_COLORS = 6;

const hex = (rgb: readonly number[]): string =>
  `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/**
 * The image's colours, most dominant first, as hex; empty when it has no opaque pixel. With `background`, transparent
 * pixels are seen over that colour (a page captured without its default background is white to whoever looks at it);
 * without, they are no colour of the image (a logo's surroundings).
 */
export default async function paletteOf(
  input: Uint8Array | { bytes: Uint8Array; background?: string },
): Promise<string[]> {
  const { bytes, background } = input instanceof Uint8Array ? { bytes: input, background: undefined } : input;
  let image = sharp(bytes, { failOn: 'none', animated: false, limitInputPixels: 100_000_000 }).resize(SIDE, SIDE, {
    fit: 'inside',
    withoutEnlargement: true,
    kernel: 'nearest',
  });
  if (background) image = image.flatten({ background });
  const { data, info } = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixels: [number, number, number][] = [];
  const counts = new Map<string, number>();
  for (let i = 0; i < data.length; i += info.channels) {
    if (data[i + 3]! < 125) continue; // transparent pixels are not colours of the image
    const px: [number, number, number] = [data[i]!, data[i + 1]!, data[i + 2]!];
    pixels.push(px);
    const key = hex(px);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (!pixels.length) return [];
  // Few distinct colours (a logo, a flat screenshot): exact colours by frequency, no quantization error.
  if (counts.size <= MAX_COLORS)
    return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  const map = quantize(pixels, MAX_COLORS) as { map(px: number[]): number[] } | false;
  if (!map) return [];
  // Each box is named by its commonest exact colour, not its average: a page's white stays #ffffff, not the grey that
  // averaging it with the anti-aliased edges of its text gives. Boxes are ranked by how many pixels they hold.
  const boxes = new Map<string, { count: number; top: string; topCount: number }>();
  for (const [colour, n] of counts) {
    const box = hex(map.map([1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16))));
    const b = boxes.get(box) ?? { count: 0, top: colour, topCount: 0 };
    b.count += n;
    if (n > b.topCount || (n === b.topCount && colour < b.top)) {
      b.top = colour;
      b.topCount = n;
    }
    boxes.set(box, b);
  }
  const ranked = [...boxes.values()].sort((a, b) => b.count - a.count || a.top.localeCompare(b.top));
  return [...new Set(ranked.map((b) => b.top))];
}
