// Change tracking through the API's handlers (issue 54, item 1; the server adds nothing to it): a page of the test's own changes between reads; the
// report's status, its content diff and its field diffs are exact; a 5xx and a challenge page neither count as a
// change nor move the baseline; `changes.ignore` hides a rotating ad; tags keep separate histories; another key sees
// none of it; the baselines outlive a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'refract-changes-'));
const keyFile = path.join(dataDir, 'keys');
let fx: Fixture;
let app: Handlers;
/** The page's state, changed by the tests between reads. */
const page = { price: '19.99', delivery: 'Free delivery on orders over 50 EUR.', mode: 'ok', ad: 0, banner: '#2a9d8f' };

const html = () =>
  `<!doctype html><html><head><title>Iron teapot | Tea Shop</title><meta name="description" content="A cast iron teapot."></head><body><main><h1>Iron teapot</h1><p class="price">${page.price}</p><p>A cast iron teapot that keeps tea hot for an hour, enamelled inside so that it never rusts, with a steel strainer.</p><p>${page.delivery}</p><div class="ad">Ad number ${++page.ad}: a kettle of the week.</div></main></body></html>`;

test.before(async () => {
  writeFileSync(keyFile, 'alpha-key 500\nbeta-key 500\n');
  fx = await serveFixtures({
    // A page whose banner's colour is all that changes (the visual diff; the text is the same).
    '/shop/banner': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><html><head><title>Sale</title><style>body{margin:0;font:16px sans-serif}.banner{height:300px;background:${page.banner}}</style></head><body><div class="banner"></div><main><h1>Summer sale</h1><p>Every teapot of the shop at a lower price this week, while the stock lasts.</p></main></body></html>`,
      );
    },
    '/shop/teapot': (_, res) => {
      if (page.mode === '503') {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><head><title>Down for maintenance</title></head><body><p>Back soon.</p></body></html>');
      } else if (page.mode === 'challenge') {
        res.writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge', server: 'cloudflare' });
        res.end('<html><head><title>Just a moment...</title></head><body>Checking your browser.</body></html>');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(html());
      }
    },
  });
  app = await startHandlers({ REFRACT_DATA_DIR: dataDir, REFRACT_API_KEYS: keyFile });
});

test.after(async () => {
  await app?.close();
  await fx?.close();
});

const target = () => q(`${fx.url}/shop/teapot`);
/** A read with `changes` on the free endpoint (or the pro one with a key); its report. */
async function read(options: string, key?: string) {
  const res = await call(
    key ? app.pro : app.free,
    `url=${target()}&prerender=false&data.price.selector=.price&changes${options}`,
    key ? { headers: { 'x-api-key': key } } : {},
  );
  return { ...res, report: res.body?.data?.changes };
}
/** The lines a unified diff takes away and adds. */
const lines = (diff: string, mark: '-' | '+') =>
  diff
    .split('\n')
    .filter((l) => l.startsWith(mark))
    .map((l) => l.slice(1));

test('the first read is new, a read of the same page is the same; ignore hides a rotating ad, a tag keeps its own history', async () => {
  const first = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(first.status, 200, JSON.stringify(first.body).slice(0, 300));
  assert.is(first.report.status, 'new');
  assert.is(first.report.previousAt, null);
  assert.is(first.report.tag, 'quiet');
  assert.is(first.report.snapshot, undefined, 'the snapshot is not answered');
  const second = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(second.report.status, 'same', JSON.stringify(second.report));
  assert.is(second.report.previousAt, first.report.checkedAt);
  assert.is(second.headers.get('x-cache-status'), 'BYPASS', 'a change is judged on a fresh read');

  // Without `ignore` (another tag, another history) the ad's rotation is a change of the content, and of nothing else.
  assert.is((await read('&changes.tag=plain')).report.status, 'new');
  const plain = await read('&changes.tag=plain');
  assert.is(plain.report.status, 'changed');
  assert.equal(plain.report.diff.fields, {});
  assert.equal(lines(plain.report.diff.content, '-'), ['-- before', `Ad number ${page.ad - 1}: a kettle of the week.`]);
  assert.equal(lines(plain.report.diff.content, '+'), ['++ after', `Ad number ${page.ad}: a kettle of the week.`]);
});

test('a change of price and text: the field diff and the content diff, exact', async () => {
  page.price = '17.49';
  page.delivery = 'Free delivery on orders over 30 EUR.';
  const { report } = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(report.status, 'changed', JSON.stringify(report));
  assert.equal(report.diff.fields, { price: { before: '19.99', after: '17.49' } });
  assert.equal(lines(report.diff.content, '-'), ['-- before', '19.99', 'Free delivery on orders over 50 EUR.']);
  assert.equal(lines(report.diff.content, '+'), ['++ after', '17.49', 'Free delivery on orders over 30 EUR.']);
  assert.match(report.diff.content, /^@@ -\d+,\d+ \+\d+,\d+ @@/m);
});

test('a 5xx and a challenge page are never a change and never move the baseline', async () => {
  const before = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(before.report.status, 'same');
  page.mode = '503';
  const down = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(down.status, 200);
  assert.is(down.report.status, 'failed');
  assert.match(down.report.reason, /answered 503; the last good read stays the baseline/);
  assert.is(down.report.previousAt, before.report.checkedAt);
  assert.is(down.report.diff, undefined);
  page.mode = 'challenge';
  const blocked = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is.not(blocked.status, 200, 'a challenge page is refused');
  page.mode = 'ok';
  const after = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(after.report.status, 'same', JSON.stringify(after.report));
  assert.is(after.report.previousAt, before.report.checkedAt, 'compared with the last good read');
});

test("another key sees none of a key's history; bad options are refused before any fetch", async () => {
  assert.is((await read('', 'alpha-key')).report.status, 'new');
  assert.is((await read('', 'alpha-key')).report.status, 'changed', 'the ad rotated');
  assert.is((await read('', 'beta-key')).report.status, 'new', "beta sees none of alpha's reads");
  const hits = fx.hits.length;
  for (const bad of ['&changes.tag=two%20words', '&changes.ignore=%5B%5B']) {
    const res = await read(bad);
    assert.is(res.status, 400, bad);
    assert.is(res.body.code, 'EINVALQUERY', bad);
  }
  assert.is(fx.hits.length, hits, 'nothing was fetched for a refused query');
});

test('with a screenshot, a visual change: the share of pixels changed and a diff image; the same render is the same', async () => {
  const shot = async (extra = '') => {
    const res = await call(app.free, `url=${q(`${fx.url}/shop/banner`)}&screenshot&changes&changes.tag=visual${extra}`);
    assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 400));
    return { ...res.body.data.changes, height: res.body.data.screenshot.height as number };
  };
  assert.is((await shot()).status, 'new');
  const same = await shot();
  assert.is(same.status, 'same', `an identical render is no change: ${JSON.stringify(same.diff?.visual)}`);
  page.banner = '#e76f51';
  const changed = await shot();
  assert.is(changed.status, 'changed', JSON.stringify(changed));
  assert.is(changed.diff.content, null, 'the text did not change');
  assert.equal(changed.diff.fields, {}, "the screenshot's new address is not a field's change");
  const { share, image } = changed.diff.visual;
  // The banner: 300 pixels of the screenshot's height, all of its width.
  assert.ok(Math.abs(share - 300 / changed.height) < 0.02, `share ${share} of a ${changed.height}-pixel screenshot`);
  assert.is(image.type, 'png');
  const png = await app.file(image.url);
  assert.is(png.contentType, 'image/png');
  const bytes = png.body;
  assert.is(bytes.readUInt32BE(16), 480, 'drawn at the width screenshots are compared at');
  page.banner = '#264653';
  const below = await shot('&changes.pixels=0.9');
  assert.is(below.status, 'same', 'under the share asked for, no change');
});

test('the baselines outlive a restart', async () => {
  await app.close();
  app = await startHandlers({ REFRACT_DATA_DIR: dataDir, REFRACT_API_KEYS: keyFile });
  const { report } = await read('&changes.tag=quiet&changes.ignore=.ad');
  assert.is(report.status, 'same', JSON.stringify(report));
  assert.ok(report.previousAt, 'compared with the read made before the restart');
});

test.run();
