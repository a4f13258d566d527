// The page's content requests in flight, counted so that a capture can wait until none are left (page.ts).
import type { Page, Request } from 'playwright-core';

/**
 * What the page's content waits on: a favicon (type "other"), media streams, beacons, manifests and sockets are
 * not, and a page is not kept waiting for them (a favicon fetched after `load` cost every capture ~60 ms).
 */
const CONTENT_TYPES = new Set(['document', 'stylesheet', 'image', 'font', 'script', 'xhr', 'fetch']);

/**
 * Counts the page's content requests in flight; the returned function waits (up to a cap) until none are left,
 * plus a moment for the script that consumes the last data answer. A page with nothing in flight waits not at all.
 */
export function trackRequests(page: Page): { settle(capMs: number): Promise<void>; stop(): void } {
  let inflight = 0;
  let lastData = false;
  let changed: (() => void) | undefined;
  const counted = new WeakSet<Request>();
  const start = (req: Request) => {
    if (!CONTENT_TYPES.has(req.resourceType())) return;
    counted.add(req);
    inflight++;
  };
  page.on('request', start);
  const end = (req: Request) => {
    if (!counted.has(req)) return;
    counted.delete(req);
    inflight = Math.max(0, inflight - 1);
    const type = req.resourceType();
    lastData = type === 'xhr' || type === 'fetch';
    changed?.();
  };
  page.on('requestfinished', end);
  page.on('requestfailed', end);
  const stop = () => {
    page.off('request', start);
    page.off('requestfinished', end);
    page.off('requestfailed', end);
  };
  const settle = async (capMs: number) => {
    // A round trip to the page runs what it had queued, and one to the browser process then delivers the requests
    // it intercepted meanwhile (a fetch started just before load was otherwise missed ~1 time in 100, and a
    // banner shown by its answer was not waited for).
    await page.evaluate('0').catch(() => undefined);
    await page
      .context()
      .cookies()
      .catch(() => undefined);
    const deadline = Date.now() + capMs;
    let waited = false;
    while (inflight > 0 && Date.now() < deadline) {
      waited = true;
      await new Promise<void>((resolve) => {
        changed = resolve;
        setTimeout(resolve, Math.max(0, Math.min(100, deadline - Date.now())));
      });
      changed = undefined;
    }
    if (waited && lastData) await page.waitForTimeout(50);
  };
  return { settle, stop };
}
