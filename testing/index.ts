// `refract-api/testing`: what a plugin author needs to test a plugin end to end, through the real HTTP API,
// against pages served on loopback (no network, no mocks).
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig, type Plugin } from '../engine/index.ts';

/** A page of the testbed: HTML text (served as text/html), or a handler for anything else. */
export type TestPage = string | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

/** A running testbed: your pages on loopback, the real server with your plugins, and a way to call it. */
export interface Testbed {
  /** The absolute URL of one of your pages (`testbed.url('/article')`). */
  url(pagePath: string): string;
  /**
   * Calls the API for a page with query options written as the API takes them
   * (`call('/article', 'wordCount.selector=main')` or an object of options); resolves with the HTTP status,
   * the headers and the parsed JSON body.
   */
  call(
    pagePath: string,
    query?: string | Record<string, string | number | boolean>,
    // biome-ignore lint/suspicious/noExplicitAny: the answer's JSON, read as the test pleases.
  ): Promise<{ status: number; headers: Headers; body: any }>;
  /** The free endpoint's base URL, for calls of your own. */
  api: string;
  close(): Promise<void>;
}

/**
 * Starts a testbed: serves `pages` on 127.0.0.1, starts Refract with the built-in plugins plus yours on free
 * ports, with the SSRF guard allowing loopback for these pages only, and quiet logs. Close it when done.
 */
export async function startTestbed(
  opts: { plugins?: Plugin[]; pages?: Record<string, TestPage>; env?: Record<string, string> } = {},
): Promise<Testbed> {
  const pages = opts.pages ?? {};
  const server = http.createServer((req, res) => {
    const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
    if (typeof page === 'function') return page(req, res);
    if (typeof page === 'string') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><head><title>Not found</title></head><body>Not found</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Imported here so that loading `refract-api/testing` costs nothing until a testbed starts.
  const { startApp } = await import('../server/app.ts');
  const app = await startApp(
    loadConfig({
      PORT: '0',
      PRO_PORT: '0',
      HOST: '127.0.0.1',
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_FREE_QUOTA: '1000000',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-testbed-')),
      ...opts.env,
    }),
    opts.plugins ?? [],
  );
  const url = (pagePath: string) => new URL(pagePath, base).href;
  return {
    url,
    api: app.freeUrl,
    async call(pagePath, query = '') {
      const params =
        typeof query === 'string'
          ? new URLSearchParams(query)
          : new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
      params.set('url', url(pagePath));
      const res = await fetch(`${app.freeUrl}/?${params}`);
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* an embed answers raw */
      }
      return { status: res.status, headers: res.headers, body };
    },
    async close() {
      await app.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
