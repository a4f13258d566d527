// What a capture needs of the page and of the image: lazy content loaded first, and a blank capture told apart.
import sharp from '../shared/sharp.ts';
import type { Page } from 'playwright-core';

/** Scrolls through the page so lazy content loads before a full-page capture, then returns to the top. */
export async function loadLazyContent(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const step = Math.max(200, window.innerHeight);
    for (let y = 0; y < document.documentElement.scrollHeight && y < 30_000; y += step) {
      window.scrollTo(0, y);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
    window.scrollTo(0, 0);
  });
  await page.waitForLoadState('networkidle', { timeout: 2000 }).catch(() => undefined);
}

// A one-colour capture compresses to a few kilobytes; only such small images are decoded to check.
const BLANK_CANDIDATE_BYTES = 12 * 1024;

/** True when every pixel has the same colour, as a capture taken before the page painted has. */
export async function isBlank(image: Buffer): Promise<boolean> {
  if (image.length > BLANK_CANDIDATE_BYTES) return false;
  const { channels } = await sharp(image).stats();
  return channels.every((c) => c.stdev === 0);
}
