// refract-test: beside
// (Beside the other files: it mostly waits for its schedule.)
// Monitors through the real server (issue 54, item 2, the embedded default): a page of the test's own read on a
// 1-second schedule; its changes kept as a history and told to a webhook whose signature verifies with the
// `standardwebhooks` library; three failed reads told once as `monitor.failed` and never a change; another key sees
// none of it; monitors and their histories outlive a restart. Every wait is for an event (a read of the page, a
// delivery), never a sleep.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

const SECRET = `whsec_${Buffer.from('monitor-test-secret-0123456789').toString('base64')}`;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'refract-monitors-'));
const keyFile = path.join(dataDir, 'keys');
const env = {
  REFRACT_DATA_DIR: dataDir,
  REFRACT_API_KEYS: keyFile,
  REFRACT_WEBHOOK_SECRET: SECRET,
  REFRACT_MONITOR_MIN_INTERVAL: '1s',
};
let fx: Fixture;
let app: App;
const page = { price: '19.99', mode: 'ok' };
/** Reads of the page, and webhook deliveries, as they come. */
const seen = new EventEmitter();
const deliveries: { body: string; headers: Record<string, string> }[] = [];

test.before(async () => {
  writeFileSync(keyFile, 'alpha-key 5000\nbeta-key 5000\ngamma-key 1\n');
  fx = await serveFixtures({
    '/teapot': (_, res) => {
      if (page.mode === '503') {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><head><title>Down</title></head><body><p>Back soon.</p></body></html>');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<html><head><title>Iron teapot</title></head><body><main><h1>Iron teapot</h1><p class="price">${page.price}</p><p>A cast iron teapot that keeps tea hot for an hour, enamelled inside so that it never rusts.</p></main></body></html>`,
        );
      }
      seen.emit('read');
    },
    '/hook': async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(204);
      res.end();
      seen.emit('delivery');
    },
  });
  app = await startRefract(env);
});

test.after(async () => {
  await app?.close();
  await fx?.close();
});

