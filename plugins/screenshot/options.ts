// The screenshot's options (`screenshot.type`, `.fullPage`, `.element`, `.overlay`, `.animated`...), checked before any page opens.
import { options, bool, num, oneOf, text, duration, list, device, viewportFields, z } from '../../engine/index.ts';
import { MAX_CLIP_MS } from './animated.ts';
import { schemeProblem, DEFAULT_SCHEME } from './code.ts';

/** A clip's length and frame rate; `screenshot.animated` alone means these defaults. */
const clipOptions = options({
  duration: duration({ min: 500, max: MAX_CLIP_MS }).default(3000),
  fps: num({ min: 1, max: 30, int: true }).default(25),
});

export const params = options({
  type: oneOf(['png', 'jpeg', 'webp', 'avif']).default('png'),
  quality: num({ min: 0, max: 100, int: true }).optional(),
  fullPage: bool().default(false),
  element: text().optional(),
  omitBackground: bool().default(true),
  device: device().optional(),
  ...viewportFields,
  waitFor: duration({ max: 20_000 }).optional(),
  waitUntil: list().optional(),
  codeScheme: text()
    .superRefine((v, ctx) => {
      const problem = schemeProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(DEFAULT_SCHEME),
  overlay: options({ background: text().optional(), browser: oneOf(['light', 'dark']).optional() }).optional(),
  animated: z
    .union([bool(), clipOptions])
    .transform((v) => (v === true ? clipOptions.parse({}) : v || undefined))
    .optional(),
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
