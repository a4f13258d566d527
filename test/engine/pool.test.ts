// engine/browser/pool.ts replaces a private member of Crawlee's BrowserPool (`limiter`, which opens pages one at
// a time). These tests pin the Crawlee behaviour that relies on: the member exists, and every page goes through it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BrowserPool, PlaywrightPlugin } from '@crawlee/browser-pool';
import { chromium } from 'playwright-core';
import { loadConfig } from '../../engine/kernel/config.ts';
import { createBrowserPool, CHROME_ARGS, type PoolLimiter } from '../../engine/browser/pool.ts';
import { createGuardProxy } from '../../engine/browser/guard-proxy.ts';
import { createGuard } from '../../engine/fetch/guard.ts';

const chromePath = loadConfig().chromePath;

test('Crawlee BrowserPool still has the private limiter this engine replaces', async () => {
  const bare = new BrowserPool({
    browserPlugins: [
      new PlaywrightPlugin(chromium, { launchOptions: { executablePath: chromePath, args: CHROME_ARGS } }),
    ],
  });
  try {
    assert.type((bare as unknown as PoolLimiter).limiter, 'function');
  } finally {
    await bare.destroy();
  }
});

test('every page of the pool opens through the replaced limiter, and pages open concurrently once a browser is up', async () => {
  const pool = createBrowserPool({
    maxPagesPerBrowser: 8,
    retireAfterPages: 100,
    chromePath,
    proxyServer: createGuardProxy(createGuard(['127.0.0.1'])).url,
  });
  const replaced = (pool as unknown as PoolLimiter).limiter;
  let calls = 0;
  (pool as unknown as PoolLimiter).limiter = (fn) => {
    calls++;
    return replaced(fn);
  };
  try {
    const first = await pool.newPage();
    assert.is(calls, 1);
    // With a browser up, three pages open at once: none waits for another's context to be made.
    let inFlight = 0;
    let most = 0;
    const track = <T>(fn: () => Promise<T>) =>
      replaced(async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await fn();
        } finally {
          inFlight--;
        }
      });
    (pool as unknown as PoolLimiter).limiter = (fn) => {
      calls++;
      return track(fn);
    };
    const pages = await Promise.all([pool.newPage(), pool.newPage(), pool.newPage()]);
    assert.is(calls, 4);
    assert.is(most, 3);
    await Promise.all([first, ...pages].map((p) => p.close()));
  } finally {
    await pool.destroy();
  }
});

test.run();
