import { BrowserPool, PlaywrightPlugin } from '@crawlee/browser-pool';
import { chromium, type LaunchOptions } from 'playwright-core';
import { remoteBrowserType, type RemoteEndpoint } from './remote.ts';

/**
 * Flags for a closed network without background traffic; `--no-sandbox` unless the sandbox is used (`chromeArgs`).
 * `--block-new-web-contents` makes `window.open` fail in the page: a popup storm creates no targets for this process
 * to attach to and close (it kept the event loop busy past the request's deadline). WebRTC may use only connections
 * through the proxy (the SSRF guard's): its UDP (STUN, TURN, peers) went straight to any address a page named.
 */
export const CHROME_ARGS = [
  '--block-new-web-contents',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  '--no-default-browser-check',
  '--metrics-recording-only',
  '--password-store=basic',
  '--hide-scrollbars',
  '--font-render-hinting=none',
];

/** The flags for a launch with or without Chromium's sandbox. */
export const chromeArgs = (sandboxed: boolean): string[] =>
  sandboxed ? CHROME_ARGS.filter((a) => a !== '--no-sandbox') : CHROME_ARGS;

/** Settings of the browser pool. */
export interface PoolOptions {
  maxPagesPerBrowser: number;
  retireAfterPages: number;
  chromePath: string;
  /** Launch with Chromium's sandbox (see sandbox.ts). */
  sandbox?: boolean;
  /** Remote browsers to connect to instead of launching Chromium (pages are spread over them in turn). */
  endpoints?: readonly RemoteEndpoint[];
  /** The forward proxy every connection of the browsers goes through (the SSRF guard's, see guard-proxy.ts). */
  proxyServer(): Promise<string>;
}

/** The private member of Crawlee's BrowserPool that opens pages one at a time (a test pins that it is used). */
export interface PoolLimiter {
  limiter: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Creates Crawlee's browser pool over playwright-core and Chromium: one incognito context per page. */
export function createBrowserPool(opts: PoolOptions) {
  const useGuardProxy = async (_pageId: string, launchContext: { launchOptions?: LaunchOptions }) => {
    launchContext.launchOptions = { ...launchContext.launchOptions, proxy: { server: await opts.proxyServer() } };
  };
  const pool = new BrowserPool({
    browserPlugins: opts.endpoints?.length
      ? opts.endpoints.map(
          (e) =>
            new PlaywrightPlugin(remoteBrowserType(e) as unknown as typeof chromium, {
              launchOptions: {},
              useIncognitoPages: true,
            }),
        )
      : [
          new PlaywrightPlugin(chromium, {
            launchOptions: {
              executablePath: opts.chromePath,
              args: chromeArgs(!!opts.sandbox),
              chromiumSandbox: !!opts.sandbox,
              headless: true,
            },
            useIncognitoPages: true,
          }),
        ],
    maxOpenPagesPerBrowser: opts.maxPagesPerBrowser,
    retireBrowserAfterPageCount: opts.retireAfterPages,
    closeInactiveBrowserAfterSecs: 300,
    useFingerprints: false,
    // Crawlee puts a plain forwarding proxy of its own before every browser (loopback included); the guard's
    // takes its place, so that every hop of every request the browser makes is checked.
    preLaunchHooks: [useGuardProxy as never],
  });
  // Crawlee opens pages one at a time (a limiter of 1), so that concurrent calls do not each launch a browser. A
  // fresh incognito context costs 100-300 ms, and one at a time that made every page wait for the others'. Only a
  // call that may launch a browser (none is active) waits for the ones before it; the rest open their contexts at
  // once (callers bound the pages in flight below a browser's page limit).
  let serial: Promise<unknown> = Promise.resolve();
  (pool as unknown as PoolLimiter).limiter = <T>(fn: () => Promise<T>): Promise<T> => {
    if (pool.activeBrowserControllers.size > 0) return serial.then(fn);
    const run = serial.then(fn);
    serial = run.catch(() => undefined);
    return run;
  };
  return pool;
}

/** Crawlee's pool as this engine uses it. */
export type RefractBrowserPool = ReturnType<typeof createBrowserPool>;
