import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Plugin } from '../../engine/index.ts';
import { startApp, type App } from '../../server/app.ts';
import type { Clock } from '../../engine/store/state.ts';

/** A clock that moves only when told: quota windows and cache ages are tested without sleeping. */
export function manualClock(
  start = Date.UTC(2026, 0, 31, 23, 0, 0),
): Clock & { advance(ms: number): void; set(t: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (v) => {
      t = v;
    },
  };
}

/** Starts the real Refract server on ephemeral ports with the loopback allowlist and extra environment. */
// As server/main.ts does for the real process: a rejection nobody handled (Playwright's, when a remote browser or its
// target goes away) is logged, not the end of the process and of every test after it.
let logging = false;
function logUnhandled(): void {
  if (logging) return;
  logging = true;
  process.on('unhandledRejection', (err) =>
    console.error('unhandled rejection (the server logs it and goes on):', err),
  );
}

export async function startRefract(
  env: Record<string, string> = {},
  plugins: Plugin[] = [],
  opts: { clock?: Clock } = {},
): Promise<App> {
  const config = loadConfig({
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_LOG_LEVEL: process.env.REFRACT_LOG_LEVEL ?? 'silent',
    REFRACT_FREE_QUOTA: '100000',
    REFRACT_API_KEYS: 'test-key',
    REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-assets-')),
    REFRACT_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-data-')),
    // Another Chromium build may be tried under the suite (the image's headless shell: CHROME_PATH=...).
    ...(process.env.CHROME_PATH ? { CHROME_PATH: process.env.CHROME_PATH } : {}),
    ...env,
  });
  logUnhandled();
  return startApp(config, plugins, opts);
}

/** Calls Refract and returns status, headers and the parsed JSON body (or raw bytes when not JSON). */
export async function call(base: string, query: string, init: RequestInit = {}) {
  const res = await fetch(`${base}/?${query}`, init);
  const buf = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? JSON.parse(buf.toString('utf8')) : buf;
  return { status: res.status, headers: res.headers, body, raw: buf };
}

/** Escapes a target URL as a query value. */
export const q = (url: string): string => encodeURIComponent(url);
