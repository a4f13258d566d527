// The screenshot's options (`screenshot.type`, `.fullPage`, `.element`, `.overlay`, `.animated`...), checked before any page opens.
import { options, bool, num, oneOf, text, duration, list, device, viewportFields, z } from '../../engine/index.ts';
import { MAX_CLIP_MS } from './animated.ts';
import { schemeProblem, DEFAULT_SCHEME } from './code.ts';

/** A clip's length and frame rate; `screenshot.animated` alone means these defaults. */
const clipOptions = options({
  duration: duration({ min: 500, max: MAX_CLIP_MS })
    .default(3000)
    .describe('Length of the clip (ms or text, 0.5 s up to the limit).'),
  fps: num({ min: 1, max: 30, int: true }).default(25).describe('Frames per second of the clip (1 to 30).'),
});

export const params = options({
  type: oneOf(['png', 'jpeg', 'webp', 'avif']).default('png').describe('Image format.'),
  quality: num({ min: 0, max: 100, int: true }).optional().describe('Quality 0 to 100 of a jpeg, webp or avif.'),
  fullPage: bool().default(false).describe('Capture the whole scrollable page, not only the viewport.'),
  element: text().optional().describe('A CSS selector: capture only this element.'),
  omitBackground: bool().default(true).describe('Keep a page without a background transparent (png, webp, avif).'),
  device: device().optional().describe('A device preset for the capture (`iPhone 15`, `macbook pro 13`...).'),
  ...viewportFields,
  waitFor: duration({ max: 20_000 }).optional().describe('Wait this long (ms or text, at most 20 s) before capturing.'),
  waitUntil: list().optional().describe('Navigation events to wait for before capturing (load, networkidle...).'),
  codeScheme: text()
    .superRefine((v, ctx) => {
      const problem = schemeProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_SCHEME)
    .describe('Highlighting theme for a JSON, XML or code target (a highlight.js theme name).'),
  overlay: options({
    background: text().optional().describe('A colour, gradient or image URL behind the capture.'),
    browser: oneOf(['light', 'dark']).optional().describe('Frame the capture in a browser window of this theme.'),
  }).optional(),
  animated: z
    .union([bool(), clipOptions])
    .transform((v) => (v === true ? clipOptions.parse({}) : v || undefined))
    .optional()
    .describe('Record a clip of the page (WebM) instead of a still image.'),
}).superRefine((o, ctx) => {
  if (o.quality !== undefined && o.type === 'png')
    ctx.addIssue({
      code: 'custom',
      path: ['quality'],
      message: 'quality applies to jpeg, webp and avif; add screenshot.type=jpeg (or webp, avif)',
    });
});

export type Options = z.output<typeof params>;
/** Whether the capture is composed over an overlay (a background or a browser frame). */
export const framed = (o: Options) => !!(o.overlay && (o.overlay.background || o.overlay.browser));
/** Whether the capture has a transparent background: a PNG, WebP or AVIF asked so, not composed (an overlay's page area is opaque, white unless the page sets its own). */
export const transparent = (o: Options) => o.type !== 'jpeg' && !!o.omitBackground && !framed(o);
