import ivm from 'isolated-vm';
import type { Page } from 'playwright-core';
import { RefractError } from '../../engine/index.ts';

/** What user code may take: a memory ceiling for its isolate and a wall-clock budget for the whole run. */
export interface SandboxLimits { memoryMb: number; timeoutMs: number }

/** The outcome of user code: its JSON value, or the limit it reached (as Microlink reports it). */
export type Outcome = { isFulfilled: true; value: unknown } | { isFulfilled: false; value: { name: string; message: string } };

const MAX_WAIT_MS = 10_000;

/** Arguments from the isolate arrive as copies; each is checked before it reaches Playwright. */
const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string') throw new TypeError(`${name} must be a string`);
  return v;
};
const num = (v: unknown, name: string, max: number): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new TypeError(`${name} must be a non-negative number`);
  return Math.min(v, max);
};

/**
 * The page calls user code may make, host side. They take and return plain copies only (strings, numbers,
 * JSON values, bytes); no Playwright object ever crosses into the isolate. Navigation and every request the
 * page makes still pass the SSRF guard installed on the page.
 */
function pageCalls(page: Page): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const script = (source: unknown, args: unknown) => `(${str(source, 'the function')})(...${JSON.stringify(Array.isArray(args) ? args : [])})`;
  return {
    goto: async (url, opts) => {
      const res = await page.goto(str(url, 'url'), { waitUntil: (opts as { waitUntil?: 'load' } | undefined)?.waitUntil ?? 'load', timeout: MAX_WAIT_MS });
      return res ? { status: res.status(), url: res.url() } : null;
    },
    evaluate: async (source, args) => page.evaluate(script(source, args)),
    evalOn: async (selector, source, args) => page.locator(str(selector, 'selector')).first()
      .evaluate((el, [src, params]) => (0, eval)(`(${src})`)(el, ...(params as unknown[])), [str(source, 'the function'), Array.isArray(args) ? args : []] as const, { timeout: MAX_WAIT_MS }),
    evalOnAll: async (selector, source, args) => page.locator(str(selector, 'selector'))
      .evaluateAll((els, [src, params]) => (0, eval)(`(${src})`)(els, ...(params as unknown[])), [str(source, 'the function'), Array.isArray(args) ? args : []] as const),
    click: async (selector) => { await page.click(str(selector, 'selector'), { timeout: MAX_WAIT_MS }); },
    type: async (selector, text) => { await page.locator(str(selector, 'selector')).first().pressSequentially(str(text, 'text'), { timeout: MAX_WAIT_MS }); },
    fill: async (selector, text) => { await page.fill(str(selector, 'selector'), str(text, 'text'), { timeout: MAX_WAIT_MS }); },
    press: async (selector, key) => { await page.press(str(selector, 'selector'), str(key, 'key'), { timeout: MAX_WAIT_MS }); },
    hover: async (selector) => { await page.hover(str(selector, 'selector'), { timeout: MAX_WAIT_MS }); },
    waitForSelector: async (selector, opts) => {
      const timeout = num((opts as { timeout?: unknown } | undefined)?.timeout ?? MAX_WAIT_MS, 'timeout', MAX_WAIT_MS);
      await page.waitForSelector(str(selector, 'selector'), { timeout });
      return true;
    },
    waitForTimeout: async (ms) => { await page.waitForTimeout(num(ms, 'milliseconds', MAX_WAIT_MS)); },
    waitForLoadState: async (state) => { await page.waitForLoadState((state as 'load' | undefined) ?? 'load', { timeout: MAX_WAIT_MS }); },
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
const PRELUDE = `
const bridge = globalThis.__bridge;
delete globalThis.__bridge;
// Everything the call path uses is captured now, before user code can patch a prototype: the options objects
// have no prototype and are frozen (an inherited "reference" flag could otherwise hand out host references).
const reflectApply = Reflect.apply;
const applyRef = bridge.apply;
const bare = (o) => Object.freeze(Object.assign(Object.create(null), o));
const OPTIONS = bare({ arguments: bare({ copy: true }), result: bare({ promise: true, copy: true }) });
const call = async (name, args) => {
  const out = await reflectApply(applyRef, bridge, [undefined, [name, args], OPTIONS]);
  if (out.error !== undefined) throw new Error(out.error);
  return out.value;
};
const src = (fn) => String(fn);
const page = Object.freeze({
  goto: (url, opts) => call('goto', [url, opts ?? null]),
  evaluate: (fn, ...args) => call('evaluate', [typeof fn === 'function' ? src(fn) : '() => (' + String(fn) + ')', args]),
  $eval: (selector, fn, ...args) => call('evalOn', [selector, src(fn), args]),
  $$eval: (selector, fn, ...args) => call('evalOnAll', [selector, src(fn), args]),
  click: (selector) => call('click', [selector]),
  type: (selector, text) => call('type', [selector, text]),
  fill: (selector, text) => call('fill', [selector, text]),
  press: (selector, key) => call('press', [selector, key]),
  hover: (selector) => call('hover', [selector]),
  waitForSelector: (selector, opts) => call('waitForSelector', [selector, opts ?? null]),
  waitForTimeout: (ms) => call('waitForTimeout', [ms]),
  waitForLoadState: (state) => call('waitForLoadState', [state ?? null]),
  content: () => call('content', []),
  title: () => call('title', []),
  url: () => call('url', []),
  screenshot: (opts) => call('screenshot', [opts ?? null]).then((buf) => new Uint8Array(buf)),
});
globalThis.page = page;
`;

/** Decodes the function as Microlink's client may send it: plain, or `br#`/`gz#` (base64) or `lz#` (lz-string). */
export async function decodeSource(raw: string): Promise<string> {
  const m = /^(br|gz|lz)#([\s\S]*)$/.exec(raw);
  if (!m) return raw;
  const [, kind, body] = m;
  try {
    if (kind === 'lz') {
      const { default: LZString } = await import('lz-string');
      const out = LZString.decompressFromEncodedURIComponent(body!) ?? LZString.decompressFromBase64(body!);
      if (!out) throw new Error('empty');
      return out;
    }
    const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
    const bytes = Buffer.from(body!.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return (kind === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes)).toString('utf8');
  } catch (err) {
    throw new RefractError('EINVALFUNCTION', `The \`function\` is marked ${kind}# but does not decompress`, { cause: err, data: { param: 'function' } });
  }
}

/**
 * Runs user code in a fresh V8 isolate (isolated-vm) with a memory ceiling and a time budget. The isolate has no
 * `process`, `require`, files, environment or network: only the `page` handle, whose calls are copied across
 * one callback. Compilation errors are EINVALFUNCTION, thrown errors EINVALEVAL; a limit gives isFulfilled false.
 */
export async function runInSandbox(source: string, page: Page, params: Record<string, unknown>, limits: SandboxLimits): Promise<Outcome> {
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
  let timer: NodeJS.Timeout | undefined;
  try {
    const context = await isolate.createContext();
    const calls = pageCalls(page);
    // The callback never rejects: a failure comes back as `{ error }` and the prelude throws it inside the isolate.
    // (A rejection arriving after the isolate was disposed would otherwise be unhandled in this process.)
    await context.global.set('__bridge', new ivm.Reference(async (name: string, args: unknown[]) => {
      try {
        const fn = Object.hasOwn(calls, name) ? calls[name] : undefined;
        if (!fn) throw new TypeError(`page.${String(name)} is not available`);
        const value = await fn(...(Array.isArray(args) ? args : []));
        return { value: value === undefined ? null : value instanceof ArrayBuffer ? value : JSON.parse(JSON.stringify(value)) };
      } catch (err) {
        return { error: String((err as Error)?.message ?? err).split('\n')[0] };
      }
    }));
    await context.eval(PRELUDE, { timeout: 1000 });
    await context.global.set('__params', new ivm.ExternalCopy(params).copyInto());
    let script: ivm.Script;
    try {
      script = await isolate.compileScript(`(async () => { const params = globalThis.__params; delete globalThis.__params; const fn = (${source}\n); if (typeof fn !== 'function') throw new TypeError('the function parameter must be a function'); return JSON.stringify(await fn({ page, ...params }) ?? null); })()`);
    } catch (err) {
      throw new RefractError('EINVALFUNCTION', `The \`function\` does not compile: ${(err as Error).message}`, { data: { param: 'function' } });
    }
    // The run's synchronous part has its own timeout; the whole run (awaits included) is raced against the budget,
    // and past it the isolate is disposed, which stops whatever it still runs.
    const run = script.run(context, { timeout: limits.timeoutMs, promise: true, copy: true }) as Promise<string>;
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`The function ran past its ${limits.timeoutMs} ms budget`), { limit: 'TimeoutError' })), limits.timeoutMs);
    });
    const text = await Promise.race([run, budget]);
    return { isFulfilled: true, value: JSON.parse(text) };
  } catch (err) {
    if (err instanceof RefractError) throw err;
    const message = (err as Error)?.message ?? String(err);
    if ((err as { limit?: string }).limit === 'TimeoutError' || /timed out/i.test(message)) return { isFulfilled: false, value: { name: 'TimeoutError', message: `The function ran past its ${limits.timeoutMs} ms budget` } };
    if (isolate.isDisposed || /memory limit|disposed/i.test(message)) return { isFulfilled: false, value: { name: 'MemoryLimitError', message: `The function used more than ${limits.memoryMb} MB` } };
    throw new RefractError('EINVALEVAL', `The function threw: ${message.split('\n')[0]}`, { data: { param: 'function' } });
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
