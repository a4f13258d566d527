// Crawl jobs over HTTP on the embedded default: POST /crawls on a 30-page loopback site with a signed webhook,
// status, paged and streamed results, another key, the free endpoint, bad bodies, a private webhook, a cancel,
// and a process killed mid-crawl that resumes on restart with exact totals.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract } from '../util/refract.ts';
import { startChild, type Child } from '../util/child.ts';
import { webhookReceiver } from '../util/webhooks.ts';
import type { App } from '../../server/app.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'webhook-secret-for-tests';
const PAGES = 30;
let fx: Fixture;
let app: App;
/** Pages under /held/ wait until released. */
let held: Promise<void> = Promise.resolve();

test.before(async () => {
  const page = (res: http.ServerResponse, n: string, links = '') => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1>${links}</body></html>`);
  };
  fx = await serveFixtures({}, async (req, res) => {
    const { pathname } = new URL(req.url!, 'http://x');
    const site = /^\/site\/(\d+)$/.exec(pathname);
    if (site) {
      const links =
        site[1] === '0'
          ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/site/${i + 1}">${i + 1}</a>`).join('')
          : '';
      page(res, site[1]!, links);
      return true;
    }
    if (pathname === '/challenge') {
      res.writeHead(403, { 'content-type': 'text/html', server: 'cloudflare', 'cf-mitigated': 'challenge' });
      res.end(
        '<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={}</script></body></html>',
      );
      return true;
    }
    const slow = /^\/held\/(\w+)$/.exec(pathname);
    if (slow) {
      await held;
      page(res, slow[1]!);
      return true;
    }
    return false;
  });
  app = await startRefract({
    REFRACT_API_KEYS: 'key-a,key-b',
    REFRACT_WEBHOOK_SECRET: SECRET,
    REFRACT_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-data-')),
  });
});

test.after(async () => {
  await app.close();
  await fx.close();
});

