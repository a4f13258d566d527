import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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

/** What a user agent says of the platform, as Chrome writes it. */
const PLATFORM: Record<string, string> = {
  linux: 'X11; Linux x86_64',
  darwin: 'Macintosh; Intel Mac OS X 10_15_7',
  win32: 'Windows NT 10.0; Win64; x64',
};
const run = promisify(execFile);
const agents = new Map<string, Promise<string | undefined>>();

/**
 * The user agent of the Chromium at `chromePath` as it sends it headed, in Chrome's reduced form (`Chrome/156.0.0.0`):
 * Crawlee's pool otherwise launches headless Chromium with a fixed agent of 2022 (`Chrome/107`), which pages saw and
 * PDFs named as their Creator, and Chromium's own headless agent says `HeadlessChrome`. Read once per binary, without
 * blocking (`chromium --version` takes 0.1-1.3 s), before the first launch.
 */
export function browserUserAgent(chromePath: string): Promise<string | undefined> {
  let agent = agents.get(chromePath);
  if (!agent) {
    const platform = PLATFORM[process.platform] ?? PLATFORM.linux;
    agent = run(chromePath, ['--version'], { encoding: 'utf8', timeout: 10_000 }).then(
      ({ stdout }) => {
        const major = /(\d+)\.\d+\.\d+\.\d+/.exec(stdout)?.[1];
        return (
          major &&
          `Mozilla/5.0 (${platform}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`
        );
      },
      // The launch itself says what is wrong with the binary.
      () => undefined,
    );
    agents.set(chromePath, agent);
  }
  return agent;
}

/** The flags for a launch with or without Chromium's sandbox. */
export const chromeArgs = (sandboxed: boolean): string[] =>
  sandboxed ? CHROME_ARGS.filter((a) => a !== '--no-sandbox') : CHROME_ARGS;

/** The flags for a launch of the Chromium at `chromePath`, with its own user agent when it is known. */
export async function launchArgs(sandboxed: boolean, chromePath: string): Promise<string[]> {
  const agent = await browserUserAgent(chromePath);
  return agent ? [...chromeArgs(sandboxed), `--user-agent=${agent}`] : chromeArgs(sandboxed);
}

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
  // Crawlee puts a plain forwarding proxy of its own before every browser (loopback included); the guard's takes its
  // place, so that every hop of every request the browser makes is checked. A local Chromium gets its own agent.
  const beforeLaunch = async (_pageId: string, launchContext: { launchOptions?: LaunchOptions }) => {
    const options = { ...launchContext.launchOptions, proxy: { server: await opts.proxyServer() } };
    const agent = opts.endpoints?.length ? undefined : await browserUserAgent(opts.chromePath);
    if (agent) options.args = [...(options.args ?? []), `--user-agent=${agent}`];
    launchContext.launchOptions = options;
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
    preLaunchHooks: [beforeLaunch as never],
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
