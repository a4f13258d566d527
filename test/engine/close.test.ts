// engine.close() while a request is in flight in the browser: the request ends at once with EBUSY, and nothing the
// engine started is left behind (no Chromium, no pipe, no socket, no timer holding the process).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { createEngine, loadConfig } from '../../lib/index.ts';

let fx: Fixture;
const waiting: ServerResponse[] = [];
let arrived: () => void = () => undefined;

test.before(async () => {
  fx = await serveFixtures({
    // Answers its headers and a start, then nothing more until the test ends: a page the browser is still loading.
    '/loading': (_: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Loading</title></head><body><p>Still coming');
      waiting.push(res);
      arrived();
    },
  });
});

test.after(async () => {
  for (const res of waiting) res.destroy();
  await fx.close();
});

/** The handles of this process that are not timers, by type, counted. */
const handles = () => {
  const count: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) count[name] = (count[name] ?? 0) + 1;
  return count;
};

test('engine.close() with a screenshot in flight: EBUSY at once, and no handle of the engine left', async () => {
  const before = handles();
  const engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-close-')),
      REFRACT_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-close-data-')),
    }),
  });
  const inBrowser = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const pending = engine.extract(`${fx.url}/loading`, 'screenshot&meta=false&prerender=true&timeout=25s');
  const outcome = pending.then(
    () => ({ code: 'none' }),
    (err: { code?: string; message?: string }) => ({ code: err.code, message: err.message }),
  );
  await inBrowser;
  const closing = performance.now();
  await engine.close();
  const result = await outcome;
  const ms = performance.now() - closing;
  assert.is(result.code, 'EBUSY', JSON.stringify(result));
  assert.ok(ms < 5000, `closed and answered in ${Math.round(ms)} ms`);
  for (const res of waiting) res.destroy();
  waiting.length = 0;
  // What the engine opened is closed: its Chromium (a process and its pipes), its sockets and servers.
  const after = handles();
  const left = Object.entries(after)
    .filter(([name, n]) => name !== 'Timeout' && n > (before[name] ?? 0))
    .map(([name, n]) => `${name} x${n - (before[name] ?? 0)}`);
  assert.equal(left, []);
});

test.run();
