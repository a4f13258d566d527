import sharp, { type OverlayOptions } from '../shared/sharp.ts';
import { RefractError } from '../../engine/index.ts';

/** How a capture is composed: a background (colour, gradient or image bytes) and an optional browser frame. */
export interface Overlay {
  background?: string;
  browser?: 'light' | 'dark';
}

const PADDING = 0.08;
const BAR = 40;
const GRADIENT = /^linear-gradient\((.*)\)$/i;

async function solid(color: string, width: number, height: number): Promise<Buffer> {
  try {
    return await sharp({ create: { width, height, channels: 4, background: color } })
      .png()
      .toBuffer();
  } catch (err) {
    throw new RefractError(
      'EINVALOVERLAYBG',
      `Invalid \`screenshot.overlay.background\`: "${color}" is not a colour, a linear-gradient() or an image URL`,
      { cause: err, data: { param: 'screenshot.overlay.background' } },
    );
  }
}

/** CSS directions as angles (0deg points up, clockwise). */
const SIDES: Record<string, number> = {
  'to top': 0,
  'to right': 90,
  'to bottom': 180,
  'to left': 270,
  'to top right': 45,
  'to right top': 45,
  'to bottom right': 135,
  'to right bottom': 135,
  'to bottom left': 225,
  'to left bottom': 225,
  'to top left': 315,
  'to left top': 315,
};
const ANGLE = /^(-?\d+(?:\.\d+)?)(deg|turn|rad|grad)$/;
const TO_DEG: Record<string, number> = { deg: 1, turn: 360, rad: 180 / Math.PI, grad: 0.9 };

/** A CSS `linear-gradient()` (angle or `to` side, colour stops with optional positions) as an SVG image. */
function gradientSvg(spec: string, width: number, height: number): string {
  const parts = spec.split(/,(?![^(]*\))/).map((p) => p.trim().replace(/\s+/g, ' '));
  let angle = 180;
  const first = parts[0]!.toLowerCase();
  const m = ANGLE.exec(first);
  if (m) {
    angle = Number.parseFloat(m[1]!) * TO_DEG[m[2]!]!;
    parts.shift();
  } else if (first in SIDES) {
    angle = SIDES[first]!;
    parts.shift();
  }
  if (parts.length < 2)
    throw new RefractError(
      'EINVALOVERLAYBG',
      'Invalid `screenshot.overlay.background`: a linear-gradient needs at least two colours',
      { data: { param: 'screenshot.overlay.background' } },
    );
  const rad = ((angle - 90) * Math.PI) / 180;
  const [x, y] = [Math.cos(rad) / 2, Math.sin(rad) / 2];
  const stops = parts
    .map((part, i) => {
      // A stop is a colour and an optional position (`red 30%`); positions left out are spread evenly.
      const stop = /^(.*?)(?:\s+(-?\d+(?:\.\d+)?)%)?$/.exec(part)!;
      const offset = stop[2] !== undefined ? Number(stop[2]) : (i / (parts.length - 1)) * 100;
      return `<stop offset="${offset}%" stop-color="${stop[1]!.replace(/["<>&]/g, '')}"/>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="${0.5 - x}" y1="${0.5 - y}" x2="${0.5 + x}" y2="${0.5 + y}">${stops}</linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`;
}

function frameSvg(width: number, theme: 'light' | 'dark'): string {
  const bar = theme === 'dark' ? '#2b2b2e' : '#e8e8ea';
  const dots = ['#ff5f57', '#febc2e', '#28c840']
    .map((c, i) => `<circle cx="${20 + i * 20}" cy="${BAR / 2}" r="6" fill="${c}"/>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${BAR}"><rect width="${width}" height="${BAR}" rx="8" fill="${bar}"/><rect y="${BAR / 2}" width="${width}" height="${BAR / 2}" fill="${bar}"/>${dots}</svg>`;
}

/**
 * Composes a capture over a background (a padding of 8% each side) under an optional browser frame; a
 * background that is neither colour, gradient nor image is EINVALOVERLAYBG.
 */
export async function compose(capture: Buffer, overlay: Overlay, backgroundImage?: Buffer): Promise<Buffer> {
  const shot = await sharp(capture).metadata();
  const w = shot.width!;
  const framed = overlay.browser ? BAR : 0;
  const pad = overlay.background ? Math.round(w * PADDING) : 0;
  const width = w + pad * 2;
  const height = shot.height! + framed + pad * 2;
  let base: Buffer;
  const bg = overlay.background?.trim();
  if (backgroundImage) base = await sharp(backgroundImage).resize(width, height, { fit: 'cover' }).png().toBuffer();
  else if (bg && GRADIENT.test(bg))
    base = await sharp(Buffer.from(gradientSvg(GRADIENT.exec(bg)![1]!, width, height)))
      .png()
      .toBuffer();
  else base = await solid(bg ?? 'rgba(0,0,0,0)', width, height);
  const layers: OverlayOptions[] = [];
  if (overlay.browser) layers.push({ input: Buffer.from(frameSvg(w, overlay.browser)), left: pad, top: pad });
  layers.push({ input: capture, left: pad, top: pad + framed });
  return sharp(base).composite(layers).png().toBuffer();
}
