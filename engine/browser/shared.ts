import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

/** A page in a shared context, and what to call once it is closed. */
export interface SharedPage {
  page: Page;
  done(): Promise<void>;
}

/** Contexts shared by the pages of one key (a crawl's), like one crawler session. */
export interface SharedContexts {
  page(share: string, options: BrowserContextOptions): Promise<SharedPage>;
  /** Retires the contexts of one key (a crawl that ended), or every one (memory ran high). */
  retire(share?: string): Promise<void>;
  clear(): void;
}

interface Entry {
  holder: Page;
  context: BrowserContext;
  served: number;
  open: number;
  retired: boolean;
}

/**
 * Each shared context lives in a browser of the pool, kept busy by a first page from the pool (`holderPage`), so
 * the pool neither closes nor counts that browser idle; pages of the same key open in the context directly. Like
 * the pool's browsers, a context is replaced after `retireAfterPages` pages: it takes no new pages and closes
 * once its last page has. A context whose browser went away is made again.
 */
export function createSharedContexts(
  holderPage: (options: BrowserContextOptions) => Promise<Page>,
  retireAfterPages: number,
): SharedContexts {
  const shared = new Map<string, Promise<Entry>>();
  const closeIfIdle = async (entry: Entry) => {
    if (!entry.retired || entry.open > 0) return;
    await entry.context.close().catch(() => undefined);
    await entry.holder.close().catch(() => undefined);
  };
  const retire = (key: string, pending: Promise<Entry>, entry: Entry) => {
    if (shared.get(key) === pending) shared.delete(key);
    entry.retired = true;
    return closeIfIdle(entry);
  };
  const open = (key: string, options: BrowserContextOptions): Promise<Entry> => {
    let pending = shared.get(key);
    if (!pending) {
      pending = (async () => {
        const holder = await holderPage(options);
        const browser = holder.context().browser();
        if (!browser) throw new Error('browser has been closed');
        return { holder, context: await browser.newContext(options), served: 0, open: 0, retired: false };
      })();
      shared.set(key, pending);
    }
    return pending;
  };
  return {
    async page(share, options) {
      const key = `${share}\n${JSON.stringify(options)}`;
      const pending = open(key, options);
      let entry: Entry | undefined;
      try {
        entry = await pending;
        entry.open++;
        // The page that fills its quota retires the context: no new page goes to it, and it closes after its last.
        if (++entry.served >= retireAfterPages) await retire(key, pending, entry);
        const page = await entry.context.newPage().catch((err: unknown) => {
          entry!.open--;
          throw err;
        });
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
        if (entry) await retire(key, pending, entry);
        else if (shared.get(key) === pending) shared.delete(key);
        throw err;
      }
    },
    async retire(share) {
      const mine = [...shared.entries()].filter(([key]) => share === undefined || key.startsWith(`${share}\n`));
      await Promise.all(
        mine.map(([key, pending]) =>
          pending.then(
            (entry) => retire(key, pending, entry),
            () => undefined,
          ),
        ),
      );
    },
    clear: () => shared.clear(),
  };
}
