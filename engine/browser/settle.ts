import type { Page, Request, Response } from 'playwright-core';
import pTimeout from 'p-timeout';
import { RefractError } from '../kernel/errors.ts';

/**
 * Pages that do not hold still: ones that navigate themselves (a script redirect, a reload loop), that build
 * their content after load, or that never finish loading. Each helper is bounded; none throws an unexpected error.
 */

/** How long the load of a navigation the page started itself is waited for. */
export const SELF_NAVIGATION_MS = 5000;

/** How long stopping a page's loading may take (a page whose thread a script holds never answers). */
const STOP_WAIT_MS = 1000;

/**
 * Stops a page's loading (`window.stop()`), bounded; false when the page does not answer: an endless script
 * holds its thread (a loop of alerts), and no frame of it can be captured.
 */
export function stopLoading(page: Page): Promise<boolean> {
  const stopped = page.evaluate('window.stop()').then(
    () => true,
    () => true,
  );
  return pTimeout(stopped, { milliseconds: STOP_WAIT_MS, fallback: () => false });
}

/**
 * Waits for a navigation (`going`, whose own timeout is the longer wait) until `shareMs`: by then, a document that
 * arrived but has not loaded is stopped and used as rendered (`'stopped'`; `'held'` when a script holds the page so
 * that it cannot be stopped); a document that has not arrived yet is waited for as long as the navigation itself.
 */
export async function loadedOrShare<T>(
  going: Promise<T>,
  shareMs: number,
  documentThere: () => boolean,
  page: Page,
): Promise<T | 'stopped' | 'held'> {
  const first = await pTimeout(going, { milliseconds: shareMs, fallback: () => 'share' as const });
  if (first !== 'share') return first;
  if (!documentThere()) return going;
  // The navigation settles on its own once stopped (or at its timeout): nobody waits for it any more.
  going.catch(() => undefined);
  return (await stopLoading(page)) ? 'stopped' : 'held';
}

/** How long the DOM must stay unchanged, once built, for a page that builds itself to count as built. */
const BUILT_QUIET_MS = 50;
/**
 * How long a page that does not look built must stay unchanged, with the network idle, to be read as it is: a page
 * whose few words are all it has (a short page with scripts) is not held to the cap for content that never comes.
 */
const IDLE_QUIET_MS = 500;
/** Past its slice, an evaluation that has not answered is not waited for (a page whose timers never fire). */
const SLICE_GRACE_MS = 1000;

/**
 * Waits until a page known to build itself in the browser (an empty framework mount point, a body of scripts)
 * has built its content: its mount point (or its body) has content and the DOM has not changed for a moment,
 * bounded by `capMs`. Content that comes from a timer rather than the network is waited for too; a page built
 * at load costs one quiet moment. A page without a mount point that never looks built (a short page with scripts)
 * is read once the network is idle (Playwright's `networkidle`: no request for 500 ms) and its DOM has not changed
 * for IDLE_QUIET_MS; otherwise at the cap.
 */
export async function untilBuilt(page: Page, capMs: number): Promise<void> {
  const until = Date.now() + capMs;
  let networkIdle = false;
  const idle = page
    .waitForLoadState('networkidle', { timeout: capMs })
    .then(() => {
      networkIdle = true;
    })
    .catch(() => undefined);
  while (Date.now() < until) {
    const leftMs = until - Date.now();
    const seen = await pTimeout(
      page.evaluate(watch, [BUILT_QUIET_MS, IDLE_QUIET_MS, leftMs] as const).catch(() => 'gone' as const),
      { milliseconds: leftMs + SLICE_GRACE_MS, fallback: () => 'gone' as const },
    );
    if (seen !== 'quiet' || networkIdle) return;
    // Quiet while requests are still going: what they bring is watched for once they are done.
    await pTimeout(idle, { milliseconds: Math.max(0, until - Date.now()), message: false });
  }
}

/**
 * In the page: 'built' once it looks built and has not changed for `quietMs`; 'quiet' once it has not changed for
 * `idleMs` without a framework mount point (one still empty is waited for: its content is on its way); 'cap' at
 * `capMs`.
 */
