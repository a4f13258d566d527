// The library's promise: whatever fails around a caller (here its Chromium, killed with pages in flight, again and
// again), each extract() settles, a failure is a RefractError with a code, and nothing escapes as an unhandled
// rejection into the caller's process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { createEngine, loadConfig, isRefractError, type Engine } from '../../lib/index.ts';
import { descendantsOf, processTable } from '../../engine/browser/memory.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';

let fx: Fixture;
let engine: Engine;
const escaped: unknown[] = [];
const onEscape = (err: unknown) => {
  escaped.push(err);
};
/** Called when a page request reaches the fixture (the test kills the browser then). */
let arrived: () => void = () => {};

test.before(async () => {
  process.on('unhandledRejection', onEscape);
  fx = await serveFixtures({
    '/slow': (_: http.IncomingMessage, res: http.ServerResponse) => {
      arrived();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Slow</title></head><body><h1>Slow</h1></body></html>');
    },
  });
  engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-lib-')),
      REFRACT_BROWSER_WARM_PAGES: '2',
    }),
  });
});

test.after(async () => {
  await engine.close();
  await fx.close();
  process.off('unhandledRejection', onEscape);
});

const killChromium = async () => {
  for (const p of descendantsOf(await processTable(), process.pid))
    if (/chrom/i.test(p.comm)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
};

test('Chromium killed while four extract() calls are in flight, three times: each settles, every failure coded, nothing escapes', async () => {
  for (let round = 0; round < 3; round++) {
    let first!: () => void;
    const reached = new Promise<void>((resolve) => {
      first = resolve;
    });
    arrived = () => first();
    const calls = [1, 2, 3, 4].map((i) => engine.extract(`${fx.url}/slow?r=${round}&i=${i}`, 'screenshot&force'));
    // Killed at the first page's arrival: others are opening pages, navigating or capturing.
    await reached;
    await killChromium();
    const outcomes = await Promise.allSettled(calls);
    for (const o of outcomes) {
      if (o.status === 'rejected')
        assert.ok(isRefractError(o.reason) && typeof o.reason.code === 'string', `round ${round}: ${String(o.reason)}`);
      else assert.is(o.value.data.title, 'Slow');
    }
  }
  // A macrotask for any late rejection of the killed browser's promises to surface.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(escaped.map(String), []);
  arrived = () => {};
  const after = await engine.extract(`${fx.url}/slow?after`, 'screenshot&force');
  assert.ok(after.data.screenshot, 'a new browser serves the next request');
});

test.run();
