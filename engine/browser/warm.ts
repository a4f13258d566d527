import type { Page } from 'playwright-core';

/** An idle page is closed after this long. */
const IDLE_MS = 60_000;

/**
 * Pages ready for a request, by kind (context options and preparation), oldest first, at most `limit` in all. A
 * new context and its renderer process cost ~360 ms of CPU and ~150 ms of wall time, most of a simple capture: a
 * page that served a request is reset and parked for the next request of its kind; when it cannot be reset, a fresh
 * page is opened ahead of need instead, while the next request is still on its way.
 */
export interface WarmPages {
  /** The oldest live page of this kind, if any (dead ones are closed on the way). */
  take(key: string): Promise<Page | undefined>;
  /** Parks a page (or one being made) for the next request of its kind; the oldest goes past the limit. */
  park(key: string, pending: Promise<Page | undefined>): void;
  /** Closes every parked page. */
  drop(): Promise<void>;
  /** Closes the parked pages `which` picks (those of a retired browser, which then closes with its last page). */
  dropWhere(which: (page: Page) => boolean): Promise<void>;
}

export function createWarmPages(limit: number): WarmPages {
  const idle = new Map<string, Promise<Page | undefined>[]>();
  let count = 0;
  const unpark = (key: string, pending: Promise<Page | undefined>): boolean => {
    const list = idle.get(key);
    const at = list?.indexOf(pending) ?? -1;
    if (at < 0) return false;
    list!.splice(at, 1);
    if (!list!.length) idle.delete(key);
    count--;
    return true;
  };
  const close = (pending: Promise<Page | undefined>) => void pending.then((p) => p?.close()).catch(() => undefined);
  return {
    async take(key) {
      for (let pending = idle.get(key)?.[0]; pending; pending = idle.get(key)?.[0]) {
        unpark(key, pending);
        const page = await pending;
        if (page && !page.isClosed() && page.context().browser()?.isConnected()) return page;
        await page?.close().catch(() => undefined);
      }
      return undefined;
    },
    park(key, pending) {
      while (count >= limit) {
        const [oldestKey, list] = idle.entries().next().value!;
        const oldest = list[0]!;
        unpark(oldestKey, oldest);
        close(oldest);
      }
      const list = idle.get(key) ?? [];
      idle.set(key, list);
      list.push(pending);
      count++;
      setTimeout(() => {
        if (unpark(key, pending)) close(pending);
      }, IDLE_MS).unref();
    },
    async dropWhere(which) {
      for (const [key, list] of [...idle]) {
        for (const pending of [...list]) {
          const page = await pending.catch(() => undefined);
          if (page && !which(page)) continue;
          if (unpark(key, pending)) await page?.close().catch(() => undefined);
        }
      }
    },
    async drop() {
      const pages = [...idle.values()].flat();
      idle.clear();
      count = 0;
      await Promise.all(pages.map((p) => p.then((page) => page?.close()).catch(() => undefined)));
    },
  };
}
