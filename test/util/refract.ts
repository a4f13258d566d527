import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createEngine,
  loadConfig,
  serverTiming,
  systemClock,
  type Config,
  type ServiceEngine as Engine,
  type Plugin,
} from '../../engine/index.ts';
import { enginePlugins } from '../../lib/compose.ts';
import { startApp, type App } from '../../server/app.ts';
import { createHandler, type HandlerRequest, type HandlerResponse } from '../../server/handler.ts';
import { createKeyRing } from '../../server/keys.ts';
import { createQuota } from '../../server/quota.ts';
import { fetchAsset } from '../../server/asset.ts';
import { logRejections } from '../../server/rejections.ts';
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
// As server/main.ts does for the real process (server/rejections.ts): a rejection nobody handled (Playwright's, when a
// remote browser or its target goes away; Lighthouse's, when a page closes under a navigation it follows) is logged,
// not the end of the test's process and of every test after it. The servers and handlers run in that process.
const holdRejections = () =>
  logRejections({ error: (message, err) => console.error(`${message} (the server logs it and goes on):`, err) });

/** The configuration every test server starts with: ephemeral ports, the loopback allowlist, a key, fresh folders. */
function testConfig(env: Record<string, string>): Config {
  return loadConfig({
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
}

export async function startRefract(
  env: Record<string, string> = {},
  plugins: Plugin[] = [],
  opts: { clock?: Clock } = {},
): Promise<App> {
  holdRejections();
  return startApp(testConfig(env), plugins, opts);
}

/** The API's handler: a request in, a response out, with no socket. */
export type Handle = (req: HandlerRequest) => Promise<HandlerResponse>;

/** The API without its server: the engine, plugins, quotas and keys `startApp` composes, and its two handlers. */
export interface Handlers {
  engine: Engine;
  free: Handle;
  pro: Handle;
  /** A file an answer links (a screenshot, a PDF), read from the asset store as the server serves it. */
  file(url: string): Promise<{ contentType: string; body: Buffer }>;
  close(): Promise<void>;
}

/**
 * Composes the API as the server does (the built-in plugins, REFRACT_PLUGINS and `plugins`; quotas; keys), with no
 * socket: for tests of what the API answers, where the server's own part (sockets, compression, draining) is not
 * what is tested. Generated files are linked under PUBLIC_URL (http://refract.test unless `env` says).
 */
export async function startHandlers(
  env: Record<string, string> = {},
  plugins: Plugin[] = [],
  opts: { clock?: Clock } = {},
): Promise<Handlers> {
  const config = testConfig({ PUBLIC_URL: 'http://refract.test', ...env });
  const clock = opts.clock ?? systemClock;
  const engine = await createEngine({ config, plugins: await enginePlugins(config, plugins), clock });
  holdRejections();
  const deps = {
    engine,
    quota: createQuota(engine.shared.counters, clock),
    keys: createKeyRing(config.apiKeys),
    docsUrl: `${config.publicUrl}/docs/errors`,
    clock,
  };
  return {
    engine,
    free: createHandler({ ...deps, tier: 'free' }),
    pro: createHandler({ ...deps, tier: 'pro' }),
    file: (url) => fetchAsset(url, engine),
    close: () => engine.close(),
  };
}

/**
 * Calls Refract and returns status, headers and the parsed JSON body (or raw bytes when not JSON): over HTTP when
 * `base` is a server's address, or through a handler of `startHandlers` (from 127.0.0.1).
 */
export async function call(base: string | Handle, query: string, init: RequestInit = {}) {
  let status: number;
  let headers: Headers;
  let buf: Buffer;
  if (typeof base === 'string') {
    const res = await fetch(`${base}/?${query}`, init);
    status = res.status;
    headers = res.headers;
    buf = Buffer.from(await res.arrayBuffer());
  } else {
    const res = await base({
      method: init.method ?? 'GET',
      url: `/?${query}`,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      ip: '127.0.0.1',
    });
    status = res.status;
    headers = new Headers(res.headers);
    // Where the answer's time went, as the server says it (server/respond.ts).
    if (res.phases) headers.set('server-timing', serverTiming(res.phases));
    buf = res.stream ? Buffer.concat(await res.stream.toArray()) : Buffer.from(res.body);
  }
  const type = headers.get('content-type') ?? '';
  const body = type.includes('json') && buf.length ? JSON.parse(buf.toString('utf8')) : buf;
  return { status, headers, body, raw: buf };
}

/** Escapes a target URL as a query value. */
export const q = (url: string): string => encodeURIComponent(url);
