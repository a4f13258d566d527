// The library's crawl() when its Chromium is killed mid-crawl: the pages in flight end (a result, or a typed
// failure), the pages after them are served by a new browser, and the engine serves an extract afterwards.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { sitePages } from '../util/site.ts';
import { createEngine, crawl, loadConfig, type CrawlResult, type Engine } from '../../lib/index.ts';

let fx: Fixture;
let engine: Engine;

test.before(async () => {
  fx = await serveFixtures({}, sitePages(20));
  engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-recover-')),
    }),
  });
});

test.after(async () => {
  await engine.close();
  await fx.close();
});

/** Kills every Chromium this process started (SIGKILL: a crash, as the OOM killer does it). */
function killChromium(): number {
  const found = spawnSync('pgrep', ['-P', String(process.pid), '-f', 'chromium'])
    .stdout.toString()
    .trim();
  const pids = found ? found.split('\n').map(Number) : [];
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  return pids.length;
}

test('a crawl whose Chromium is killed mid-way: every page ends, the later ones with their screenshot, and the engine serves on', async () => {
  const results: CrawlResult[] = [];
  const started = performance.now();
  let killed = 0;
  for await (const r of crawl(
    engine,
    { start: `${fx.url}/site/p/0` },
    // A page in flight when Chromium dies may take until its deadline: 10 s here.
    { query: 'screenshot&meta.title&timeout=10s', maxPages: 20, concurrency: 4, include: [`${fx.url}/site/p/**`] },
  )) {
    results.push(r);
    if (results.length === 4) killed = killChromium();
  }
  const seconds = (performance.now() - started) / 1000;
  assert.ok(killed > 0, 'a Chromium was killed');
  const failed = results.filter((r) => r.status !== 'success');
  for (const r of failed)
    assert.ok((r as { code?: string }).code, `a typed failure: ${JSON.stringify(r).slice(0, 200)}`);
  assert.ok(failed.length <= 4, `at most the pages in flight failed: ${failed.length} of ${results.length}`);
  const after = results.slice(8);
  assert.ok(
    after.every((r) => r.status === 'success'),
    `the pages after the kill succeed: ${JSON.stringify(after.filter((r) => r.status !== 'success')).slice(0, 300)}`,
  );
  assert.ok(seconds < 40, `the crawl ended in ${seconds.toFixed(1)} s`);
  const later = await engine.extract(`${fx.url}/site/p/1`, 'screenshot&meta=false&force');
  assert.ok(
    (later.data as { screenshot?: { url: string } }).screenshot?.url,
    'an extract afterwards has its screenshot',
  );
});

test.run();
