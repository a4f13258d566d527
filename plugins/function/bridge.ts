import type { Page } from 'playwright-core';

const MAX_WAIT_MS = 10_000;

/** Arguments from the isolate arrive as copies; each is checked before it reaches Playwright. */
const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string') throw new TypeError(`${name} must be a string`);
  return v;
};
const num = (v: unknown, name: string, max: number): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new TypeError(`${name} must be a non-negative number`);
  return Math.min(v, max);
};

/**
 * The only addresses user code may navigate to: http(s) (relative ones against the page's), which the SSRF guard then
 * checks. A browser's own pages (`chrome://version` shows its command line and profile path), files, `data:`,
 * `view-source:` and the like are refused: a navigation the caller starts is the browser's, which no web page may
 * start, so nothing else would stop it.
 */
function webAddress(url: string, base: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url, base.startsWith('http') ? base : undefined);
  } catch {
    throw new TypeError(`page.goto: not a URL: ${JSON.stringify(url.slice(0, 200))}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TypeError(`page.goto: only http and https addresses can be opened, not ${parsed.protocol}`);
  return parsed.href;
}

/**
 * The page calls user code may make, host side. They take and return plain copies only (strings, numbers,
 * JSON values, bytes); no Playwright object ever crosses into the isolate. Navigation and every request the
 * page makes still pass the SSRF guard installed on the page.
 */
export function pageCalls(page: Page): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const script = (source: unknown, args: unknown) =>
    `(${str(source, 'the function')})(...${JSON.stringify(Array.isArray(args) ? args : [])})`;
  return {
    goto: async (url, opts) => {
      const res = await page.goto(webAddress(str(url, 'url'), page.url()), {
        waitUntil: (opts as { waitUntil?: 'load' } | undefined)?.waitUntil ?? 'load',
        timeout: MAX_WAIT_MS,
      });
      return res ? { status: res.status(), url: res.url() } : null;
    },
    evaluate: async (source, args) => page.evaluate(script(source, args)),
    evalOn: async (selector, source, args) =>
      page
        .locator(str(selector, 'selector'))
        .first()
        .evaluate(
          // biome-ignore lint/security/noGlobalEval: in the browser page, the caller's function is the point (indirect eval: the page's global scope).
          // biome-ignore lint/complexity/noCommaOperator: `(0, eval)` is an indirect eval, run in the global scope.
          (el, [src, params]) => (0, eval)(`(${src})`)(el, ...(params as unknown[])),
          [str(source, 'the function'), Array.isArray(args) ? args : []] as const,
          { timeout: MAX_WAIT_MS },
        ),
    evalOnAll: async (selector, source, args) =>
      page
        .locator(str(selector, 'selector'))
        // biome-ignore lint/security/noGlobalEval: in the browser page, the caller's function is the point (indirect eval: the page's global scope).
        // biome-ignore lint/complexity/noCommaOperator: `(0, eval)` is an indirect eval, run in the global scope.
        .evaluateAll((els, [src, params]) => (0, eval)(`(${src})`)(els, ...(params as unknown[])), [
          str(source, 'the function'),
          Array.isArray(args) ? args : [],
        ] as const),
    click: async (selector) => {
      await page.click(str(selector, 'selector'), { timeout: MAX_WAIT_MS });
    },
    type: async (selector, text) => {
      await page
        .locator(str(selector, 'selector'))
        .first()
        .pressSequentially(str(text, 'text'), { timeout: MAX_WAIT_MS });
    },
    fill: async (selector, text) => {
      await page.fill(str(selector, 'selector'), str(text, 'text'), { timeout: MAX_WAIT_MS });
    },
    press: async (selector, key) => {
      await page.press(str(selector, 'selector'), str(key, 'key'), { timeout: MAX_WAIT_MS });
    },
    hover: async (selector) => {
      await page.hover(str(selector, 'selector'), { timeout: MAX_WAIT_MS });
    },
    waitForSelector: async (selector, opts) => {
      const timeout = num((opts as { timeout?: unknown } | undefined)?.timeout ?? MAX_WAIT_MS, 'timeout', MAX_WAIT_MS);
      await page.waitForSelector(str(selector, 'selector'), { timeout });
      return true;
    },
    waitForTimeout: async (ms) => {
      await page.waitForTimeout(num(ms, 'milliseconds', MAX_WAIT_MS));
    },
    waitForLoadState: async (state) => {
      await page.waitForLoadState((state as 'load' | undefined) ?? 'load', { timeout: MAX_WAIT_MS });
    },
    content: async () => page.content(),
    title: async () => page.title(),
    url: async () => page.url(),
    screenshot: async (opts) => {
      const o = (opts ?? {}) as { fullPage?: unknown; type?: unknown };
      const bytes = await page.screenshot({ fullPage: o.fullPage === true, type: o.type === 'jpeg' ? 'jpeg' : 'png' });
      // An ArrayBuffer is copied into the isolate as bytes; the prelude hands it out as a Uint8Array.
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    },
  };
}

// Runs first in the context: builds the `page` handle over the one bridge callback, then removes the bridge
// from the global object, so user code can reach it only through these wrappers. Functions given to
// evaluate are sent as source text and run in the page, never in this process.
