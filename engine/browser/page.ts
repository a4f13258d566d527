import type { BrowserContextOptions, Page, Request, Response } from 'playwright-core';
import { RefractError } from '../kernel/errors.ts';
import { fromNavigation } from '../kernel/failures.ts';
import { findDevice } from '../plan/devices.ts';
import type { GuardProxy } from './guard-proxy.ts';
import { followRefresh, SELF_NAVIGATION_MS, isMainDocument, loadedOrShare, stopLoading } from './settle.ts';
import { takeRefusal } from './context-guard.ts';
import { trackRequests } from './requests.ts';

export { guardContext, resetPage } from './context-guard.ts';

/** How the page is set up and driven: the general page controls of a request, plus what its steps add. */
export interface PageSetup {
  device?: string;
  viewport?: {
    width?: number;
    height?: number;
    deviceScaleFactor?: number;
    isMobile?: boolean;
    hasTouch?: boolean;
    isLandscape?: boolean;
  };
  colorScheme?: 'light' | 'dark' | 'no-preference';
  mediaType?: 'screen' | 'print';
  animations?: boolean;
  javascript?: boolean;
  userAgent?: string;
  headers?: Record<string, string>;
  click?: string[];
  scroll?: string;
  scripts?: string[];
  styles?: string[];
  modules?: string[];
  waitUntil?: string[];
  waitForSelector?: string;
  waitForTimeout?: number;
  /** Set when a step captures the page over a transparent background (pages are reused only by the same kind). */
  transparent?: boolean;
  /** Block ads and trackers and dismiss cookie banners. */
  adblock?: boolean;
  /** Set when a step needs video of the page (screenshot.animated). */
  recordVideo?: { dir: string; size: { width: number; height: number } };
}

/** The viewport of a page whose request names no device or size. */
export const DEFAULT_VIEWPORT = Object.freeze({ width: 1280, height: 800 });

/** Browser context options from the page setup: device preset first, explicit viewport values over it. */
export function contextOptions(setup: PageSetup): BrowserContextOptions {
  const preset = setup.device ? findDevice(setup.device) : undefined;
  const v = setup.viewport ?? {};
  const width = v.width ?? preset?.viewport.width ?? DEFAULT_VIEWPORT.width;
  const height = v.height ?? preset?.viewport.height ?? DEFAULT_VIEWPORT.height;
  const landscape = v.isLandscape ?? preset?.isLandscape ?? false;
  const [w, h] = landscape && height > width ? [height, width] : [width, height];
  return {
    viewport: { width: w, height: h },
    deviceScaleFactor: v.deviceScaleFactor ?? preset?.deviceScaleFactor ?? 1,
    isMobile: v.isMobile ?? preset?.isMobile ?? false,
    hasTouch: v.hasTouch ?? preset?.hasTouch ?? false,
    userAgent: setup.userAgent ?? preset?.userAgent,
    javaScriptEnabled: setup.javascript ?? true,
    colorScheme: setup.colorScheme ?? 'light',
    reducedMotion: setup.animations === false ? 'reduce' : 'no-preference',
    extraHTTPHeaders: setup.headers,
    recordVideo: setup.recordVideo,
    ignoreHTTPSErrors: false,
    // Requests a service worker makes bypass page routing, and so the SSRF guard: pages get none.
    serviceWorkers: 'block',
  };
}

const FREEZE =
  '*,*::before,*::after{animation-duration:0s!important;animation-delay:0s!important;animation-iteration-count:1!important;transition:none!important;caret-color:transparent!important}';

/** What tells a response the guard's proxy made in place of a refused hop (see guard-proxy.ts). */
export type GuardedBy = Pick<GuardProxy, 'refusalOf'>;

const AUTO_SETTLE_MS = 2000;

function lifecycle(waitUntil: string[] | undefined): 'load' | 'domcontentloaded' | 'networkidle' | 'commit' {
  const first = waitUntil?.find((w) => w !== 'auto') ?? 'load';
  if (first.startsWith('networkidle')) return 'networkidle';
  if (first === 'domcontentloaded' || first === 'commit') return first;
  return 'load';
}

/**
 * Whether a navigation failed only because the page started its own (net::ERR_ABORTED, or "interrupted by another
 * navigation") after its document arrived (a 2xx, not a redirect hop): a page is there to read, unlike a download
 * (which leaves about:blank).
 */
function interruptedBySelf(err: unknown, arrived: Response | undefined, page: Page): boolean {
  const message = (err as Error)?.message ?? '';
  return /net::ERR_ABORTED|interrupted by another navigation/.test(message) && documentThere(arrived, page);
}

