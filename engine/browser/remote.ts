import { lookup } from 'node:dns/promises';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import pTimeout from 'p-timeout';

/**
 * A browser on the browser tier: `ws://` / `wss://` speak Playwright's protocol (`chromium.launchServer()`,
 * `refract browser-server`, Browserless's Playwright route), `cdp+ws://` / `cdp+http://` speak CDP
 * (`connectOverCDP`). A node that cannot be reached, or that hangs, is `down` for a backoff (0.5 s doubling to 30 s);
 * when it ends, a connection is tried in the background, and until one succeeds the node is only tried by a request
 * that no node that is `up` could serve. A request never waits on a node that just failed while another one works.
 */
export interface RemoteEndpoint {
  /** The URL as configured. */
  readonly url: string;
  /** A connected browser; throws (at once while backing off) when the endpoint is unreachable. */
  connect(): Promise<Browser>;
  /** `up`: its last connection held; `probation`: it failed lately and is being tried again; `down`: backing off. */
  state(): 'up' | 'probation' | 'down';
}

const SCHEMES = /^(ws|wss|cdp\+ws|cdp\+wss|cdp\+http|cdp\+https):\/\//i;
/** The URL a configured endpoint is reached at (without its `cdp+` mark). */
const targetOf = (url: string) => url.replace(/^cdp\+/i, '');
/** An endpoint's host name (an IPv6 address without brackets). */
const hostOf = (url: string) => new URL(targetOf(url)).hostname.replace(/^\[|\]$/g, '');
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** How often a connected browser of the tier is asked for a sign of life, and how long it has to give one. */
const HEARTBEAT_MS = 1000;
const HEARTBEAT_TIMEOUT_MS = 3000;

/** The endpoints of REFRACT_BROWSER_ENDPOINTS; a malformed one fails the start with what is wrong. */
export function parseEndpoints(urls: readonly string[], timeoutMs = 5000): RemoteEndpoint[] {
  return urls.map((url) => {
    if (!SCHEMES.test(url) || !URL.canParse(targetOf(url))) {
      throw new Error(
        `REFRACT_BROWSER_ENDPOINTS entries are ws://, wss://, cdp+ws:// or cdp+http:// URLs, got "${url}"`,
      );
    }
    return createEndpoint(url, timeoutMs);
  });
}

function createEndpoint(url: string, timeoutMs: number): RemoteEndpoint {
  const cdp = /^cdp\+/i.test(url);
  const target = targetOf(url);
  let failures = 0;
  let until = 0;
  let probe: NodeJS.Timeout | undefined;
  const open = () =>
    cdp ? chromium.connectOverCDP(target, { timeout: timeoutMs }) : chromium.connect(target, { timeout: timeoutMs });
  const up = () => {
    failures = 0;
    clearTimeout(probe);
    probe = undefined;
  };
  const fail = () => {
    failures++;
    const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
    until = Date.now() + wait;
    // When the backoff ends, a connection in the background says whether the node is back.
    clearTimeout(probe);
    probe = setTimeout(() => {
      probe = undefined;
      open().then(
        (browser) => {
          up();
          void browser.close().catch(() => undefined);
        },
        () => {
          if (failures) fail();
        },
      );
    }, wait);
    probe.unref();
  };
  return {
    url,
    state: () => (!failures ? 'up' : Date.now() < until ? 'down' : 'probation'),
    async connect() {
      if (Date.now() < until)
        throw new Error(`The browser endpoint ${redact(url)} is down; tried again in ${until - Date.now()} ms`);
      let browser: Browser;
      try {
        browser = await open();
      } catch (err) {
        fail();
        throw err;
      }
      // A browser that goes away is not yet a node that is down (the pool retires browsers itself): the next
      // connection says, and only a failed one starts the backoff.
      up();
      // A node that hangs (a frozen machine, a partition) closes nothing: its pages would wait for their deadlines.
      watch(browser, fail, async () => {
        // Busy or hung? A busy node (screenshots holding its browser's thread) still takes a new connection.
        const fresh = await open().catch(() => undefined);
        await fresh?.close().catch(() => undefined);
        return !!fresh;
      });
      return browser;
    },
  };
}

/** Rejects when `promise` takes longer than `ms` (a hung peer answers nothing, not even an error). */
const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  pTimeout(promise, { milliseconds: ms, message: new HungError() });
class HungError extends Error {
  constructor() {
    super('no sign of life');
  }
}

/**
 * Asks a connected browser for its version over a CDP session every HEARTBEAT_MS. One that gives no answer within
 * HEARTBEAT_TIMEOUT_MS is hung unless `alive` (a new connection to its node) says otherwise: a node busy with
 * screenshots answered late while it served every page (it was dropped, and its pages with it). A hung one's
 * endpoint backs off and the connection is dropped, so that every call waiting on it fails at once as a crash
 * (which withPage retries on another node within the request's deadline). A browser that cannot open a CDP session
 * (another kind of endpoint) is not watched.
 */
function watch(browser: Browser, hung: () => void, alive: () => Promise<boolean>): void {
  let session: CDPSession | undefined;
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    void (async () => {
      try {
        session ??= await within(browser.newBrowserCDPSession(), HEARTBEAT_TIMEOUT_MS);
        await within(session.send('Browser.getVersion'), HEARTBEAT_TIMEOUT_MS);
      } catch (err) {
        if (err instanceof HungError && browser.isConnected() && (await alive())) return;
        clearInterval(timer);
        if (!(err instanceof HungError) || !browser.isConnected()) return;
        hung();
        void browser.close().catch(() => undefined);
      } finally {
        asking = false;
      }
    })();
  }, HEARTBEAT_MS);
  timer.unref();
  browser.once('disconnected', () => clearInterval(timer));
}

/** An endpoint URL without credentials or tokens, for messages and logs. */
export function redact(url: string): string {
  const plain = targetOf(url);
  if (!URL.canParse(plain)) return 'a browser endpoint';
  const u = new URL(plain);
  return `${url.slice(0, url.length - plain.length)}${u.protocol}//${u.host}`;
}

/** Whether an endpoint's host is this machine's loopback (by name or address). */
export function isLoopbackEndpoint(url: string): boolean {
  const host = hostOf(url);
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * The addresses of the endpoints' hosts (and loopback): the only clients the guard's proxy serves when it listens
 * beyond loopback for a browser tier, so that it is never an open proxy.
 */
export async function endpointAddresses(endpoints: readonly RemoteEndpoint[]): Promise<Set<string>> {
  const out = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
  await Promise.all(
    endpoints.map(async (e) => {
      for (const a of await lookup(hostOf(e.url), { all: true }).catch(() => [])) {
        out.add(a.address);
        if (a.family === 4) out.add(`::ffff:${a.address}`);
      }
    }),
  );
  return out;
}

/**
 * What Crawlee's Playwright plugin launches for a remote endpoint: a browser type whose `launch` connects (the
 * launch options are the browser tier's business; the guard's proxy reaches each context as its context proxy).
 */
export function remoteBrowserType(endpoint: RemoteEndpoint) {
  return { name: () => 'chromium', launch: () => endpoint.connect(), executablePath: () => endpoint.url };
}
