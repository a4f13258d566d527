import { bool, device, duration, list, num, oneOf, options, text, z } from './schema.ts';

/** The viewport fields a request (`viewport.*`) or an output (`screenshot.width`...) may set. */
export const viewportFields = {
  width: num({ min: 1, max: 8000, int: true }).optional().describe('Viewport width in CSS pixels (1 to 8000).'),
  height: num({ min: 1, max: 8000, int: true }).optional().describe('Viewport height in CSS pixels (1 to 8000).'),
  deviceScaleFactor: num({ min: 0.1, max: 5 })
    .optional()
    .describe('Device pixels per CSS pixel (0.1 to 5): 2 takes a retina capture.'),
  isMobile: bool().optional().describe('Emulate a mobile browser: the meta viewport tag is honoured.'),
  hasTouch: bool().optional().describe('Emulate a touch screen.'),
  isLandscape: bool().optional().describe('Emulate landscape orientation.'),
};

/**
 * The browser page's query options: how it is emulated, waited for and acted on before the outputs are taken.
 * Read by engine/request/render.ts into a PageSetup, which page.ts applies.
 */
export const pageOptions = {
  waitUntil: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.split(',') : v),
      z.array(oneOf(['load', 'domcontentloaded', 'networkidle', 'networkidle0', 'networkidle2', 'commit', 'auto'])),
    )
    .optional(),
  device: device().optional(),
  viewport: options(viewportFields).optional(),
  colorScheme: oneOf(['light', 'dark', 'no-preference']).optional(),
  mediaType: oneOf(['screen', 'print']).optional(),
  animations: bool().optional(),
  javascript: bool().default(true),
  adblock: bool().optional(),
  click: list().optional(),
  scroll: text().optional(),
  scripts: list().optional(),
  styles: list().optional(),
  modules: list().optional(),
  waitForSelector: text().optional(),
  waitForTimeout: duration({ max: 20_000 }).optional(),
  // Retries of the page after a browser crash (engine/browser/browsers.ts).
  retry: num({ min: 0, max: 5, int: true }).optional(),
};