/** Whether the page holds a document to read: its answer came (a 2xx, not a redirect hop) and it is not about:blank. */
function documentThere(arrived: Response | undefined, page: Page): arrived is Response {
  return !!arrived && arrived.status() < 300 && page.url() !== 'about:blank';
}

/**
 * A navigation past its share of the time with its document there (a resource or a script holds `load` back):
 * loading stops and the page is used as rendered, said in a warning (`onStopped`); nothing arrived is the error.
 */
async function stalled(
  err: unknown,
  page: Page,
  arrived: Response | undefined,
  budgetMs: number,
  onStopped?: (ms: number) => void,
): Promise<Response> {
  if ((err as Error).name !== 'TimeoutError' || !onStopped || !documentThere(arrived, page)) throw err;
  if (!(await stopLoading(page))) throw heldPage(budgetMs, err);
  onStopped(budgetMs);
  return arrived;
}

const heldPage = (ms: number, cause?: unknown) =>
  new RefractError(
    'EBRWSRTIMEOUT',
    `The page did not finish loading within ${ms} ms, and a script of its own holds it: nothing can be captured`,
    { cause },
  );

/**
 * Navigates and drives the page as the setup says: goto with the chosen lifecycle event, then styles, scripts
 * and modules, frozen animations, clicks, scroll and waits. EBRWSRTIMEOUT when navigation passes its budget.
 * `afterLoad` runs once the page has loaded and its requests settled, before anything else. With `onStopped`, a
 * document still loading at `budgetMs` is stopped and used as rendered, while one that has not arrived is waited
 * for up to `waitMs` (at least `budgetMs`: the request's time but what its capture needs).
 */
