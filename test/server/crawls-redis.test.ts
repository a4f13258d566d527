// Crawl jobs with REDIS_URL, on a real Redis and two real server processes: a 30-page crawl started on one is
// read from the other (status, paged results) with signed webhooks; a cancel stops it; the process coordinating a
// job is killed mid-crawl and the other takes it over, with every page once and exact totals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type http from 'node:http';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startChild, type Child } from '../util/child.ts';
import { startRedis, type TestRedis } from '../util/redis.ts';
import { webhookReceiver } from '../util/webhooks.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'webhook-secret-for-redis-tests';
const PAGES = 30;
/** Pages of the site from this number on wait for `gate` (the first ones answer at once). */
const FAST = 8;
let fx: Fixture;
let redis: TestRedis;
let gate: Promise<void> = Promise.resolve();

const env = () => ({
  PORT: '0',
  PRO_PORT: '0',
  HOST: '127.0.0.1',
  REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  REFRACT_LOG_LEVEL: 'info',
  REDIS_URL: redis.url,
  REFRACT_API_KEYS: 'key-a,key-b',
  REFRACT_WEBHOOK_SECRET: SECRET,
  REFRACT_PROBE_TIMEOUT: '0',
});

test.before(async () => {
  redis = await startRedis();
  const page = (res: http.ServerResponse, n: string, links = '') => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1>${links}</body></html>`);
  };
  fx = await serveFixtures({}, async (req, res) => {
    // `/<site>/<n>`; a site named `gated-...` holds its pages from FAST on (each test names its own: no cache hits).
    const m = /^\/([\w-]+)\/(\d+)$/.exec(new URL(req.url!, 'http://x').pathname);
    if (!m) return false;
    const n = Number(m[2]);
    if (m[1]!.startsWith('gated') && n >= FAST) await gate;
    page(
      res,
      m[2]!,
      n === 0 ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/${m[1]}/${i + 1}">${i + 1}</a>`).join('') : '',
    );
    return true;
  });
});

test.after(async () => {
  await fx.close();
  await redis.close();
});

const post = (base: string, body: unknown, key = 'key-a') =>
  fetch(`${base}/crawls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
async function get<T>(base: string, p: string, key = 'key-a'): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${p}`, { headers: { 'x-api-key': key } });
  return { status: res.status, body: (await res.json()) as T };
}
type Status = { status: string; pages: { done: number; failed: number; queued: number }; finishedAt: string | null };

/** Every result line of a job, read page by page through `base`. */
async function allResults(base: string, url: string): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = '0';
  while (cursor !== null) {
    const { body }: { body: { data: { results: { url: string }[]; next: string | null } } } = await get(
      base,
      `${url}/results?cursor=${cursor}&limit=7`,
    );
    assert.ok(body.data.results.length <= 7);
    seen.push(...body.data.results.map((r) => r.url));
    cursor = body.data.next;
  }
  return seen;
}

test('a job started on one process is read on another: signed webhooks, status, results paged exactly once; another key sees nothing', async () => {
  const hook = await webhookReceiver(SECRET);
  const [a, b] = await Promise.all([startChild(ROOT, env()), startChild(ROOT, env())]);
  try {
    const res = await post(a.proUrl, { start: `${fx.url}/site/0`, webhook: { url: hook.url } });
    assert.is(res.status, 202);
    const { data } = (await res.json()) as { data: { id: string; status: string; url: string } };
    assert.is(data.status, 'queued');
    await hook.when((d) => d.event.type === 'crawl.completed');
    const types = hook.got.map((d) => d.event.type);
    assert.is(types[0], 'crawl.started');
    assert.is(types.filter((t) => t === 'crawl.page').length, PAGES);
    assert.is(types.filter((t) => t === 'crawl.completed').length, 1);
    assert.ok(
      hook.got.every((d) => d.verified && d.event.id === data.id),
      'every delivery is signed and names the job',
    );
    const status = await get<{ data: Status }>(b.proUrl, data.url);
    assert.is(status.status, 200, 'the other process answers');
    assert.is(status.body.data.status, 'completed');
    assert.equal(status.body.data.pages, { done: PAGES, failed: 0, queued: 0 });
    const seen = await allResults(b.proUrl, data.url);
    assert.is(seen.length, PAGES);
    assert.is(new Set(seen).size, PAGES, 'each page once');
    const ndjson = await (
      await fetch(`${a.proUrl}${data.url}/results`, {
        headers: { 'x-api-key': 'key-a', accept: 'application/x-ndjson' },
      })
    ).text();
    assert.equal(
      ndjson
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { url: string }).url),
      seen,
    );
    assert.is((await get(b.proUrl, data.url, 'key-b')).status, 404);
    assert.is((await get(a.proUrl, `${data.url}/results`, 'key-b')).status, 404);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await hook.close();
  }
});

