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
  withPage<T>(options: BrowserContextOptions, proxyUrl: string | undefined, signal: AbortSignal, fn: (page: Page) => Promise<T>, retries?: number, share?: string): Promise<T>;
  /** Closes the contexts shared under `share` (a crawl's, when it ends). */
  closeShared(share: string): Promise<void>;
  /** Browsers open, launched in all, and contexts open (for tests of recycling, crash recovery and leaks). */
  stats(): { open: number; launched: number; contexts: number };
  close(): Promise<void>;
}

/** Settings of the browser side. */
export interface BrowsersOptions { concurrency: number; queueLimit: number; retireAfterPages: number; maxMemoryBytes: number; chromePath: string }

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
  const shared = createSharedContexts(async (options) => (await poolOf().newPage({ pageOptions: options })) as Page, opts.retireAfterPages);

  // Past the memory ceiling every open browser is retired: pages in flight finish, new ones get a fresh browser.
  const recycleIfHeavy = async () => {
    if (!pool || opts.maxMemoryBytes <= 0) return;
    if ((await descendantsRss()) <= opts.maxMemoryBytes) return;
    await pool.retireAllBrowsers();
    await shared.retire();
  };
  // Pages through a proxy always get their own context.
  const attempt = async <T>(options: BrowserContextOptions, proxyUrl: string | undefined, fn: (page: Page) => Promise<T>, share?: string): Promise<T> => {
    const browserPool = poolOf();
    await memoryCheck;
    const inShared = share && !proxyUrl ? await shared.page(share, options) : undefined;
    const page = inShared?.page ?? (await browserPool.newPage({ pageOptions: options, proxyUrl })) as Page;
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
      await inShared?.done();
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
    async withPage(options, proxyUrl, signal, fn, retries = 1, share) {
      await slots.acquire(signal);
      try {
        for (let n = 0; ; n++) {
          try {
            return await attempt(options, proxyUrl, fn, share);
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
      shared.clear();
      await pool?.destroy();
      pool = undefined;
    },
  };
}
