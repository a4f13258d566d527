import pRetry from 'p-retry';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { fromBrowserFailure, isCrash } from '../kernel/failures.ts';
import { createLauncher, executable, poolStats, type Launcher } from './launcher.ts';
import { descendantsMemory } from './memory.ts';
import { createSlots } from './slots.ts';
import { createSharedContexts } from './shared.ts';
import { createWarmPages, type WarmPages } from './warm.ts';
import type { GuardProxy } from './guard-proxy.ts';
import { redact, type RemoteEndpoint } from './remote.ts';

/** Pages of the browser pool, handed out under a concurrency bound with a bounded queue and crash retries. */
export interface Browsers {
  /**
   * Runs `fn` on a fresh page in its own incognito context, or with `share` (crawls) in a context shared by the
   * pages of that key; the page is closed afterwards whatever happens.
   */
  withPage<T>(
    options: BrowserContextOptions,
    proxyUrl: string | undefined,
    signal: AbortSignal,
    fn: (page: Page) => Promise<T>,
    retries?: number,
    share?: string,
    prepare?: Preparation,
  ): Promise<T>;
  /** Why the guard's proxy refused a document (see GuardProxy.refusalOf). */
  refusalOf: GuardProxy['refusalOf'];
  /** Closes the contexts shared under `share` (a crawl's, when it ends). */
  closeShared(share: string): Promise<void>;
  /** Browsers open, launched in all, contexts open, requests served by a reused page, pages in use and requests waiting for one. */
  stats(): { open: number; launched: number; contexts: number; reused: number; pages: number; queued: number };
  /** The nodes of the browser tier (REFRACT_BROWSER_ENDPOINTS, without their tokens) and whether each is up. */
  endpoints(): { endpoint: string; state: ReturnType<RemoteEndpoint['state']> }[];
  /** False when Chromium is not there to run, or the last try to open a page failed with no browser running. */
  ready(): boolean;
  close(): Promise<void>;
}

/** Settings of the browser side. */
export interface BrowsersOptions {
  concurrency: number;
  queueLimit: number;
  retireAfterPages: number;
  maxMemoryBytes: number;
  chromePath: string;
  warmPages?: number;
  /** Launch Chromium with its sandbox. */
  sandbox?: boolean;
  /** The browser tier (REFRACT_BROWSER_ENDPOINTS) instead of a local Chromium. */
  endpoints?: readonly RemoteEndpoint[];
  /** The SSRF guard's forward proxy, which every browser connection goes through. */
  proxy: GuardProxy;
}

/**
 * What a page needs before it navigates (routes, init scripts, bindings on its context). `key` names the kind, so
 * that a page opened ahead of need is prepared exactly as the request that takes it would have prepared it.
 */
export interface Preparation {
  key: string;
  run(page: Page): Promise<void>;
  /**
   * Makes a page that served a request of this kind fit for the next one (nothing of the last request left to
   * see), or answers false when it cannot be (then the page is closed). Without it pages are never used twice.
   */
  reset?(page: Page, options: BrowserContextOptions): Promise<boolean>;
}

/** A page serves at most this many requests (a long-lived renderer slowly grows). */
const MAX_USES = 50;

/**
 * After a request: its page reset and parked, or closed and a fresh one of its kind opened ahead of need. A
 * browser is retired after `retireAfterPages` requests (reused pages included), a page after MAX_USES.
 */
function createRecycler(launcher: Launcher, warm: WarmPages, retireAfterPages: number) {
  const uses = new WeakMap<Page, number>();
  const served = new WeakMap<object, number>();
  return {
    reused: (page: Page) => uses.has(page),
    recycle(key: string, page: Page, options: BrowserContextOptions, prepare: Preparation | undefined, ok: boolean) {
      const n = (uses.get(page) ?? 0) + 1;
      uses.set(page, n);
      const browser = page.context().browser();
      const byBrowser = browser ? (served.get(browser) ?? 0) + 1 : 0;
      if (browser) served.set(browser, byBrowser);
      const spent = byBrowser >= retireAfterPages;
      const pool = launcher.started();
      if (spent) {
        const controller = pool?.getBrowserControllerByPage(page as never);
        if (controller) pool!.retireBrowserController(controller);
        // Its parked pages would keep it open (Crawlee closes a retired browser with its last page): closed now.
        if (browser) void warm.dropWhere((p) => p.context().browser() === browser);
      }
      const reset =
        ok && !spent && n < MAX_USES && prepare?.reset
          ? prepare.reset(page, options).catch(() => false)
          : Promise.resolve(false);
      warm.park(
        key,
        reset.then(async (ok) => {
          if (ok) return page;
          await page.close().catch(() => undefined);
          return launcher.open(options, undefined, prepare).catch(() => undefined);
        }),
      );
    },
  };
}