test('DELETE on any process cancels the job: it stops, and the results so far stay readable', async () => {
  let release!: () => void;
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const [a, b] = await Promise.all([startChild(ROOT, env()), startChild(ROOT, env())]);
  try {
    const { data } = (await (await post(a.proUrl, { start: `${fx.url}/gated-cancel/0` })).json()) as {
      data: { url: string };
    };
    // Once the fast pages are in, the rest wait at the gate: cancel from the other process.
    for (
      let s = await get<{ data: Status }>(b.proUrl, data.url);
      s.body.data.pages.done < FAST;
      s = await get<{ data: Status }>(b.proUrl, data.url)
    ) {
      assert.is(s.body.data.status === 'queued' || s.body.data.status === 'running', true);
    }
    const cancelled = (await (
      await fetch(`${b.proUrl}${data.url}`, { method: 'DELETE', headers: { 'x-api-key': 'key-a' } })
    ).json()) as { data: Status };
    release();
    assert.is(cancelled.data.status, 'cancelled');
    assert.type(cancelled.data.finishedAt, 'string');
    const after = await get<{ data: Status }>(a.proUrl, data.url);
    assert.is(after.body.data.status, 'cancelled', 'a cancelled job stays cancelled');
    assert.ok(after.body.data.pages.done < PAGES, `stopped early: ${after.body.data.pages.done} done`);
    const seen = await allResults(a.proUrl, data.url);
    assert.is(seen.length, after.body.data.pages.done + after.body.data.pages.failed);
  } finally {
    release();
    gate = Promise.resolve();
    await Promise.all([a.stop(), b.stop()]);
  }
});

test('the process coordinating a job is killed mid-crawl: the other takes it over, every page once, totals exact', async () => {
  let release!: () => void;
  gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hook = await webhookReceiver(SECRET);
  let a: Child | undefined = await startChild(ROOT, env());
  let b: Child | undefined;
  try {
    const { data } = (await (
      await post(a.proUrl, {
        start: `${fx.url}/gated-kill/0`,
        webhook: { url: hook.url, events: ['page', 'completed'] },
      })
    ).json()) as { data: { url: string } };
    await hook.when(() => hook.got.filter((d) => d.event.type === 'crawl.page').length >= FAST);
    // Only `a` was there to take the job: it coordinates it, and holds pages at the gate.
    b = await startChild(ROOT, env());
    const during = await get<{ data: Status }>(b.proUrl, data.url);
    assert.is(during.body.data.status, 'running');
    assert.is(during.body.data.pages.done, FAST, 'the other process reads the job as it runs');
    a.process.kill('SIGKILL');
    await a.exited;
    a = undefined;
    release();
    // The pages `a` was visiting are visited again once their locks expire (the page's and the cache's).
    await hook.when((d) => d.event.type === 'crawl.completed');
    const status = await get<{ data: Status }>(b.proUrl, data.url);
    assert.is(status.body.data.status, 'completed');
    assert.equal(status.body.data.pages, { done: PAGES, failed: 0, queued: 0 });
    const seen = await allResults(b.proUrl, data.url);
    assert.is(seen.length, PAGES, 'every page in the results');
    assert.is(new Set(seen).size, PAGES, 'and once');
  } finally {
    release();
    gate = Promise.resolve();
    await a?.stop();
    await b?.stop();
    await hook.close();
  }
});

test.run();
