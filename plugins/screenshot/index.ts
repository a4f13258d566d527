import sharp from '../shared/sharp.ts';
import os from 'node:os';
import path from 'node:path';
import { captureType, encode, MIME, qualityOf } from './encode.ts';
import { DEFAULT_VIEWPORT, captureSettled, definePlugin, RefractError } from '../../engine/index.ts';
import { recordClip } from './animated.ts';
import { compose } from './overlay.ts';
import { codePage } from './code.ts';

import { params, framed, transparent } from './options.ts';
import { loadLazyContent, isBlank } from './capture.ts';
import { shareScreenshot } from '../shared/screen.ts';

/** Captures the rendered page (viewport, full page or one element) as PNG, JPEG, WebP or AVIF and stores it. */
export default definePlugin({
  name: 'screenshot',
  description: 'A PNG, JPEG, WebP or AVIF capture of the rendered page, the whole page, or one element.',
  needs: 'browser',
  params,
  shorthand: (device) => ({ device }),
  // A video recording ends with its page: no other browser output can follow it in the same request.
  closesPage: (o) => !!o.animated,
  page: (o) => ({
    ...(o.device ? { device: o.device } : {}),
    viewport: Object.fromEntries(
      Object.entries({
        width: o.width,
        height: o.height,
        deviceScaleFactor: o.deviceScaleFactor,
        isMobile: o.isMobile,
        hasTouch: o.hasTouch,
        isLandscape: o.isLandscape,
      }).filter(([, v]) => v !== undefined),
    ),
    ...(o.waitUntil ? { waitUntil: o.waitUntil } : {}),
    ...(o.waitFor ? { waitForTimeout: o.waitFor } : {}),
    // Pages that took transparent captures serve only transparent ones again: Chromium could leave a reused
    // page's next document transparent after one (a full-page capture, then an element one).
    transparent: transparent(o),
    ...(o.animated
      ? {
          recordVideo: {
            dir: path.join(os.tmpdir(), 'refract-video'),
            size: { width: o.width ?? DEFAULT_VIEWPORT.width, height: o.height ?? DEFAULT_VIEWPORT.height },
          },
        }
      : {}),
  }),
  async run({ page, pageOpenedAt, store, fetchBytes, response, options, shared }, o) {
    const fetchImage = (url: string) => fetchBytes(url, 'image');
    if (!page) throw new Error('screenshot needs a browser page');
    // A text target (JSON, XML, code) is shown highlighted with `codeScheme` rather than as the browser's raw view.
    if (response.kind === 'text')
      await page.setContent(codePage(response.text, response.contentType, o.codeScheme), { waitUntil: 'load' });
    if (o.animated) {
      const { bytes, facts } = await recordClip(
        page,
        pageOpenedAt ?? performance.now(),
        o.animated.duration,
        o.animated.fps,
      );
      return { ...(await store(bytes, 'video/mp4')), ...facts };
    }
    // Captures are deterministic (animations stopped) unless the request asks for `animations=true`.
    const animations = options.animations === true ? ('allow' as const) : ('disabled' as const);
    const shot = {
      type: captureType(o),
      quality: captureType(o) === 'jpeg' ? qualityOf(o) : undefined,
      omitBackground: transparent(o),
      animations,
    };
    let capture: () => Promise<Buffer>;
    if (o.element) {
      const target = page.locator(o.element).first();
      await target.waitFor({ state: 'visible', timeout: 5000 }).catch((err: Error) => {
        throw new RefractError(
          'EINVALQUERY',
          `Invalid \`screenshot.element\`: no visible element matches "${o.element}"`,
          { cause: err, data: { param: 'screenshot.element' } },
        );
      });
      capture = () => captureSettled(page, () => target.screenshot(shot));
    } else {
      if (o.fullPage) await loadLazyContent(page);
      capture = () => captureSettled(page, () => page.screenshot({ ...shot, fullPage: o.fullPage }));
    }
    let image = await capture();
    if (await isBlank(image)) {
      // Captured before the page painted: let it settle once and capture again.
      await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => undefined);
      image = await capture();
    }
    let from = captureType(o);
    if (framed(o) && o.overlay) {
      const bg = o.overlay.background?.trim();
      let bgImage: Buffer | undefined;
      if (bg && /^https?:\/\//i.test(bg)) {
        const outcome = await fetchImage(bg);
        if (!outcome)
          throw new RefractError(
            'EINVALOVERLAYBG',
            `Invalid \`screenshot.overlay.background\`: the image ${bg} could not be fetched`,
            { data: { param: 'screenshot.overlay.background' } },
          );
        bgImage = outcome;
      }
      image = await compose(image, o.overlay, bgImage);
      from = 'png';
    }
    image = await encode(image, from, o);
    const { width, height } = await sharp(image).metadata();
    const media = await store(image, MIME[o.type]);
    shareScreenshot({ shared }, image);
    return { ...media, width, height };
  },
});