const api = async (method: string, route: string, key = 'alpha-key', body?: unknown, base = app.proUrl) => {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};
/** Waits (at most 20 s) until `done()` holds, woken by each read of the page and each delivery. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const limit = AbortSignal.timeout(20_000);
  while (!(await done())) {
    if (limit.aborted) throw new Error(`waited 20 s for ${what}`);
    await Promise.race([once(seen, 'read', { signal: limit }), once(seen, 'delivery', { signal: limit })]).catch(
      () => undefined,
    );
  }
}
const events = (type: string) =>
  deliveries.map((d) => JSON.parse(d.body) as Record<string, any>).filter((e) => e.type === type);
let id = '';

test('bad monitors are refused with their field; the free endpoint has none', async () => {
  const url = `${fx.url}/teapot`;
  for (const [body, code, field] of [
    [{ url, every: '10ms' }, 'EINVALDATA', 'every'],
    [{ url, every: '1s', cron: '* * * * *' }, 'EINVALDATA', 'every'],
    [{ url, cron: 'every day' }, 'EINVALDATA', 'cron'],
    [{ url: 'ftp://x', every: '1s' }, 'EINVALURL', 'url'],
    [{ url, every: '1s', query: 'data.x.selector=%5B%5B' }, 'EINVALDATA', 'data.x.selector'],
    [{ url, every: '1s', extra: 1 }, 'EINVALDATA', 'extra'],
  ] as const) {
    const res = await api('POST', '/monitors', 'alpha-key', body);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.is(res.body.code, code, JSON.stringify(res.body));
    assert.match(res.body.message, field);
  }
  const free = await api('POST', '/monitors', 'alpha-key', { url, every: '1s' }, app.freeUrl);
  assert.is(free.status, 403);
  assert.is(free.body.code, 'EPRO');
});

test('a monitor reads its page on schedule, keeps its changes and tells them to a signed webhook', async () => {
  const created = await api('POST', '/monitors', 'alpha-key', {
    url: `${fx.url}/teapot`,
    query: 'data.price.selector=.price',
    every: '1s',
    webhook: { url: `${fx.url}/hook` },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  id = created.body.data.id;
  assert.match(id, /^mon_/);
  await until(async () => (await api('GET', `/monitors/${id}`)).body.data.lastStatus === 'new', 'the first read');
  page.price = '17.49';
  await until(() => events('monitor.changed').length > 0, 'a change told');
  const told = deliveries.find((d) => JSON.parse(d.body).type === 'monitor.changed')!;
  // As README says a receiver checks it: the Standard Webhooks library with the service's secret.
  const verified = new Webhook(SECRET).verify(told.body, told.headers) as Record<string, any>;
  assert.is(verified.id, id);
  assert.equal(verified.changes.diff.fields, { price: { before: '19.99', after: '17.49' } });
  const history = await api('GET', `/monitors/${id}/changes`);
  assert.equal(
    history.body.data.changes.map((c: { status: string }) => c.status),
    ['changed', 'new'],
    'newest first; reads that found the page the same are not changes',
  );
  assert.is((await api('GET', `/monitors/${id}/changes?limit=1`)).body.data.next, '1');
});

test('failed reads are never a change; three in a row are told once', async () => {
  page.mode = '503';
  await until(() => events('monitor.failed').length > 0, 'the failure told');
  const [failed] = events('monitor.failed');
  assert.is(failed!.failures, 3);
  assert.match(failed!.reason, /answered 503/);
  const monitor = (await api('GET', `/monitors/${id}`)).body.data;
  assert.ok(monitor.failures >= 3);
  assert.is(monitor.lastStatus, 'failed');
  page.mode = 'ok';
  await until(async () => (await api('GET', `/monitors/${id}`)).body.data.lastStatus === 'same', 'a good read again');
  assert.equal(
    (await api('GET', `/monitors/${id}/changes`)).body.data.changes.map((c: { status: string }) => c.status),
    ['changed', 'new'],
    'the page came back as it was: no change, and the failures none either',
  );
  assert.is(events('monitor.failed').length, 1, 'told once');
});

test("another key sees none of a key's monitors", async () => {
  assert.is((await api('GET', `/monitors/${id}`, 'beta-key')).status, 404);
  assert.is((await api('GET', `/monitors/${id}/changes`, 'beta-key')).status, 404);
  assert.is((await api('DELETE', `/monitors/${id}`, 'beta-key')).status, 404);
  assert.equal((await api('GET', '/monitors', 'beta-key')).body.data.monitors, []);
  assert.equal(
    (await api('GET', '/monitors')).body.data.monitors.map((m: { id: string }) => m.id),
    [id],
  );
});

test("each read is charged to the key's quota: past it, reads fail with ERATE", async () => {
  const created = await api('POST', '/monitors', 'gamma-key', {
    url: `${fx.url}/teapot`,
    every: '1s',
    webhook: { url: `${fx.url}/hook` },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const mine = created.body.data.id;
  const told = () => events('monitor.failed').filter((e) => e.id === mine);
  await until(() => told().length > 0, 'the quota failure told');
  assert.match(told()[0]!.reason, /^ERATE/);
  const monitor = (await api('GET', `/monitors/${mine}`, 'gamma-key')).body.data;
  assert.is(monitor.lastStatus, 'failed');
  assert.ok(monitor.runs >= 4, `one good read, then three refused: ${monitor.runs}`);
  assert.equal(
    (await api('GET', `/monitors/${mine}/changes`, 'gamma-key')).body.data.changes.map((c: any) => c.status),
    ['new'],
  );
  const quota = await fetch(`${app.proUrl}/?url=${encodeURIComponent(`${fx.url}/teapot`)}`, {
    headers: { 'x-api-key': 'gamma-key' },
  });
  assert.is(quota.status, 429, 'the reads spent the quota a request of the key draws on');
  assert.is((await api('DELETE', `/monitors/${mine}`, 'gamma-key')).status, 200);
});

test('monitors and their histories outlive a restart; a deleted monitor is gone', async () => {
  await app.close();
  app = await startRefract(env);
  const after = await api('GET', `/monitors/${id}/changes`);
  assert.is(after.status, 200);
  assert.equal(after.body.data.changes.map((c: { status: string }) => c.status).slice(-2), ['changed', 'new']);
  const runs = (await api('GET', `/monitors/${id}`)).body.data.runs;
  await until(async () => (await api('GET', `/monitors/${id}`)).body.data.runs > runs, 'a read after the restart');
  assert.is((await api('DELETE', `/monitors/${id}`)).status, 200);
  assert.is((await api('GET', `/monitors/${id}`)).status, 404);
  assert.equal((await api('GET', '/monitors')).body.data.monitors, []);
});

test.run();
