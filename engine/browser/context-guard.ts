import type { BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import type { Guard } from '../fetch/guard.ts';
import type { RefractError } from '../kernel/errors.ts';
import { fromNetwork } from '../kernel/failures.ts';
import type { Adblock } from './adblock.ts';
import { heldStill, isMainDocument, unstill } from './settle.ts';

// What the guard keeps per browser context and page: weak maps, so that a closed context or page leaves nothing.
/** Contexts whose requests already pass the guard. */
const guardedContexts = new WeakSet<BrowserContext>();
/** Why the guard refused a page's own document (the target or a redirect of it), for its navigation to answer. */
const refusals = new WeakMap<Page, RefractError>();

/** Takes (and forgets) why the guard refused this page's own document, if it did. */
export function takeRefusal(page: Page): RefractError | undefined {
  const refused = refusals.get(page);
  refusals.delete(page);
  return refused;
}
/** The origins each context's requests went to since it was last reset (whose storage a reset clears). */
const originsSeen = new WeakMap<BrowserContext, Set<string>>();

/** The URL of the page a request belongs to (the source URL that ad filters judge third parties by). */
function pageUrlOf(route: Route, fallback: string): string {
  try {
    const url = route.request().frame().page().url();
    return url === 'about:blank' ? fallback : url;
  } catch {
    return fallback;
  }
}

/**
 * Sends every request of a context (its pages, their frames, subresources, redirects, WebSockets, and the windows
 * a page opens) through the SSRF guard first and, with `adblock`, drops ads and trackers. Installed once per
 * context, before its first page navigates: one route for all of its pages (a context serves one request, or one
 * crawl whose pages share their options).
 */
export async function guardContext(context: BrowserContext, guard: Guard, adblock?: Adblock): Promise<void> {
  if (guardedContexts.has(context)) return;
  guardedContexts.add(context);
  const origins = new Set<string>();
  originsSeen.set(context, origins);
  // Per host: undefined when allowed, else why not (a forbidden address, a name that does not resolve...).
  const verdicts = new Map<string, Promise<RefractError | undefined>>();
  const refusal = (url: URL): Promise<RefractError | undefined> => {
    let verdict = verdicts.get(url.hostname);
    if (!verdict) {
      // resolve() checks address literals as well as names, so it is the whole check.
      verdict = guard.resolve(url.hostname).then(
        () => undefined,
        (err: unknown) => fromNetwork(err, undefined, url.href),
      );
      verdicts.set(url.hostname, verdict);
    }
    return verdict;
  };
  const allowed = async (url: URL): Promise<boolean> => !(await refusal(url));
  const onSocket = async (ws: WebSocketRoute) => {
    try {
      const url = new URL(ws.url());
      if ((url.protocol === 'ws:' || url.protocol === 'wss:') && (await allowed(url))) {
        ws.connectToServer();
        return;
      }
    } catch {
      /* refused below */
    }
    await ws.close({ code: 1008, reason: 'blocked by the SSRF guard' }).catch(() => undefined);
  };
  async function decide(route: Route): Promise<void> {
    // A page held still for its request's steps does not navigate on (see still in settle.ts).
    if (heldStill(route.request())) return route.abort('aborted');
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.protocol === 'about:') return route.continue();
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return route.abort('blockedbyclient');
    origins.add(url.origin);
    // Ads and trackers are dropped before any DNS work is spent on them.
    if (adblock?.isBlocked(url.href, route.request().resourceType(), pageUrlOf(route, url.href)))
      return route.abort('blockedbyclient');
    const refused = await refusal(url);
    if (!refused) return route.continue();
    const request = route.request();
    if (isMainDocument(request)) refusals.set(request.frame().page(), refused);
    return route.abort('blockedbyclient');
  }
  const onRequest = async (route: Route) => {
    // A throwing route handler would take the process down: anything unexpected refuses the request.
    try {
      await decide(route);
    } catch {
      await route.abort('failed').catch(() => undefined);
    }
  };
  // WebSockets are not requests that routes see: their host passes the same guard before connecting.
  await Promise.all([context.routeWebSocket(/.*/, onSocket), context.route('**/*', onRequest)]);
}

/** Page events that nothing of a finished request may still listen to on a page that is used again. */
const PAGE_EVENTS = [
  'request',
  'requestfinished',
  'requestfailed',
  'response',
  'console',
  'dialog',
  'popup',
  'frameattached',
  'framenavigated',
  'load',
  'domcontentloaded',
  'download',
  'filechooser',
  'pageerror',
  'websocket',
  'worker',
];

/**
 * Makes a page that served a request fit to serve the next one of the same kind, or answers false (then it is
 * closed). Refused when the request left anything behind that a reset cannot undo: another window, a changed
 * viewport, a listener of its own. Otherwise: the page goes to about:blank (the document, its scripts, timers and
 * sockets end), its window name is cleared, media emulation is undone, and the context loses its cookies, granted
 * permissions and, for every origin its requests reached, all stored data (local and session storage, IndexedDB,
 * Cache Storage). The HTTP cache holds nothing to clear: a routed context does not use it. Service workers are
 * blocked in every context.
 */
export async function resetPage(
  page: Page,
  viewport: { width: number; height: number } | null | undefined,
): Promise<boolean> {
  const context = page.context();
  if (page.isClosed() || context.pages().length !== 1) return false;
  const size = page.viewportSize();
  if (viewport && (size?.width !== viewport.width || size?.height !== viewport.height)) return false;
  const listeners = page as unknown as { listenerCount(event: string): number };
  if (PAGE_EVENTS.some((event) => listeners.listenerCount(event) > 0)) return false;
  // Its navigations were stopped for the last request's steps (see still): they go again.
  unstill(page);
  await page.goto('about:blank', { timeout: 5000 });
  await page.evaluate("window.name = ''");
  await page.emulateMedia({ media: null });
  await context.clearCookies();
  await context.clearPermissions();
  const origins = originsSeen.get(context);
  if (origins?.size) {
    const cdp = await context.newCDPSession(page);
    try {
      for (const origin of origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
    } finally {
      await cdp.detach().catch(() => undefined);
    }
    origins.clear();
  }
  return true;
}
