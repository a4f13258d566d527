// The browser pool, launched on first use, and its pages opened through the guard's proxy, on this machine or on a
// browser tier (browsers.ts hands them out).
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { BROWSER_POOL_EVENTS } from '@crawlee/browser-pool';
import { createBrowserPool, type RefractBrowserPool } from './pool.ts';
import { redact, isLoopbackEndpoint, type RemoteEndpoint } from './remote.ts';
import { RefractError } from '../kernel/errors.ts';
import type { BrowsersOptions, Preparation } from './browsers.ts';

/** Whether the browser's executable is there and may be run (a path, or a name found on PATH). */
export function executable(file: string): boolean {
  const candidates = file.includes('/')
    ? [file]
    : (process.env.PATH ?? '')
        .split(':')
        .filter(Boolean)
        .map((dir) => path.join(dir, file));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A new page from the pool. On a browser tier, a node that cannot be reached is skipped for the next one in turn
 * (each is tried at most once); with none reachable the answer is 503 EBUSY, which a client retries.
 */
export async function newPage(
  pool: RefractBrowserPool,
  endpoints: readonly RemoteEndpoint[] | undefined,
  options: { pageOptions: BrowserContextOptions; proxyUrl?: string },
  start = 0,
): Promise<Page> {
  if (!endpoints?.length) return (await pool.newPage(options)) as Page;
  // In turn from node `start`: the nodes that are up, then one being tried again, then those backing off (which
  // refuse at once); each is tried once.
  const rank = { up: 0, probation: 1, down: 2 };
  const order = endpoints
    .map((_, i) => (start + i) % endpoints.length)
    .sort((a, b) => rank[endpoints[a]!.state()] - rank[endpoints[b]!.state()]);
  let last: unknown;
  for (const i of order) {
    try {
      return (await pool.newPage({ ...options, browserPlugin: pool.browserPlugins[i] })) as Page;
    } catch (err) {
      last = err;
    }
  }
  throw new RefractError(
    'EBUSY',
    `No browser of the browser tier could open a page (${endpoints.map((e) => redact(e.url)).join(', ')}): ${(last as Error)?.message?.split('\n')[0] ?? 'unreachable'}`,
    { cause: last },
  );
}

/** The browser pool, launched on first use, and pages opened from it through the guard's proxy. */
export function createLauncher(opts: BrowsersOptions) {
  let pool: RefractBrowserPool | undefined;
  let launched = 0;
  let failed = false;
  /** Which node of the browser tier the next page starts looking at. */
  let turn = 0;
  const poolOf = (): RefractBrowserPool => {
    if (!pool) {
      pool = createBrowserPool({
        maxPagesPerBrowser: opts.concurrency * 2,
        retireAfterPages: opts.retireAfterPages,
        chromePath: opts.chromePath,
        sandbox: opts.sandbox,
        endpoints: opts.endpoints,
        proxyServer: opts.proxy.url,
      });
      pool.on(BROWSER_POOL_EVENTS.BROWSER_LAUNCHED, () => {
        launched++;
      });
    }
    return pool;
  };
  return {
    poolOf,
    /** A page for a shared context: the same spread over the browser tier, no preparation. */
    newPage: (options: BrowserContextOptions) => newPage(poolOf(), opts.endpoints, { pageOptions: options }, turn++),
    started: () => pool,
    launched: () => launched,
    failed: () => failed,
    async open(options: BrowserContextOptions, proxyUrl: string | undefined, prepare?: Preparation): Promise<Page> {
      let page: Page;
      // A caller's proxy is reached through the guard's, which checks each target first. That route is a proxy on
      // this machine's loopback (credentials are put in by a local relay), which a node on another host cannot reach.
      if (proxyUrl && opts.endpoints?.some((e) => !isLoopbackEndpoint(e.url))) {
        throw new RefractError(
          'EPROXY',
          'A `proxy` cannot be used by a browser of the browser tier on another host (REFRACT_BROWSER_ENDPOINTS): send the request with prerender=false, or to a process with a local Chromium',
        );
      }
      const route = proxyUrl ? await opts.proxy.via(proxyUrl) : undefined;
      try {
        page = await newPage(poolOf(), opts.endpoints, { pageOptions: options, proxyUrl: route?.url }, turn++);
        failed = false;
      } catch (err) {
        route?.release();
        if (!pool?.activeBrowserControllers.size) failed = true;
        throw err;
      }
      if (route) page.once('close', route.release);
      try {
        await prepare?.run(page);
      } catch (err) {
        await page.close().catch(() => undefined);
        throw err;
      }
      return page;
    },
    /** The browser went away under us: every disconnected one is retired, so that the pool launches a fresh one. */
    dropDisconnected() {
      for (const controller of pool?.activeBrowserControllers ?? []) {
        if (!controller.browser.isConnected()) pool!.retireBrowserController(controller);
      }
    },
    async destroy() {
      await pool?.destroy();
      pool = undefined;
    },
  };
}

export type Launcher = ReturnType<typeof createLauncher>;

/** Browsers open, launched in all, and contexts open. */
export function poolStats(launcher: Launcher): { open: number; launched: number; contexts: number } {
  const pool = launcher.started();
  const controllers = pool ? [...pool.activeBrowserControllers] : [];
  const contexts = controllers.reduce((n, c) => n + (c.browser as { contexts(): unknown[] }).contexts().length, 0);
  return { open: controllers.length, launched: launcher.launched(), contexts };
}
