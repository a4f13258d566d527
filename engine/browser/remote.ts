import { lookup } from 'node:dns/promises';
import { chromium, type Browser } from 'playwright-core';

/**
 * A browser on the browser tier: `ws://` / `wss://` speak Playwright's protocol (`chromium.launchServer()`,
 * `refract browser-server`, Browserless's Playwright route), `cdp+ws://` / `cdp+http://` speak CDP
 * (`connectOverCDP`). One that cannot be reached is left alone for a backoff (0.5 s doubling to 30 s) while pages go
 * elsewhere.
 */
export interface RemoteEndpoint {
  /** The URL as configured. */
  readonly url: string;
  /** A connected browser; throws (at once while backing off) when the endpoint is unreachable. */
  connect(): Promise<Browser>;
  /** Whether it may be tried now (not backing off). */
  usable(): boolean;
}

const SCHEMES = /^(ws|wss|cdp\+ws|cdp\+wss|cdp\+http|cdp\+https):\/\//i;
/** The URL a configured endpoint is reached at (without its `cdp+` mark). */
const targetOf = (url: string) => url.replace(/^cdp\+/i, '');
/** An endpoint's host name (an IPv6 address without brackets). */
const hostOf = (url: string) => new URL(targetOf(url)).hostname.replace(/^\[|\]$/g, '');
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** The endpoints of REFRACT_BROWSER_ENDPOINTS; a malformed one fails the start with what is wrong. */
export function parseEndpoints(urls: readonly string[], timeoutMs = 10_000): RemoteEndpoint[] {
  return urls.map((url) => {
    if (!SCHEMES.test(url) || !URL.canParse(targetOf(url))) {
      throw new Error(`REFRACT_BROWSER_ENDPOINTS entries are ws://, wss://, cdp+ws:// or cdp+http:// URLs, got "${url}"`);
    }
    return createEndpoint(url, timeoutMs);
  });
}

function createEndpoint(url: string, timeoutMs: number): RemoteEndpoint {
  const cdp = /^cdp\+/i.test(url);
  const target = targetOf(url);
  let failures = 0;
  let until = 0;
  const fail = () => {
    failures++;
    until = Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
  };
  return {
    url,
    usable: () => Date.now() >= until,
    async connect() {
      if (Date.now() < until) throw new Error(`The browser endpoint ${redact(url)} is down; tried again in ${until - Date.now()} ms`);
      let browser: Browser;
      try {
        browser = cdp ? await chromium.connectOverCDP(target, { timeout: timeoutMs }) : await chromium.connect(target, { timeout: timeoutMs });
      } catch (err) {
        fail();
        throw err;
      }
      // A browser that goes away is not yet a node that is down (the pool retires browsers itself): the next
      // connection says, and only a failed one starts the backoff.
      failures = 0;
      return browser;
    },
  };
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
  await Promise.all(endpoints.map(async (e) => {
    for (const a of await lookup(hostOf(e.url), { all: true }).catch(() => [])) {
      out.add(a.address);
      if (a.family === 4) out.add(`::ffff:${a.address}`);
    }
  }));
  return out;
}

/**
 * What Crawlee's Playwright plugin launches for a remote endpoint: a browser type whose `launch` connects (the
 * launch options are the browser tier's business; the guard's proxy reaches each context as its context proxy).
 */
export function remoteBrowserType(endpoint: RemoteEndpoint) {
  return { name: () => 'chromium', launch: () => endpoint.connect(), executablePath: () => endpoint.url };
}
