// The page's content requests in flight, counted so that a capture can wait until none are left (page.ts).
import type { Page, Request } from 'playwright-core';
import pTimeout from 'p-timeout';

/**
 * What the page's content waits on: a favicon (type "other"), media streams, beacons, manifests and sockets are
 * not, and a page is not kept waiting for them (a favicon fetched after `load` cost every capture ~60 ms).
 */
const CONTENT_TYPES = new Set(['document', 'stylesheet', 'image', 'font', 'script', 'xhr', 'fetch']);

/** In the page: resolves once its thread is idle (its queued tasks have run), or after 150 ms of a busy thread. */
const IDLE = 'new Promise((resolve) => requestIdleCallback(resolve, { timeout: 150 }))';
/** How long the idle wait may take (a page whose thread a script holds never answers). */
const IDLE_CAP_MS = 300;

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
    while (inflight > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        changed = resolve;
        setTimeout(resolve, Math.max(0, Math.min(100, deadline - Date.now())));
      });
      changed = undefined;
    }
    // The script that consumes the last data answer runs before the page is looked at (a consent manager shows its
    // banner once its config has come): the page is waited for until its thread is idle. A fixed 50 ms after a wait
    // was too short on a busy machine (a banner was missed in a loaded CI run), and a request that ended before the
    // wait began was not waited for at all.
    if (lastData)
      await pTimeout(
        page.evaluate(IDLE).catch(() => undefined),
        { milliseconds: IDLE_CAP_MS, message: false },
      );
  };
  return { settle, stop };
}