export async function navigate(
  page: Page,
  url: string,
  setup: PageSetup,
  budgetMs: number,
  afterLoad?: () => Promise<void>,
  guarded?: GuardedBy,
  onStopped?: (ms: number) => void,
  waitMs = budgetMs,
): Promise<Response | null> {
  if (setup.mediaType) await page.emulateMedia({ media: setup.mediaType });
  const tracker = setup.waitUntil === undefined || setup.waitUntil.includes('auto') ? trackRequests(page) : undefined;
  let response: Response | null;
  // A refusal left by an earlier navigation of this page (one its script started) is not this one's.
  takeRefusal(page);
  // The last hop of the document that failed (a redirect the guard's proxy refused a tunnel to, say).
  let failedHop: string | undefined;
  const onFailed = (req: Request) => {
    if (isMainDocument(req)) failedHop = req.url();
  };
  if (guarded) page.on('requestfailed', onFailed);
  // Navigations the page starts itself once loaded (a script setting `location`, a refresh, a reload loop).
  let loaded = false;
  let selfNavigations = 0;
  const onRequest = (req: Request) => {
    if (loaded && isMainDocument(req)) selfNavigations++;
  };
  page.on('request', onRequest);
  // The document's answer, once it has come: a page whose load never completes is still there to capture.
  let arrived: Response | undefined;
  const onResponse = (res: Response) => {
    if (isMainDocument(res.request())) arrived = res;
  };
  page.on('response', onResponse);
  try {
    try {
      const going = page.goto(url, { waitUntil: lifecycle(setup.waitUntil), timeout: waitMs });
      const got =
        onStopped && waitMs > budgetMs
          ? await loadedOrShare(going, budgetMs, () => documentThere(arrived, page), page)
          : await going;
      if (got === 'held') throw heldPage(budgetMs);
      if (got === 'stopped') onStopped!(budgetMs);
      response = got === 'stopped' ? arrived! : got;
    } catch (err) {
      // The page navigated itself (a reload or a redirect on a short timer) before the event the navigation waited
      // for, as on a busy machine: its document did arrive, and it is read once its own navigation has loaded (below).
      if (interruptedBySelf(err, arrived, page)) {
        response = arrived!;
        selfNavigations++;
      } else {
        response = await stalled(err, page, arrived, waitMs, onStopped);
      }
    }
    loaded = true;
    // A hop of the document's redirects that the guard's proxy refused: answered by the proxy in its place. A
    // refresh due at once is followed (a refused one leaves the error page, answered below as the refusal).
    const refused =
      response && guarded?.refusalOf({ status: response.status(), headers: response.headers() }, response.url());
    if (refused) throw refused;
    await followRefresh(page, response, Math.min(SELF_NAVIGATION_MS, budgetMs));
    if (tracker) await tracker.settle(Math.min(AUTO_SETTLE_MS, budgetMs));
  } catch (err) {
    // Refused by the guard: its reason (EFORBIDDENURL, EINVALURL), not the browser's net::ERR_BLOCKED_BY_CLIENT.
    const refused = takeRefusal(page) ?? (failedHop ? guarded?.refusalOf(undefined, failedHop) : undefined);
    throw fromNavigation(refused ?? err, waitMs);
  } finally {
    tracker?.stop();
    page.off('response', onResponse);
  }
  try {
    // Once the page has loaded and settled (consent managers show their banners late), a banner is answered.
    await afterLoad?.();
    page.off('request', onRequest);
    // A page that navigated itself (a script redirect, a refresh) is read once that navigation has loaded.
    if (selfNavigations > 0)
      await page.waitForLoadState('load', { timeout: Math.min(SELF_NAVIGATION_MS, budgetMs) }).catch(() => undefined);
    // Its own navigation failed (refused by the guard, or unreachable): the browser's error page is no answer.
    if (onErrorPage(page)) throw selfNavigationFailure(page, failedHop, guarded);
  } finally {
    page.off('requestfailed', onFailed);
  }
  for (const extra of setup.waitUntil?.filter((w) => w !== 'auto').slice(1) ?? []) {
    const state = lifecycle([extra]);
    await page
      .waitForLoadState(state === 'commit' ? 'domcontentloaded' : state, { timeout: budgetMs })
      .catch(() => undefined);
  }
  if (setup.animations === false) await page.addStyleTag({ content: FREEZE });
  for (const style of setup.styles ?? [])
    await inject('styles', style, () =>
      page.addStyleTag(/^https?:\/\//.test(style) ? { url: style } : { content: style }),
    );
  for (const script of setup.scripts ?? [])
    await inject('scripts', script, () =>
      page.addScriptTag(/^https?:\/\//.test(script) ? { url: script } : { content: script }),
    );
  for (const mod of setup.modules ?? [])
    await inject('modules', mod, () =>
      page.addScriptTag(/^https?:\/\//.test(mod) ? { url: mod, type: 'module' } : { content: mod, type: 'module' }),
    );
  for (const selector of setup.click ?? []) {
    await page.click(selector, { timeout: Math.min(5000, budgetMs) }).catch((err: Error) => {
      throw new RefractError('EINVALQUERY', `Invalid \`click\`: no clickable element matches "${selector}"`, {
        cause: err,
        data: { param: 'click' },
      });
    });
  }
  if (setup.scroll) {
    await page
      .locator(setup.scroll)
      .first()
      .scrollIntoViewIfNeeded({ timeout: Math.min(5000, budgetMs) })
      .catch((err: Error) => {
        throw new RefractError('EINVALQUERY', `Invalid \`scroll\`: no element matches "${setup.scroll}"`, {
          cause: err,
          data: { param: 'scroll' },
        });
      });
  }
  if (setup.waitForSelector) {
    await page.waitForSelector(setup.waitForSelector, { timeout: budgetMs }).catch((err: Error) => {
      throw new RefractError(
        'EBRWSRTIMEOUT',
        `No element matched \`waitForSelector\` "${setup.waitForSelector}" in time`,
        { cause: err },
      );
    });
  }
  if (setup.waitForTimeout) await page.waitForTimeout(setup.waitForTimeout);
  return response;
}

/** Whether the page shows the browser's own error page (a navigation that failed), not a document of the web. */
export const onErrorPage = (page: Page): boolean => page.url().startsWith('chrome-error://');

/**
 * Why the page's own navigation (a refresh, a script, a form) ended on the browser's error page: the guard's refusal
 * (EFORBIDDENURL, EINVALURL) when it refused the document or a hop of it, else the network's failure.
 */
export function selfNavigationFailure(page: Page, failedHop?: string, guarded?: GuardedBy): RefractError {
  const refused = takeRefusal(page) ?? (failedHop ? guarded?.refusalOf(undefined, failedHop) : undefined);
  if (refused) return refused;
  const where = failedHop ? ` to ${failedHop}` : '';
  return new RefractError('EFATALCLIENT', `The page navigated itself${where}, and that page could not be loaded`);
}

/**
 * Adds a style, script or module the request asked for; one that does not load (unreachable, refused by the
 * SSRF guard, a 404, a syntax error in a module) is the caller's parameter at fault: EINVALQUERY naming it.
 */
async function inject(
  param: 'styles' | 'scripts' | 'modules',
  value: string,
  add: () => Promise<unknown>,
): Promise<void> {
  try {
    await add();
  } catch (err) {
    const what = /^https?:\/\//.test(value) ? value : 'the inline code';
    throw new RefractError('EINVALQUERY', `Invalid \`${param}\`: ${what} could not be loaded into the page`, {
      cause: err,
      data: { param },
    });
  }
}