/** Creates the browser side; Chromium starts on first use. */
export function createBrowsers(opts: BrowsersOptions): Browsers {
  let reused = 0;
  let memoryCheck: Promise<void> | undefined;
  const slots = createSlots(opts.concurrency, opts.queueLimit);
  const launcher = createLauncher(opts);
  const warmPages = opts.warmPages ?? 0;
  const warm = createWarmPages(warmPages);
  const recycler = createRecycler(launcher, warm, opts.retireAfterPages);
  const shared = createSharedContexts((options) => launcher.newPage(options), opts.retireAfterPages);

  // Past the memory ceiling every open browser is retired: pages in flight finish, new ones get a fresh browser.
  // Memory is read close to how the kernel charges it (descendantsMemory: private pages, shared ones once).
  const recycleIfHeavy = async () => {
    const pool = launcher.started();
    // A browser tier's Chromium is on its nodes: this process's descendants are not its browsers.
    if (!pool || opts.maxMemoryBytes <= 0 || opts.endpoints?.length) return;
    if ((await descendantsMemory()) <= opts.maxMemoryBytes) return;
    await warm.drop();
    await pool.retireAllBrowsers();
    await shared.retire();
  };
  const takeWarm = async (key: string) => {
    const page = await warm.take(key);
    if (page && recycler.reused(page)) reused++;
    return page;
  };
  // Pages through a proxy always get their own context.
  const attempt = async <T>(
    options: BrowserContextOptions,
    proxyUrl: string | undefined,
    fn: (page: Page) => Promise<T>,
    share?: string,
    prepare?: Preparation,
  ): Promise<T> => {
    await memoryCheck;
    const inShared = share && !proxyUrl ? await shared.page(share, options) : undefined;
    if (inShared)
      await prepare?.run(inShared.page).catch(async (err: unknown) => {
        await inShared.page.close().catch(() => undefined);
        await inShared.done();
        throw err;
      });
    // Pages through a proxy, of a crawl, or recording video are opened for their request alone.
    // Nor are pages sent with custom headers (credentials of one caller, say) kept for another request.
    const key =
      !inShared && !proxyUrl && !options.recordVideo && !options.extraHTTPHeaders
        ? `${prepare?.key ?? ''}\n${JSON.stringify(options)}`
        : undefined;
    const page =
      inShared?.page ?? (key ? await takeWarm(key) : undefined) ?? (await launcher.open(options, proxyUrl, prepare));
    let ok = false;
    try {
      const out = await fn(page);
      ok = true;
      return out;
    } finally {
      // A page whose request failed or was abandoned (work may still run on it) is never used again.
      if (key && warmPages > 0 && launcher.started()) recycler.recycle(key, page, options, prepare, ok);
      else {
        await page.close().catch(() => undefined);
        await inShared?.done();
      }
      // Measured after the answer has gone out; the next page waits for the verdict before it opens.
      memoryCheck = recycleIfHeavy().catch(() => undefined);
    }
  };
  return {
    async withPage(options, proxyUrl, signal, fn, retries = 1, share, prepare) {
      await slots.acquire(signal);
      try {
        // A page whose browser crashed is tried again on a fresh one, with backoff (100 ms, 200 ms...), within the signal.
        return await pRetry(() => attempt(options, proxyUrl, fn, share, prepare), {
          retries,
          signal,
          minTimeout: 100,
          factor: 2,
          randomize: false,
          shouldRetry: ({ error }) => isCrash(error),
          onFailedAttempt: ({ error }) => {
            if (isCrash(error)) launcher.dropDisconnected();
          },
        });
      } catch (err) {
        throw fromBrowserFailure(err);
      } finally {
        slots.release();
      }
    },
    ready: () =>
      opts.endpoints?.length
        ? opts.endpoints.some((e) => e.state() !== 'down')
        : !launcher.failed() && executable(opts.chromePath),
    stats: () => ({ ...poolStats(launcher), reused, pages: slots.load().active, queued: slots.load().queued }),
    endpoints: () => (opts.endpoints ?? []).map((e) => ({ endpoint: redact(e.url), state: e.state() })),
    closeShared: (share) => shared.retire(share),
    refusalOf: (response, url) => opts.proxy.refusalOf(response, url),
    async close() {
      await warm.drop();
      shared.clear();
      await launcher.destroy();
      await opts.proxy.close();
    },
  };
}
