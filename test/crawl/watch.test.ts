// refract-test: beside
// (Beside the other files: it mostly waits for its schedule and for the CLI's processes.)
// The library's and the CLI's change tracking (issue 54, item 5): `watch()` reads a page of the test's own on a
// schedule and yields each report; `refract watch --once` is one read whose report is a JSON line; `refract monitor`
// drives a running server's monitors. The page changes between reads; a rotating ad left out by `changes.ignore`
// never counts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startCli } from '../util/cli.ts';
import { startRefract } from '../util/refract.ts';
import { createEngine, loadConfig, watch, isRefractError, type Engine } from '../../lib/index.ts';
import type { App } from '../../server/app.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-watch-'));
const page = { price: '19.99', status: 200, ads: 0 };
let fx: Fixture;
let engine: Engine;

test.before(async () => {
  fx = await serveFixtures({
    '/shop': (_, res) => {
      res.writeHead(page.status, { 'content-type': 'text/html' });
      res.end(
        `<html><head><title>Kettle</title></head><body><main><h1>Copper kettle</h1><p class="price">${page.price}</p><p>A copper kettle that whistles when the water boils, with a wooden handle that stays cool.</p><aside class="ad">Advert number ${page.ads++}</aside></main></body></html>`,
      );
    },
  });
  engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_DATA_DIR: path.join(dir, 'library'),
      REFRACT_LOG_LEVEL: 'silent',
    }),
  });
});

test.after(async () => {
  await engine?.close();
  await fx?.close();
});

const QUERY = 'data.price.selector=.price&changes.ignore=.ad';

test('watch() yields a report a read: new, then the changed field, and ends when aborted', async () => {
  const stop = new AbortController();
  const seen: string[] = [];
  for await (const report of watch(engine, `${fx.url}/shop`, { every: '1s', query: QUERY, signal: stop.signal })) {
    seen.push(report.status);
    if (seen.length === 1) {
      assert.is(report.status, 'new');
      assert.is(report.previousAt, null);
      page.price = '17.49';
    } else {
      assert.is(report.status, 'changed', JSON.stringify(report));
      assert.equal(report.diff!.fields, { price: { before: '19.99', after: '17.49' } }, 'the ad is left out');
      assert.match(report.diff!.content!, /-19\.99\n\+17\.49/);
      assert.ok(report.previousAt! < report.checkedAt);
      stop.abort();
    }
  }
  assert.equal(seen, ['new', 'changed'], 'the loop ended at the abort, without a throw');
});

test('watch() refuses a bad schedule before reading', async () => {
  const reads = page.ads;
  for (const options of [{ every: 10 }, { cron: 'often' }, {}, { every: '1s', query: 'data.x.selector=%5B%5B' }]) {
    try {
      await watch(engine, `${fx.url}/shop`, options).next();
      assert.unreachable(`accepted ${JSON.stringify(options)}`);
    } catch (err) {
      assert.ok(isRefractError(err), String(err));
      assert.is(err.code, 'EINVALDATA', `${JSON.stringify(options)}: ${err.message}`);
    }
  }
  assert.is(page.ads, reads, 'the page was not read');
});

test('refract watch --once prints the report; a failed read exits 1 and keeps the baseline', async () => {
  const env = { REFRACT_DATA_DIR: path.join(dir, 'cli') };
  const once = async () => {
    const cli = startCli(['watch', `${fx.url}/shop`, '--once', '--query', QUERY, '--tag', 'cli'], env);
    const code = await cli.exited;
    const lines = cli.stdoutText().trim().split('\n');
    assert.is(lines.length, 1, cli.stdoutText() + cli.stderrText());
    return { code, report: JSON.parse(lines[0]!) };
  };
  page.price = '5.00';
  const first = await once();
  assert.is(first.code, 0);
  assert.is(first.report.status, 'new');
  assert.is(first.report.tag, 'cli');
  page.status = 503;
  const failed = await once();
  assert.is(failed.code, 1);
  assert.is(failed.report.status, 'failed');
  assert.match(failed.report.reason, /503/);
  page.status = 200;
  page.price = '4.50';
  const changed = await once();
  assert.is(changed.code, 0);
  assert.is(changed.report.status, 'changed');
  assert.equal(changed.report.diff.fields, { price: { before: '5.00', after: '4.50' } });
  assert.is(changed.report.previousAt, first.report.checkedAt, 'compared with the last good read');
  const usage = startCli(['watch', `${fx.url}/shop`, '--every', '1s', '--once']);
  assert.is(await usage.exited, 2);
  assert.match(usage.stderrText(), /one of --every, --cron or --once/);
});

test('refract monitor adds, lists, shows and removes the monitors of a running Refract', async () => {
  const keys = path.join(dir, 'keys');
  writeFileSync(keys, 'cli-key 100\n');
  const app: App = await startRefract({
    REFRACT_API_KEYS: keys,
    REFRACT_DATA_DIR: path.join(dir, 'server'),
    REFRACT_MONITOR_MIN_INTERVAL: '1s',
  });
  try {
    const env = { REFRACT_ENDPOINT: app.proUrl, REFRACT_API_KEY: 'cli-key' };
    const run = async (...args: string[]) => {
      const cli = startCli(['monitor', ...args], env);
      const code = await cli.exited;
      return { code, out: cli.stdoutText(), err: cli.stderrText() };
    };
    const added = await run('add', `${fx.url}/shop`, '--every', '1h', '--query', QUERY);
    assert.is(added.code, 0, added.err);
    const monitor = JSON.parse(added.out);
    assert.match(monitor.id, /^mon_/);
    assert.is(monitor.every, 3_600_000);
    const listed = JSON.parse((await run('list')).out);
    assert.equal(
      listed.monitors.map((m: { id: string }) => m.id),
      [monitor.id],
    );
    assert.is(JSON.parse((await run('show', monitor.id)).out).url, `${fx.url}/shop`);
    assert.ok(Array.isArray(JSON.parse((await run('changes', monitor.id)).out).changes));
    const bad = await run('add', `${fx.url}/shop`, '--every', '10ms');
    assert.is(bad.code, 1);
    assert.match(bad.err, /EINVALDATA/);
    assert.is((await run('rm', monitor.id)).code, 0);
    const gone = await run('show', monitor.id);
    assert.is(gone.code, 1);
    assert.match(gone.err, /ENOTFOUND/);
    const keyless = startCli(['monitor', 'list'], { REFRACT_ENDPOINT: app.proUrl });
    assert.is(await keyless.exited, 2);
  } finally {
    await app.close();
  }
});

test.run();