const post = (base: string, body: unknown, key = 'key-a') =>
  fetch(`${base}/crawls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
const get = (base: string, p: string, key = 'key-a', accept = 'application/json') =>
  fetch(`${base}${p}`, { headers: { 'x-api-key': key, accept } });

test('a 30-page crawl through POST /crawls: signed webhooks, status, results paged exactly once, streamed', async () => {
  const hook = await webhookReceiver(SECRET);
  try {
    const res = await post(app.proUrl, { start: `${fx.url}/site/0`, webhook: { url: hook.url } });
    assert.is(res.status, 202);
    const { data } = (await res.json()) as { data: { id: string; status: string; url: string } };
    assert.is(data.status, 'queued');
    assert.is(data.url, `/crawls/${data.id}`);
    await hook.when((d) => d.event.type === 'crawl.completed');
    const types = hook.got.map((d) => d.event.type);
    assert.is(types.filter((t) => t === 'crawl.started').length, 1);
    assert.is(types.filter((t) => t === 'crawl.page').length, PAGES);
    assert.is(types.filter((t) => t === 'crawl.completed').length, 1);
    assert.is(types[0], 'crawl.started');
    assert.ok(
      hook.got.every((d) => d.verified && d.event.id === data.id),
      'every delivery is signed and names the job',
    );
    assert.is(new Set(hook.got.map((d) => d.delivery)).size, hook.got.length, 'a delivery id each');
    const status = (await (await get(app.proUrl, data.url)).json()) as {
      data: { status: string; pages: { done: number; failed: number; queued: number }; finishedAt: string };
    };
    assert.is(status.data.status, 'completed');
    assert.equal(status.data.pages, { done: PAGES, failed: 0, queued: 0 });
    assert.type(status.data.finishedAt, 'string');
    const seen: string[] = [];
    let cursor: string | null = '0';
    while (cursor !== null) {
      const body = (await (await get(app.proUrl, `${data.url}/results?cursor=${cursor}&limit=7`)).json()) as {
        data: { results: { url: string; status: string; data: { title: string } }[]; next: string | null };
      };
      assert.ok(body.data.results.length <= 7);
      for (const r of body.data.results) {
        assert.is(r.status, 'success');
        assert.match(r.data.title, /^Page \d+$/);
        seen.push(r.url);
      }
      cursor = body.data.next;
    }
    assert.is(seen.length, PAGES);
    assert.is(new Set(seen).size, PAGES, 'each page once');
    const lines = (await (await get(app.proUrl, `${data.url}/results`, 'key-a', 'application/x-ndjson')).text())
      .trim()
      .split('\n');
    assert.equal(
      lines.map((l) => (JSON.parse(l) as { url: string }).url),
      seen,
    );
    // Another key does not see the job.
    assert.is((await get(app.proUrl, data.url, 'key-b')).status, 404);
    assert.is((await get(app.proUrl, `${data.url}/results`, 'key-b')).status, 404);
  } finally {
    await hook.close();
  }
});

/** A job's result lines once it ended (polled through its status, as a client does). */
async function finished(id: string): Promise<{ status: string; data?: Record<string, unknown> }[]> {
  for (;;) {
    const { data } = (await (await get(app.proUrl, `/crawls/${id}`)).json()) as { data: { status: string } };
    if (data.status === 'completed' || data.status === 'failed') break;
    await new Promise((r) => setImmediate(r));
  }
  const text = await (await get(app.proUrl, `/crawls/${id}/results`, 'key-a', 'application/x-ndjson')).text();
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { status: string; data?: Record<string, unknown> });
}

test('an object `query` reads as the same query text does: outputs switched off stay off, dotted keys nest, unknown names are said', async () => {
  const url = `${fx.url}/site/3`;
  const cases: [unknown, (data: Record<string, unknown>) => void][] = [
    [
      { screenshot: false, pdf: false },
      (d) => {
        assert.is(d.screenshot, undefined, 'no screenshot');
        assert.is(d.pdf, undefined, 'no pdf');
        assert.is(d.title, 'Page 3');
      },
    ],
    [
      { meta: false, markdown: true },
      (d) => {
        assert.is(d.title, undefined, 'no metadata');
        assert.is(d.description, undefined, 'no metadata');
        assert.match(String(d.markdown), /Page 3/);
      },
    ],
    [{ meta: false, 'data.h.selector': 'h1' }, (d) => assert.is(d.h, 'Page 3')],
    [{ meta: false, data: { h: { selector: 'h1' } } }, (d) => assert.is(d.h, 'Page 3')],
  ];
  for (const [query, check] of cases) {
    const res = await post(app.proUrl, { urls: [url], query });
    assert.is(res.status, 202, JSON.stringify(query));
    const { data } = (await res.json()) as { data: { id: string } };
    const [line] = await finished(data.id);
    assert.is(line!.status, 'success', JSON.stringify(line));
    check(line!.data!);
  }
  // A challenge page is a failed line with its code, in a crawl as on GET /: never a success.
  const guarded = await post(app.proUrl, { urls: [`${fx.url}/challenge`], query: 'prerender=false' });
  const [blocked] = await finished(((await guarded.json()) as { data: { id: string } }).data.id);
  assert.equal([blocked!.status, (blocked as { code?: string }).code], ['fail', 'EPROXYNEEDED']);
  // A typo is named as GET / names it: in a header and a warning, and the job runs without it.
  const res = await post(app.proUrl, { urls: [url], query: { 'screenshot.fulPage': true, meta: { titel: 'x' } } });
  assert.is(res.status, 202);
  assert.match(res.headers.get('x-refract-unknown-params') ?? '', /screenshot\.fulPage/);
  const body = (await res.json()) as { data: { warnings?: { message: string }[] } };
  assert.match(body.data.warnings?.[0]?.message ?? '', /screenshot\.fulPage/);
  // A bad value is refused at POST with the API's code, whichever shape carries it.
  const bad = await post(app.proUrl, { urls: [url], query: { screenshot: { type: 'gif' } } });
  assert.is(bad.status, 400);
  assert.is(((await bad.json()) as { code: string }).code, 'EINVALQUERY');
});

test('refused: the free endpoint (EPRO), no key (EAUTH), a bad body naming the field, a webhook to a private address', async () => {
  const free = await fetch(`${app.freeUrl}/crawls`, { method: 'POST', body: '{}' });
  assert.is(free.status, 403);
  assert.is(((await free.json()) as { code: string }).code, 'EPRO');
  assert.is((await post(app.proUrl, { start: `${fx.url}/site/0` }, 'nope')).status, 401);
  const cases: [unknown, number, string, string][] = [
    [{ start: 'not a url' }, 400, 'EINVALURL', 'start'],
    [{ start: `${fx.url}/site/0`, urls: [`${fx.url}/site/1`] }, 400, 'EINVALDATA', 'start'],
    [{ urls: 'x' }, 400, 'EINVALDATA', 'urls'],
    [{ start: `${fx.url}/site/0`, maxPages: -1 }, 400, 'EINVALDATA', 'maxPages'],
    [{ start: `${fx.url}/site/0`, query: 'screenshot.type=gif' }, 400, 'EINVALQUERY', ''],
    [{ start: `${fx.url}/site/0`, webhook: { url: 'http://127.0.0.2:9/hook' } }, 403, 'EFORBIDDENURL', 'webhook.url'],
    [{ start: `${fx.url}/site/0`, surprise: true }, 400, 'EINVALDATA', 'surprise'],
    // Targets are checked now, like a webhook: a private address in any form, in any input.
    [{ start: 'http://127.0.0.2:9/' }, 403, 'EFORBIDDENURL', 'start'],
    [{ start: 'http://2130706434:9/' }, 403, 'EFORBIDDENURL', 'start'],
    [{ sitemap: 'http://[::ffff:127.0.0.2]:9/sitemap.xml' }, 403, 'EFORBIDDENURL', 'sitemap'],
    [{ urls: [`${fx.url}/site/1`, 'http://127.0.0.2:9/a'] }, 403, 'EFORBIDDENURL', 'urls.1'],
    [{ urls: [`${fx.url}/site/1`, 'not a url'] }, 400, 'EINVALURL', 'urls.1'],
  ];
  for (const [body, status, code, field] of cases) {
    const res = await post(app.proUrl, body);
    const out = (await res.json()) as { code: string; message: string };
    assert.is(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(out)}`);
    assert.is(out.code, code, JSON.stringify(body));
    if (field) assert.match(out.message, field, JSON.stringify(body));
  }
  const bad = await fetch(`${app.proUrl}/crawls`, {
    method: 'POST',
    headers: { 'x-api-key': 'key-a' },
    body: '{not json',
  });
  assert.is(bad.status, 400);
});