function watch([quietMs, idleMs, capMs]: readonly [number, number, number]): Promise<'built' | 'quiet' | 'cap'> {
  return new Promise((resolve) => {
    const mount = () =>
      document.querySelector('#root,#app,#__next,#__nuxt,#svelte,#___gatsby,#q-app,[data-reactroot],[ng-app],app-root');
    const built = () => {
      const mounted = mount();
      if (mounted) return mounted.childElementCount > 1 || (mounted.textContent ?? '').trim().length >= 20;
      // A page with no script builds nothing: it is read as it is.
      if (!document.querySelector('script')) return true;
      return (document.body?.innerText ?? '').trim().length >= 100;
    };
    let still: ReturnType<typeof setTimeout> | undefined;
    const finish = (how: 'built' | 'quiet' | 'cap') => {
      observer.disconnect();
      clearTimeout(still);
      clearTimeout(cap);
      resolve(how);
    };
    // Each change restarts the wait for stillness.
    const check = () => {
      clearTimeout(still);
      if (built()) still = setTimeout(() => finish('built'), quietMs);
      else if (!mount()) still = setTimeout(() => finish('quiet'), idleMs);
    };
    const observer = new MutationObserver(check);
    const cap = setTimeout(() => finish('cap'), capMs);
    observer.observe(document.documentElement, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
    check();
  });
}

/** What Playwright says when the document it reads is being replaced by a navigation the page started itself. */
const NAVIGATING = /page is navigating|Execution context was destroyed|Cannot find context with specified id/i;
/** What a capture says when the page's document was replaced under it: the same, or the capture's own words. */
const CAPTURE_RACED = new RegExp(`Printing failed|Unable to capture screenshot|${NAVIGATING.source}`, 'i');

/**
 * Runs a capture of the page (a screenshot, a PDF); when a navigation the page had started before it was kept
 * still replaced the document under it, the capture is taken again once that navigation has loaded.
 */
export async function captureSettled<T>(page: Page, capture: () => Promise<T>): Promise<T> {
  try {
    return await capture();
  } catch (err) {
    if (!CAPTURE_RACED.test((err as Error).message) || page.isClosed()) throw err;
    await page.waitForLoadState('load', { timeout: SELF_NAVIGATION_MS }).catch(() => undefined);
    return capture();
  }
}

/** Pages stopped from navigating further (see still), until they are reset for another request. */
const stilled = new WeakSet<Page>();

/**
 * The page's HTML once a navigation it started itself (`location.href = ...` on a timer, a meta refresh, a reload)
 * has loaded. A page that keeps navigating is stopped after a few loads (its main frame's further navigations are
 * aborted) and read as it is; past `budgetMs` it is EBRWSRTIMEOUT, never an unexpected failure.
 */
export async function readContent(page: Page, budgetMs: number): Promise<string> {
  const until = Date.now() + budgetMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.content();
    } catch (err) {
      if (!NAVIGATING.test((err as Error).message)) throw err;
      if (Date.now() >= until)
        throw new RefractError('EBRWSRTIMEOUT', 'The page kept navigating and could not be read in time', {
          cause: err,
        });
      if (attempt === 2) still(page);
      await page
        .waitForLoadState('load', { timeout: Math.max(1, Math.min(2000, until - Date.now())) })
        .catch(() => undefined);
    }
  }
}

/** Whether a request is for a page's own document (its main frame's navigation), not a frame's or a resource's. */
export function isMainDocument(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    const frame = request.frame();
    return frame === frame.page().mainFrame();
  } catch {
    // A service worker's request has no frame.
    return false;
  }
}

/**
 * Keeps a page on the document it has: every further navigation of its main frame is aborted (its other requests
 * go on), by the guard's route that every request of its context already passes (see guardContext), so holding
 * a page still costs no round trip to the browser. The steps capture the document that was loaded, which a reload
 * loop or a late script redirect would otherwise pull away from under them (a capture during a navigation waited
 * until the deadline).
 */
export function still(page: Page): void {
  stilled.add(page);
}

/** Whether the guard's route refuses this request: a further navigation of a page held still. */
export function heldStill(request: Request): boolean {
  return isMainDocument(request) && stilled.has(request.frame().page());
}

/** Lets a page navigate again (before it is reset for another request). */
export function unstill(page: Page): void {
  stilled.delete(page);
}

/** A refresh due within this many seconds is a redirect: the page is read once it has been followed. */
const REFRESH_FOLLOWED_S = 1;
/** How much of the document is searched for a `<meta http-equiv="refresh">` (it belongs in the head). */
const REFRESH_SCAN_CHARS = 65_536;
const META_REFRESH = /<meta\b[^>]*\bhttp-equiv\s*=\s*["']?refresh\b[^>]*>/i;

/** A refresh's delay and target (`5; url=/next`), resolved against `base`; undefined when it does not parse. */
export function refreshOf(value: string, base: string): { seconds: number; url: string } | undefined {
  const m = /^\s*(\d+(?:\.\d*)?)\s*(?:[;,]\s*(?:url\s*=\s*)?(["']?)(.*?)\2\s*)?$/i.exec(value);
  if (!m) return undefined;
  const target = m[3]?.trim();
  return { seconds: Number(m[1]), url: target && URL.canParse(target, base) ? new URL(target, base).href : base };
}

/**
 * A document that refreshes itself to another address at once (`<meta http-equiv="refresh" content="0;url=…">` or
 * a `Refresh` header) is read once that navigation has loaded. The refresh is read from the document's answer the
 * navigation returned, not from the page (a round trip into a page about to be replaced raced its navigation: the
 * redirecting page was captured ~1 time in 25), and the wait holds whether the navigation began already or not. A
 * refused navigation leaves the browser's error page, which the caller answers as the guard's refusal.
 */
export async function followRefresh(page: Page, response: Response | null, capMs: number): Promise<void> {
  if (!response || response.status() >= 300 || !/html/i.test(response.headers()['content-type'] ?? '')) return;
  const value = response.headers().refresh ?? metaRefresh(await response.text().catch(() => ''));
  const from = response.url();
  const refresh = value === undefined ? undefined : refreshOf(value, from);
  if (!refresh || refresh.seconds > REFRESH_FOLLOWED_S || refresh.url.split('#')[0] === from.split('#')[0]) return;
  await page
    .waitForURL((url) => url.href !== from, { waitUntil: 'load', timeout: refresh.seconds * 1000 + capMs })
    .catch(() => undefined);
}

/** The content of a document's `<meta http-equiv="refresh">`, if it has one near its start. */
function metaRefresh(html: string): string | undefined {
  const tag = META_REFRESH.exec(html.slice(0, REFRESH_SCAN_CHARS))?.[0];
  const m = tag && /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(tag);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3]!) : undefined;
}

/** The few entities a refresh's URL carries in an attribute (`&amp;` between query parameters). */
const decodeEntities = (value: string) =>
  value.replace(/&(amp|quot|apos|#39);/g, (_, e: string) => ({ amp: '&', quot: '"', apos: "'", '#39': "'" })[e]!);
