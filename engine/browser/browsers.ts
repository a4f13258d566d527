import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { RefractError } from '../errors.ts';
import { BROWSER_POOL_EVENTS } from '@crawlee/browser-pool';
import { createBrowserPool } from './pool.ts';
import { descendantsRss } from './memory.ts';

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
  // neither closes nor counts that browser idle); pages of the same key open in the context directly. Like the
  // pool's browsers, a shared context is replaced after `retireAfterPages` pages or when memory runs high: it
  // takes no new pages and closes once its last page has. A context whose browser went away is made again.
  // Pages through a proxy always get their own context.
  interface Shared { holder: Page; context: BrowserContext; served: number; open: number; retired: boolean }
  const shared = new Map<string, Promise<Shared>>();
  const closeIfIdle = async (entry: Shared) => {
    if (!entry.retired || entry.open > 0) return;
    await entry.context.close().catch(() => undefined);
    await entry.holder.close().catch(() => undefined);
  };
  const retireShared = (key: string, pending: Promise<Shared>, entry: Shared) => {
    if (shared.get(key) === pending) shared.delete(key);
    entry.retired = true;
    return closeIfIdle(entry);
  };
  const sharedPage = async (share: string, options: BrowserContextOptions): Promise<{ page: Page; done(): Promise<void> }> => {
    const key = `${share}\n${JSON.stringify(options)}`;
    let pending = shared.get(key);
    if (!pending) {
      pending = (async () => {
        const holder = (await pool!.newPage({ pageOptions: options })) as Page;
        const browser = holder.context().browser();
        if (!browser) throw new Error('browser has been closed');
        return { holder, context: await browser.newContext(options), served: 0, open: 0, retired: false };
      })();
      shared.set(key, pending);
    }
    let entry: Shared | undefined;
    try {
      entry = await pending;
      entry.open++;
      // The page that fills its quota retires the context: no new page goes to it, and it closes after its last.
      if (++entry.served >= opts.retireAfterPages) await retireShared(key, pending, entry);
      const page = await entry.context.newPage().catch((err: unknown) => { entry!.open--; throw err; });
      const mine = entry;
      return {
        page,
        done: async () => {
          mine.open--;
          await closeIfIdle(mine);
        },
      };
    } catch (err) {
      // The context (or its browser) is broken: the next page makes a new one.
      if (entry) await retireShared(key, pending, entry);
      else if (shared.get(key) === pending) shared.delete(key);
      throw err;
    }
  };
  const attempt = async <T>(options: BrowserContextOptions, proxyUrl: string | undefined, fn: (page: Page) => Promise<T>, share?: string): Promise<T> => {
    if (!pool) {
      pool = createBrowserPool({ maxPagesPerBrowser: opts.concurrency * 2, retireAfterPages: opts.retireAfterPages });
      pool.on(BROWSER_POOL_EVENTS.BROWSER_LAUNCHED, () => { launched++; });
    }
    await memoryCheck;
    const inShared = share && !proxyUrl ? await sharedPage(share, options) : undefined;
    const page = inShared?.page ?? (await pool.newPage({ pageOptions: options, proxyUrl })) as Page;
    try {
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
      await inShared?.done();
      // Measured after the answer has gone out; the next page waits for the verdict before it opens.
      memoryCheck = recycleIfHeavy().catch(() => undefined);
    }
  };
  // Past the memory ceiling every open browser is retired: pages in flight finish, new ones get a fresh browser.
  const recycleIfHeavy = async () => {
    if (!pool || opts.maxMemoryBytes <= 0) return;
    if ((await descendantsRss()) <= opts.maxMemoryBytes) return;
    await pool.retireAllBrowsers();
    await Promise.all([...shared.entries()].map(([key, pending]) => pending.then((entry) => retireShared(key, pending, entry), () => undefined)));
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
      await Promise.all(mine.map(([key, pending]) => pending.then((entry) => retireShared(key, pending, entry), () => undefined)));
    },
    async close() {
      shared.clear();
      await pool?.destroy();
      pool = undefined;
    },
  };
}