test('DELETE /crawls/<id> stops a crawl mid-way: cancelled (queued 0), told to the webhook, and the results so far stay readable', async () => {
  let release!: () => void;
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hook = await webhookReceiver(SECRET);
  const res = await post(app.proUrl, {
    urls: Array.from({ length: 12 }, (_, i) => `${fx.url}/held/c${i}`),
    webhook: { url: hook.url },
  });
  const { data } = (await res.json()) as { data: { id: string; url: string } };
  const cancelling = fetch(`${app.proUrl}${data.url}`, { method: 'DELETE', headers: { 'x-api-key': 'key-a' } });
  release();
  const cancelled = (await (await cancelling).json()) as {
    data: { status: string; pages: { done: number; queued: number } };
  };
  assert.is(cancelled.data.status, 'cancelled');
  assert.ok(cancelled.data.pages.done < 12, `stopped early: ${cancelled.data.pages.done} done`);
  assert.is(cancelled.data.pages.queued, 0);
  await hook.when((d) => d.event.type === 'crawl.cancelled');
  const ended = hook.got.find((d) => d.event.type === 'crawl.cancelled')!;
  assert.ok(ended.verified && ended.event.id === data.id);
  await hook.close();
  const results = (await (await get(app.proUrl, `${data.url}/results`)).json()) as {
    data: { results: unknown[]; next: string | null };
  };
  assert.is(results.data.results.length, cancelled.data.pages.done);
  assert.is(results.data.next, null);
});

