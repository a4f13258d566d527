import type IVM from 'isolated-vm';
import type { Page } from 'playwright-core';
import { RefractError, isRefractError } from '../../engine/index.ts';
import { pageCalls } from './bridge.ts';
import { PRELUDE } from './prelude.ts';

/** What user code may take: a memory ceiling for its isolate and a wall-clock budget for the whole run. */
export interface SandboxLimits {
  memoryMb: number;
  timeoutMs: number;
}

/** The outcome of user code: its JSON value, or the limit it reached (as Microlink reports it). */
export type Outcome =
  | { isFulfilled: true; value: unknown }
  | { isFulfilled: false; value: { name: string; message: string } };

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
    throw new RefractError('EINVALFUNCTION', `The \`function\` is marked ${kind}# but does not decompress`, {
      cause: err,
      data: { param: 'function' },
    });
  }
}

/**
 * Runs user code in a fresh V8 isolate (isolated-vm) with a memory ceiling and a time budget. The isolate has no
 * `process`, `require`, files, environment or network: only the `page` handle, whose calls are copied across
 * one callback. Compilation errors are EINVALFUNCTION, thrown errors EINVALEVAL; a limit gives isFulfilled false.
 */
export async function runInSandbox(
  source: string,
  page: Page,
  params: Record<string, unknown>,
  limits: SandboxLimits,
): Promise<Outcome> {
  // Loaded on first use: a library user who never runs `function` needs neither the native module nor the
  // `--no-node-snapshot` flag it requires.
  const { default: ivm } = await import('isolated-vm');
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
  let timer: NodeJS.Timeout | undefined;
  try {
    const context = await isolate.createContext();
    const calls = pageCalls(page);
    // The callback never rejects: a failure comes back as `{ error }` and the prelude throws it inside the isolate.
    // (A rejection arriving after the isolate was disposed would otherwise be unhandled in this process.)
    await context.global.set(
      '__bridge',
      new ivm.Reference(async (name: string, args: unknown[]) => {
        try {
          const fn = Object.hasOwn(calls, name) ? calls[name] : undefined;
          if (!fn) throw new TypeError(`page.${String(name)} is not available`);
          const value = await fn(...(Array.isArray(args) ? args : []));
          return {
            value:
              value === undefined ? null : value instanceof ArrayBuffer ? value : JSON.parse(JSON.stringify(value)),
          };
        } catch (err) {
          return { error: String((err as Error)?.message ?? err).split('\n')[0] };
        }
      }),
    );
    await context.eval(PRELUDE, { timeout: 1000 });
    await context.global.set('__params', new ivm.ExternalCopy(params).copyInto());
    let script: IVM.Script;
    try {
      script = await isolate.compileScript(
        `(async () => { const params = globalThis.__params; delete globalThis.__params; const fn = (${source}\n); if (typeof fn !== 'function') throw new TypeError('the function parameter must be a function'); return JSON.stringify(await fn({ page, ...params }) ?? null); })()`,
      );
    } catch (err) {
      throw new RefractError('EINVALFUNCTION', `The \`function\` does not compile: ${(err as Error).message}`, {
        data: { param: 'function' },
      });
    }
    // The run's synchronous part has its own timeout; the whole run (awaits included) is raced against the budget,
    // and past it the isolate is disposed, which stops whatever it still runs.
    const run = script.run(context, { timeout: limits.timeoutMs, promise: true, copy: true }) as Promise<string>;
    const budget = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            Object.assign(new Error(`The function ran past its ${limits.timeoutMs} ms budget`), {
              limit: 'TimeoutError',
            }),
          ),
        limits.timeoutMs,
      );
    });
    const text = await Promise.race([run, budget]);
    return { isFulfilled: true, value: JSON.parse(text) };
  } catch (err) {
    if (isRefractError(err)) throw err;
    const message = (err as Error)?.message ?? String(err);
    if ((err as { limit?: string }).limit === 'TimeoutError' || /timed out/i.test(message))
      return {
        isFulfilled: false,
        value: { name: 'TimeoutError', message: `The function ran past its ${limits.timeoutMs} ms budget` },
      };
    if (isolate.isDisposed || /memory limit|disposed/i.test(message))
      return {
        isFulfilled: false,
        value: { name: 'MemoryLimitError', message: `The function used more than ${limits.memoryMb} MB` },
      };
    throw new RefractError('EINVALEVAL', `The function threw: ${message.split('\n')[0]}`, {
      data: { param: 'function' },
    });
  } finally {
    clearTimeout(timer);
    if (!isolate.isDisposed) isolate.dispose();
  }
}
