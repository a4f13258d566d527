import type { BrowserContextOptions, Page } from 'playwright-core';
import { BROWSER_POOL_EVENTS } from '@crawlee/browser-pool';
import { isCrash } from '../failures.ts';
import { createBrowserPool, type RefractBrowserPool } from './pool.ts';
import { descendantsRss } from './memory.ts';
import { createSlots } from './slots.ts';
import { createSharedContexts } from './shared.ts';

/** Pages of the browser pool, handed out under a concurrency bound with a bounded queue and crash retries. */
export interface Browsers {
  /**
   * Runs `fn` on a fresh page in its own incognito context, or with `share` (crawls) in a context shared by the
   * pages of that key; the page is closed afterwards whatever happens.
   */
  withPage<T>(options: BrowserContextOptions, proxyUrl: string | undefined, signal: AbortSignal, fn: (page: Page) => Promise<T>, retries?: number, share?: string, prepare?: Preparation): Promise<T>;
  /** Closes the contexts shared under `share` (a crawl's, when it ends). */
  closeShared(share: string): Promise<void>;
  /** Browsers open, launched in all, and contexts open (for tests of recycling, crash recovery and leaks). */
  stats(): { open: number; launched: number; contexts: number };
  close(): Promise<void>;
}

/** Settings of the browser side. */
export interface BrowsersOptions { concurrency: number; queueLimit: number; retireAfterPages: number; maxMemoryBytes: number; chromePath: string; warmPages?: number }

/**
 * What a page needs before it navigates (routes, init scripts, bindings on its context). `key` names the kind, so
 * that a page opened ahead of need is prepared exactly as the request that takes it would have prepared it.
 */
export interface Preparation { key: string; run(page: Page): Promise<void> }

/** An unused warm page is closed after this long. */
const WARM_IDLE_MS = 60_000;

/** Creates the browser side; Chromium starts on first use. */
export function createBrowsers(opts: BrowsersOptions): Browsers {
  let pool: RefractBrowserPool | undefined;
  let launched = 0;
  let memoryCheck: Promise<void> | undefined;
  const slots = createSlots(opts.concurrency, opts.queueLimit);
  const poolOf = (): RefractBrowserPool => {
    if (!pool) {
      pool = createBrowserPool({ maxPagesPerBrowser: opts.concurrency * 2, retireAfterPages: opts.retireAfterPages, chromePath: opts.chromePath });
      pool.on(BROWSER_POOL_EVENTS.BROWSER_LAUNCHED, () => { launched++; });
    }
    return pool;
  };
  // Pages opened ahead of need, by kind (context options and preparation), least recently wanted first. A new
  // context and its renderer process cost ~150 ms, most of a simple capture: the next page of a kind just used is
  // opened while the current one works. A warm page is never used before, so each request still gets a fresh context.
  const warm = new Map<string, Promise<Page | undefined>>();
  const warmPages = opts.warmPages ?? 0;
  const openPage = async (options: BrowserContextOptions, proxyUrl: string | undefined, prepare?: Preparation): Promise<Page> => {
    const page = (await poolOf().newPage({ pageOptions: options, proxyUrl })) as Page;
    try {
      await prepare?.run(page);
    } catch (err) {
      await page.close().catch(() => undefined);
      throw err;
    }
    return page;
  };
  const takeWarm = async (key: string): Promise<Page | undefined> => {
    const pending = warm.get(key);
    if (!pending) return undefined;
    warm.delete(key);
    const page = await pending;
    if (page && !page.isClosed() && page.context().browser()?.isConnected()) return page;
    await page?.close().catch(() => undefined);
    return undefined;
  };
  const warmUp = (key: string, options: BrowserContextOptions, prepare?: Preparation) => {
    if (warmPages <= 0 || warm.has(key) || !pool) return;
    while (warm.size >= warmPages) {
      const [oldest, pending] = warm.entries().next().value!;
      warm.delete(oldest);
      void pending.then((p) => p?.close()).catch(() => undefined);
    }
    const pending = openPage(options, undefined, prepare).catch(() => undefined);
    warm.set(key, pending);
    void pending.then((page) => {
      setTimeout(() => {
        if (warm.get(key) !== pending) return;
        warm.delete(key);
        void page?.close().catch(() => undefined);
      }, WARM_IDLE_MS).unref();
    });
  };
  const dropWarm = async () => {
    const pages = [...warm.values()];
    warm.clear();
    await Promise.all(pages.map((p) => p.then((page) => page?.close()).catch(() => undefined)));
  };
  const shared = createSharedContexts(async (options) => (await poolOf().newPage({ pageOptions: options })) as Page, opts.retireAfterPages);

  // Past the memory ceiling every open browser is retired: pages in flight finish, new ones get a fresh browser.
  const recycleIfHeavy = async () => {
    if (!pool || opts.maxMemoryBytes <= 0) return;
    if ((await descendantsRss()) <= opts.maxMemoryBytes) return;
    await dropWarm();
    await pool.retireAllBrowsers();
    await shared.retire();
  };
  // Pages through a proxy always get their own context.
  const attempt = async <T>(options: BrowserContextOptions, proxyUrl: string | undefined, fn: (page: Page) => Promise<T>, share?: string, prepare?: Preparation): Promise<T> => {
    await memoryCheck;
    const inShared = share && !proxyUrl ? await shared.page(share, options) : undefined;
    if (inShared) await prepare?.run(inShared.page).catch(async (err: unknown) => { await inShared.page.close().catch(() => undefined); await inShared.done(); throw err; });
    // Pages through a proxy, of a crawl, or recording video are opened for their request alone.
    const key = !inShared && !proxyUrl && !options.recordVideo ? `${prepare?.key ?? ''}\n${JSON.stringify(options)}` : undefined;
    const page = inShared?.page ?? (key ? await takeWarm(key) : undefined) ?? await openPage(options, proxyUrl, prepare);
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
      await inShared?.done();
      // Opened once this page is done: opening it alongside would slow this page's own work on a small machine.
      if (key) warmUp(key, options, prepare);
      // Measured after the answer has gone out; the next page waits for the verdict before it opens.
      memoryCheck = recycleIfHeavy().catch(() => undefined);
    }
  };
  // The browser went away under us: retire every disconnected one so that the pool launches a fresh browser.
  const dropDisconnected = () => {
    for (const controller of pool?.activeBrowserControllers ?? []) {
      if (!controller.browser.isConnected()) pool!.retireBrowserController(controller);
    }
  };
  return {
    async withPage(options, proxyUrl, signal, fn, retries = 1, share, prepare) {
      await slots.acquire(signal);
      try {
        for (let n = 0; ; n++) {
          try {
            return await attempt(options, proxyUrl, fn, share, prepare);
          } catch (err) {
            if (!isCrash(err) || n >= retries || signal.aborted) throw err;
            dropDisconnected();
            await new Promise((r) => setTimeout(r, 100 * 2 ** n));
          }
        }
      } finally {
        slots.release();
      }
    },
    stats: () => ({
      open: pool ? pool.activeBrowserControllers.size : 0,
      launched,
      contexts: pool ? [...pool.activeBrowserControllers].reduce((n, c) => n + (c.browser as { contexts(): unknown[] }).contexts().length, 0) : 0,
    }),
    closeShared: (share) => shared.retire(share),
    async close() {
      await dropWarm();
      shared.clear();
      await pool?.destroy();
      pool = undefined;
    },
  };
}
