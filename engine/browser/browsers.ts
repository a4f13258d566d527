import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { RefractError } from '../errors.ts';
import { BROWSER_POOL_EVENTS } from '@crawlee/browser-pool';
import { createBrowserPool } from './pool.ts';
import { descendantsRss } from './memory.ts';

/** Pages of the browser pool, handed out under a concurrency bound with a bounded queue and crash retries. */
export interface Browsers {
  /** Runs `fn` on a fresh page in its own incognito context; the page is closed afterwards whatever happens. */
  withPage<T>(options: BrowserContextOptions, proxyUrl: string | undefined, signal: AbortSignal, fn: (page: Page) => Promise<T>, retries?: number, share?: string): Promise<T>;
  /** Closes the contexts shared under `share` (a crawl's, when it ends). */
  closeShared(share: string): Promise<void>;
  /** Browsers open, launched in all, and contexts open (for tests of recycling, crash recovery and leaks). */
  stats(): { open: number; launched: number; contexts: number };
  close(): Promise<void>;
}

/** Settings of the browser side. */
export interface BrowsersOptions { concurrency: number; queueLimit: number; retireAfterPages: number; maxMemoryBytes: number }

const CRASH = /target (page, context or browser )?(has been )?closed|browser has (been )?(closed|disconnected)|browser closed|crash|protocol error|websocket error|econnreset|not connected/i;

/** True for failures caused by the browser going away rather than by the page. */
export function isCrash(err: unknown): boolean {
  return err instanceof Error && !(err instanceof RefractError) && CRASH.test(err.message);
}

/** Creates the browser side; Chromium starts on first use. */
export function createBrowsers(opts: BrowsersOptions): Browsers {
  let pool: ReturnType<typeof createBrowserPool> | undefined;
  let active = 0;
  let launched = 0;
  let memoryCheck: Promise<void> | undefined;
  const waiting: (() => void)[] = [];
  const acquire = async (signal: AbortSignal) => {
    if (active < opts.concurrency) { active++; return; }
    if (waiting.length >= opts.queueLimit) {
      throw new RefractError('EBUSY', `All ${opts.concurrency} browser slots are busy and ${waiting.length} requests are waiting; retry shortly`);
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => { waiting.splice(waiting.indexOf(go), 1); reject(new RefractError('ETIMEOUT', 'The request timed out waiting for a browser')); };
      const go = () => { signal.removeEventListener('abort', onAbort); active++; resolve(); };
      waiting.push(go);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  // Shared contexts: each lives in a browser of the pool, kept busy by a first page from the pool (so the pool
  // neither closes nor counts that browser idle); pages of the same key open in the context directly. A context
  // whose browser went away is dropped and made again. Pages through a proxy always get their own context.
  const shared = new Map<string, Promise<{ holder: Page; context: BrowserContext }>>();
  const sharedPage = async (share: string, options: BrowserContextOptions): Promise<Page> => {
    const key = `${share}\n${JSON.stringify(options)}`;
    let entry = shared.get(key);
    if (!entry) {
      entry = (async () => {
        const holder = (await pool!.newPage({ pageOptions: options })) as Page;
        const browser = holder.context().browser();
        if (!browser) throw new Error('browser has been closed');
        return { holder, context: await browser.newContext(options) };
      })();
      shared.set(key, entry);
    }
    try {
      return await (await entry).context.newPage();
    } catch (err) {
      if (shared.get(key) === entry) shared.delete(key);
      throw err;
    }
  };
  const attempt = async <T>(options: BrowserContextOptions, proxyUrl: string | undefined, fn: (page: Page) => Promise<T>, share?: string): Promise<T> => {
    if (!pool) {
      pool = createBrowserPool({ maxPagesPerBrowser: opts.concurrency * 2, retireAfterPages: opts.retireAfterPages });
      pool.on(BROWSER_POOL_EVENTS.BROWSER_LAUNCHED, () => { launched++; });
    }
    await memoryCheck;
    const page = share && !proxyUrl ? await sharedPage(share, options) : (await pool.newPage({ pageOptions: options, proxyUrl })) as Page;
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
      // Measured after the answer has gone out; the next page waits for the verdict before it opens.
      memoryCheck = recycleIfHeavy().catch(() => undefined);
    }
  };
  // Past the memory ceiling every open browser is retired: pages in flight finish, new ones get a fresh browser.
  const recycleIfHeavy = async () => {
    if (!pool || opts.maxMemoryBytes <= 0) return;
    if ((await descendantsRss()) > opts.maxMemoryBytes) await pool.retireAllBrowsers();
  };
  return {
    async withPage(options, proxyUrl, signal, fn, retries = 1, share) {
      await acquire(signal);
      try {
        for (let n = 0; ; n++) {
          try {
            return await attempt(options, proxyUrl, fn, share);
          } catch (err) {
            if (!isCrash(err) || n >= retries || signal.aborted) throw err;
            // The browser went away under us: retire every disconnected one so the pool launches a fresh
            // browser, back off, then try again.
            for (const controller of pool?.activeBrowserControllers ?? []) {
              if (!controller.browser.isConnected()) pool!.retireBrowserController(controller);
            }
            await new Promise((r) => setTimeout(r, 100 * 2 ** n));
          }
        }
      } finally {
        release();
      }
    },
    stats: () => ({ open: pool ? pool.activeBrowserControllers.size : 0, launched, contexts: pool ? [...pool.activeBrowserControllers].reduce((n, c) => n + (c.browser as { contexts(): unknown[] }).contexts().length, 0) : 0 }),
    async closeShared(share) {
      const mine = [...shared.entries()].filter(([key]) => key.startsWith(`${share}\n`));
      for (const [key] of mine) shared.delete(key);
      await Promise.all(mine.map(([, entry]) => entry.then(async ({ holder, context }) => {
        await context.close().catch(() => undefined);
        await holder.close().catch(() => undefined);
      }, () => undefined)));
    },
    async close() {
      shared.clear();
      await pool?.destroy();
      pool = undefined;
    },
  };
}
