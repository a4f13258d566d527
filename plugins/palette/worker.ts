// Runs in a tinypool worker thread: decodes an image to a small copy with sharp and quantizes its colours.
import sharp from 'sharp';
// @ts-expect-error: quantize ships no type declarations.
import quantize from 'quantize';

/** Side of the decoded copy: enough pixels for a stable palette, few enough to quantize in a millisecond or two. */
const SIDE = 96;
const MAX_COLORS = 6;

const hex = (rgb: readonly number[]): string => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** The image's colours, most dominant first, as hex; empty when it has no opaque pixel. */
export default async function paletteOf(bytes: Uint8Array): Promise<string[]> {
  const { data, info } = await sharp(bytes, { failOn: 'none', animated: false, limitInputPixels: 100_000_000 })
    .resize(SIDE, SIDE, { fit: 'inside', withoutEnlargement: true, kernel: 'nearest' })
    .ensureAlpha().raw().toBuffer({ resolveWithObject: true });
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
  if (counts.size <= MAX_COLORS) return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
  const map = quantize(pixels, MAX_COLORS) as { vboxes: { vbox: { count(): number }; color: number[] }[] } | false;
  if (!map) return [];
  // Boxes ranked by how many pixels they hold (MMCQ's own order is by volume too, not by dominance).
  const boxes = map.vboxes.map((b) => ({ color: hex(b.color), count: b.vbox.count() }));
  boxes.sort((a, b) => b.count - a.count || a.color.localeCompare(b.color));
  return [...new Set(boxes.map((b) => b.color))];
}