test('DELETE /crawls/<id> answers at once while the webhook receiver hangs, running or completed', async () => {
  // A receiver that takes every delivery and never answers.
  const hanging: http.ServerResponse[] = [];
  const receiver = (await import('node:http')).createServer((_, res) => hanging.push(res));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as import('node:net').AddressInfo).port}/hook`;
  try {
    let release!: () => void;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = (await (
      await post(app.proUrl, { urls: [`${fx.url}/held/w1`, `${fx.url}/held/w2`], webhook: { url: hookUrl } })
    ).json()) as { data: { url: string } };
    const cancel = await fetch(`${app.proUrl}${running.data.url}`, {
      method: 'DELETE',
      headers: { 'x-api-key': 'key-a' },
    });
    assert.is(cancel.status, 200);
    assert.is(((await cancel.json()) as { data: { status: string } }).data.status, 'cancelled');
    release();
    // A job that completed with its deliveries still queued behind the hung receiver.
    const done = (await (await post(app.proUrl, { urls: [`${fx.url}/site/1`], webhook: { url: hookUrl } })).json()) as {
      data: { id: string; url: string };
    };
    await finished(done.data.id);
    const late = await fetch(`${app.proUrl}${done.data.url}`, { method: 'DELETE', headers: { 'x-api-key': 'key-a' } });
    assert.is(((await late.json()) as { data: { status: string } }).data.status, 'completed');
    assert.ok(hanging.length >= 1, 'the receiver was reached and held');
  } finally {
    for (const res of hanging) res.destroy();
    receiver.close();
  }
});

test("each page is a request of the key's quota: past it the job fails with ERATE, the pages done so far readable", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-keys-'));
  writeFileSync(path.join(dir, 'keys.txt'), 'small-key 5\n');
  const limited = await startRefract({
    REFRACT_API_KEYS: path.join(dir, 'keys.txt'),
    REFRACT_WEBHOOK_SECRET: SECRET,
    REFRACT_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-data-')),
  });
  const hook = await webhookReceiver(SECRET);
  try {
    const res = await post(
      limited.proUrl,
      { start: `${fx.url}/site/0`, webhook: { url: hook.url, events: ['failed'] } },
      'small-key',
    );
    const { data } = (await res.json()) as { data: { url: string } };
    await hook.when((d) => d.event.type === 'crawl.failed');
    const status = (await (await get(limited.proUrl, data.url, 'small-key')).json()) as {
      data: { status: string; code: string; pages: { done: number } };
    };
    assert.is(status.data.status, 'failed');
    assert.is(status.data.code, 'ERATE');
    assert.is(status.data.pages.done, 5);
    const results = (await (await get(limited.proUrl, `${data.url}/results`, 'small-key')).json()) as {
      data: { results: unknown[] };
    };
    assert.is(results.data.results.length, 5);
  } finally {
    await hook.close();
    await limited.close();
  }
});

test('a process killed mid-crawl resumes the job on restart: every page once, totals exact', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'refract-data-'));
  const env = {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_LOG_LEVEL: 'info',
    REFRACT_API_KEYS: 'key-a',
    REFRACT_WEBHOOK_SECRET: SECRET,
    REFRACT_DATA_DIR: dataDir,
  };
  const hook = await webhookReceiver(SECRET);
  let first: Child | undefined = await startChild(ROOT, env);
  let second: Child | undefined;
  try {
    const res = await post(first.proUrl, {
      start: `${fx.url}/site/0`,
      webhook: { url: hook.url, events: ['page', 'completed'] },
    });
    const { data } = (await res.json()) as { data: { id: string; url: string } };
    await hook.when(() => hook.got.filter((d) => d.event.type === 'crawl.page').length >= 5);
    first.process.kill('SIGKILL');
    await first.exited;
    first = undefined;
    second = await startChild(ROOT, env);
    await hook.when((d) => d.event.type === 'crawl.completed');
    const status = (await (await get(second.proUrl, data.url)).json()) as {
      data: { status: string; pages: { done: number; failed: number } };
    };
    assert.is(status.data.status, 'completed');
    assert.is(status.data.pages.done + status.data.pages.failed, PAGES);
    const lines = (await (await get(second.proUrl, `${data.url}/results`, 'key-a', 'application/x-ndjson')).text())
      .trim()
      .split('\n');
    const urls = lines.map((l) => (JSON.parse(l) as { url: string }).url);
    assert.is(urls.length, PAGES, 'every page once in the results');
    assert.is(new Set(urls).size, PAGES);
  } finally {
    await first?.stop();
    await second?.stop();
    await hook.close();
  }
});

test.run();
