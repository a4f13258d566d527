// What the API answers by plan, key and cache (through its handlers: what the server adds is server/api.test.ts's).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, manualClock } from '../util/refract.ts';

let fx: Fixture;
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-plans-'));
const keyFile = path.join(dir, 'keys.txt');
const seenHeaders: Record<string, string | string[] | undefined>[] = [];
let gate: { reached: () => void; release: Promise<void> } | undefined;

const page = (title: string) =>
  `<html><head><title>${title}</title></head><body><p>Some words for a static page.</p></body></html>`;

test.before(async () => {
  let version = 0;
  fx = await serveFixtures({
    '/echo': (req: IncomingMessage, res: ServerResponse) => {
      seenHeaders.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('echo'));
    },
    // Each answer has a new title, so a regenerated entry can be told from the stored one.
    '/versioned': async (_: IncomingMessage, res: ServerResponse) => {
      version++;
      const held = gate;
      if (held) {
        held.reached();
        await held.release;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(`version ${version}`));
    },
    '/challenge': (_: IncomingMessage, res: ServerResponse) => {
      res.writeHead(403, { 'content-type': 'text/html', server: 'cloudflare', 'cf-mitigated': 'challenge' });
      res.end('<html><head><title>Just a moment...</title></head><body></body></html>');
    },
  });
});

test.after(async () => {
  await fx.close();
});

const hitsOf = (p: string) => fx.hits.filter((h) => h.startsWith(p)).length;
const keyed = (key: string) => ({ headers: { 'x-api-key': key } });

test('endpoints and keys: EAUTH without or with an unknown key, EPRO for a key on free, the plan header, no key echoed', async () => {
  writeFileSync(keyFile, '# pro keys\nalpha-secret-1\n');
  const app = await startHandlers({ REFRACT_API_KEYS: keyFile });
  try {
    const target = `url=${q(`${fx.url}/echo`)}`;
    const free = await call(app.free, target);
    assert.is(free.headers.get('x-pricing-plan'), 'free');
    const none = await call(app.pro, target);
    assert.is(none.status, 401);
    assert.is(none.body.code, 'EAUTH');
    const wrong = await call(app.pro, target, keyed('alpha-secret-2'));
    assert.is(wrong.body.code, 'EAUTH');
    const epro = await call(app.free, target, keyed('alpha-secret-1'));
    assert.is(epro.status, 403);
    assert.is(epro.body.code, 'EPRO');
    const ok = await call(app.pro, target, keyed('alpha-secret-1'));
    assert.is(ok.status, 200);
    assert.is(ok.headers.get('x-pricing-plan'), 'pro');
    for (const res of [none, wrong, epro, ok]) {
      assert.not.ok(res.raw.toString().includes('alpha-secret'), 'the key is not in the body');
      assert.not.ok(
        [...res.headers.values()].some((v) => v.includes('alpha-secret')),
        'nor in a header',
      );
    }
    // Rotation by configuration: the file changes, the old key stops working and the new one works at once.
    writeFileSync(keyFile, 'beta-secret-9\n');
    assert.is((await call(app.pro, `${target}&force=true`, keyed('alpha-secret-1'))).body.code, 'EAUTH');
    assert.is((await call(app.pro, `${target}&force=true`, keyed('beta-secret-9'))).status, 200);
  } finally {
    await app.close();
  }
});

test('pro-only parameters on free each have their own 4xx code; headers may come as x-api-header-*', async () => {
  const app = await startHandlers({ REFRACT_API_KEYS: 'k1' });
  try {
    const base = `url=${q(`${fx.url}/echo`)}`;
    for (const [param, code] of [
      ['cacheKey=a', 'ECACHEKEY'],
      ['filename=shot', 'EFILENAME'],
      ['headers.x-token=1', 'EHEADERS'],
      ['proxy=http://127.0.0.1:1', 'EPROXY'],
      ['staleTtl=1m', 'ESTTL'],
      ['ttl=1h', 'ETTL'],
    ]) {
      const res = await call(app.free, `${base}&${param}`);
      assert.is(res.body.code, code, param);
      assert.ok(
        res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 413 && res.status !== 429,
        `${param}: ${res.status}`,
      );
    }
    // The same URL was answered (and its plan kept) just before: custom headers still make it another plan.
    assert.is((await call(app.free, base)).status, 200);
    const viaHeader = await call(app.free, base, { headers: { 'x-api-header-x-token': 'shh' } });
    assert.is(viaHeader.body.code, 'EHEADERS');
    const plain = await call(app.pro, `${base}&force`, { headers: { 'x-api-key': 'k1' } });
    assert.is(plain.status, 200);
    assert.is(seenHeaders.at(-1)!['x-token'], undefined);
    const before = seenHeaders.length;
    const pro = await call(app.pro, `${base}&force`, {
      headers: { 'x-api-key': 'k1', 'x-api-header-x-token': 'shh-123' },
    });
    assert.is(pro.status, 200);
    assert.is(seenHeaders.length, before + 1);
    assert.is(seenHeaders.at(-1)!['x-token'], 'shh-123');
  } finally {
    await app.close();
  }
});

test('free quota per IP: spent by misses only, 429 ERATE with Retry-After past it, reset at the window end', async () => {
  const clock = manualClock(Date.UTC(2026, 4, 10, 12, 0, 0));
  const app = await startHandlers({ REFRACT_FREE_QUOTA: '2', REFRACT_FREE_QUOTA_WINDOW: '24h' }, [], { clock });
  try {
    const url = (n: number) => `url=${q(`${fx.url}/echo?n=${n}`)}`;
    const first = await call(app.free, url(1));
    assert.is(first.headers.get('x-rate-limit-limit'), '2');
    assert.is(first.headers.get('x-rate-limit-remaining'), '1');
    const dayEnd = Date.UTC(2026, 4, 11) / 1000;
    assert.is(first.headers.get('x-rate-limit-reset'), String(dayEnd));
    assert.is((await call(app.free, url(2))).headers.get('x-rate-limit-remaining'), '0');
    const over = await call(app.free, url(3));
    assert.is(over.status, 429);
    assert.is(over.body.code, 'ERATE');
    assert.is(over.headers.get('retry-after'), String(dayEnd - clock.now() / 1000));
    // A cache hit costs nothing, even past the quota.
    const hit = await call(app.free, url(1));
    assert.is(hit.status, 200);
    assert.is(hit.headers.get('x-cache-status'), 'HIT');
    clock.set(Date.UTC(2026, 4, 11, 0, 0, 1));
    const fresh = await call(app.free, url(3));
    assert.is(fresh.status, 200);
    assert.is(fresh.headers.get('x-rate-limit-remaining'), '1');
  } finally {
    await app.close();
  }
});

test('pro quota per key and UTC month: per-key quota from the key file, a warning at 80%, reset on the 1st', async () => {
  writeFileSync(keyFile, 'small-key 5\nbig-key\n');
  const clock = manualClock(Date.UTC(2026, 0, 31, 22, 0, 0));
  const app = await startHandlers({ REFRACT_API_KEYS: keyFile, REFRACT_PRO_QUOTA: '1000' }, [], { clock });
  try {
    const url = (n: number) => `url=${q(`${fx.url}/echo?p=${n}`)}`;
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let n = 1; n <= 3; n++) last = await call(app.pro, url(n), keyed('small-key'));
    assert.is(last!.headers.get('x-rate-limit-limit'), '5');
    assert.is(last!.headers.get('x-rate-limit-warning'), null);
    const fourth = await call(app.pro, url(4), keyed('small-key'));
    assert.match(fourth.headers.get('x-rate-limit-warning') ?? '', /^80% /);
    assert.is(fourth.headers.get('x-rate-limit-reset'), String(Date.UTC(2026, 1, 1) / 1000));
    await call(app.pro, url(5), keyed('small-key'));
    const over = await call(app.pro, url(6), keyed('small-key'));
    assert.is(over.status, 429);
    assert.is(over.body.code, 'ERATE');
    // Other keys have their own count and the default quota.
    assert.is((await call(app.pro, url(7), keyed('big-key'))).headers.get('x-rate-limit-limit'), '1000');
    clock.set(Date.UTC(2026, 1, 1, 0, 0, 5));
    const february = await call(app.pro, url(6), keyed('small-key'));
    assert.is(february.status, 200);
    assert.is(february.headers.get('x-rate-limit-remaining'), '4');
    assert.is(february.headers.get('x-rate-limit-reset'), String(Date.UTC(2026, 2, 1) / 1000));
  } finally {
    await app.close();
  }
});

test('ttl and staleTtl ranges, aliases, x-cache-ttl, and cacheKey as the identity', async () => {
  const app = await startHandlers({ REFRACT_API_KEYS: 'k1' });
  try {
    const base = `url=${q(`${fx.url}/echo?ttl`)}`;
    const pro = (query: string) => call(app.pro, query, keyed('k1'));
    for (const [param, code] of [
      ['ttl=30s', 'EINVALTTL'],
      ['ttl=32d', 'EINVALTTL'],
      ['ttl=soon', 'EINVALTTL'],
      ['ttl=1h&staleTtl=2h', 'EINVALSTTL'],
      ['staleTtl=40d', 'EINVALSTTL'],
    ]) {
      const res = await pro(`${base}&${param}`);
      assert.is(res.status, 400, param);
      assert.is(res.body.code, code, param);
    }
    // A bound is said with its unit.
    assert.match((await pro(`${base}&ttl=30s`)).body.message, /expected at least 60000 ms \(1m\)/);
    assert.match((await pro(`${base}&ttl=32d`)).body.message, /expected at most 2678400000 ms \(31d\)/);
    assert.is((await pro(`${base}&ttl=min&force`)).headers.get('x-cache-ttl'), '60000');
    assert.is((await pro(`${base}&ttl=max&force`)).headers.get('x-cache-ttl'), String(31 * 24 * 3600_000));
    assert.is((await pro(`${base}&ttl=2h&force`)).headers.get('x-cache-ttl'), '7200000');
    const first = await pro(`url=${q(`${fx.url}/echo?one`)}&cacheKey=shared`);
    assert.is(first.headers.get('x-cache-status'), 'MISS');
    const other = await pro(`url=${q(`${fx.url}/echo?two`)}&cacheKey=shared`);
    assert.is(other.headers.get('x-cache-status'), 'HIT');
    assert.is(other.body.data.url, first.body.data.url);
  } finally {
    await app.close();
  }
});

test('a cacheKey is scoped to the API key that set it: another key with the same name gets its own entry', async () => {
  const app = await startHandlers({ REFRACT_API_KEYS: 'key-a,key-b' });
  try {
    const a = await call(
      app.pro,
      `url=${q(`${fx.url}/echo?tenant-a`)}&cacheKey=shared-name&headers.x-secret=a-only`,
      keyed('key-a'),
    );
    assert.is(a.status, 200, JSON.stringify(a.body));
    assert.is(a.headers.get('x-cache-status'), 'MISS');
    const b = await call(app.pro, `url=${q(`${fx.url}/echo?tenant-b`)}&cacheKey=shared-name`, keyed('key-b'));
    assert.is(b.headers.get('x-cache-status'), 'MISS', "key B does not read key A's entry");
    assert.is(b.body.data.url, `${fx.url}/echo?tenant-b`);
    const again = await call(app.pro, `url=${q(`${fx.url}/echo?anything`)}&cacheKey=shared-name`, keyed('key-a'));
    assert.is(again.headers.get('x-cache-status'), 'HIT', 'key A still reads its own');
    assert.is(again.body.data.url, `${fx.url}/echo?tenant-a`);
  } finally {
    await app.close();
  }
});

test('concurrent identical requests: one computation, one MISS charged, the others HITs that cost nothing', async () => {
  const app = await startHandlers({ REFRACT_API_KEYS: 'k1' });
  try {
    let reached!: () => void;
    const reachedTarget = new Promise<void>((r) => {
      reached = r;
    });
    let release!: () => void;
    gate = {
      reached,
      release: new Promise<void>((r) => {
        release = r;
      }),
    };
    const before = (await call(app.pro, `url=${q(`${fx.url}/echo?quota-probe`)}`, keyed('k1'))).headers.get(
      'x-rate-limit-remaining',
    );
    const query = `url=${q(`${fx.url}/versioned`)}&ttl=1h`;
    // Counts the requests that reached the engine, so that the nine others are known to wait on the first's work.
    const extract = app.engine.extract;
    let entered = 0;
    let allIn!: () => void;
    const inside = new Promise<void>((r) => {
      allIn = r;
    });
    app.engine.extract = ((...args: Parameters<typeof extract>) => {
      if (++entered === 10) allIn();
      return (extract as (...a: unknown[]) => unknown).apply(app.engine, args);
    }) as typeof extract;
    const first = call(app.pro, query, keyed('k1'));
    await reachedTarget;
    gate = undefined;
    const others = Array.from({ length: 9 }, () => call(app.pro, query, keyed('k1')));
    await inside;
    // Their cache reads (settled promises in memory) are done once the microtasks have run.
    await new Promise<void>((r) => setImmediate(r));
    release();
    const all = await Promise.all([first, ...others]);
    const states = all.map((r) => r.headers.get('x-cache-status'));
    assert.is(states.filter((s) => s === 'MISS').length, 1, states.join(' '));
    assert.is(states.filter((s) => s === 'HIT').length, 9, states.join(' '));
    assert.is(new Set(all.map((r) => r.body.data.title)).size, 1);
    const after = (await call(app.pro, `url=${q(`${fx.url}/echo?quota-probe-2`)}`, keyed('k1'))).headers.get(
      'x-rate-limit-remaining',
    );
    assert.is(Number(before) - Number(after), 2, 'one MISS for the ten, plus the probe');
  } finally {
    gate = undefined;
    await app.close();
  }
});

test('staleTtl: past it the stored copy is served as STALE and regenerated once in the background', async () => {
  const clock = manualClock();
  const app = await startHandlers({ REFRACT_API_KEYS: 'k1' }, [], { clock });
  try {
    const query = `url=${q(`${fx.url}/versioned`)}&ttl=1h&staleTtl=10m`;
    const pro = () => call(app.pro, query, keyed('k1'));
    const first = await pro();
    assert.is(first.headers.get('x-cache-status'), 'MISS');
    const v1 = first.body.data.title;
    clock.advance(5 * 60_000);
    assert.is((await pro()).headers.get('x-cache-status'), 'HIT');
    clock.advance(6 * 60_000);
    let reached!: () => void;
    const reachedTarget = new Promise<void>((r) => {
      reached = r;
    });
    let release!: () => void;
    gate = {
      reached,
      release: new Promise<void>((r) => {
        release = r;
      }),
    };
    const refreshed = once(app.engine.events, 'refresh');
    const stale = await pro();
    assert.is(stale.headers.get('x-cache-status'), 'STALE');
    assert.is(stale.body.data.title, v1, 'the stored copy answers at once');
    await reachedTarget;
    const hits = hitsOf('/versioned');
    const again = await pro();
    assert.is(again.headers.get('x-cache-status'), 'STALE');
    assert.is(hitsOf('/versioned'), hits, 'one refresh, not one per request');
    gate = undefined;
    release();
    const [event] = (await refreshed) as [{ ok: boolean }];
    assert.ok(event.ok);
    const after = await pro();
    assert.is(after.headers.get('x-cache-status'), 'HIT');
    assert.is.not(after.body.data.title, v1);
  } finally {
    gate = undefined;
    await app.close();
  }
});

test('ETag and If-None-Match answer 304 without a body', async () => {
  const app = await startHandlers();
  try {
    const query = `url=${q(`${fx.url}/echo?etag`)}`;
    const first = await call(app.free, query);
    const etag = first.headers.get('etag');
    assert.ok(etag && /^"[\w-]+"$/.test(etag), String(etag));
    const again = await call(app.free, query, { headers: { 'if-none-match': etag! } });
    assert.is(again.status, 304);
    assert.is(again.raw.byteLength, 0);
    assert.is(again.headers.get('etag'), etag);
    const changed = await call(app.free, `${query}&filter=title`, { headers: { 'if-none-match': etag! } });
    assert.is(changed.status, 200);
  } finally {
    await app.close();
  }
});

test('requests that differ in their target alone each answer for their own target, a bad one refused as such', async () => {
  const app = await startHandlers();
  try {
    const options = 'prerender=false&filter=title,url';
    const first = await call(app.free, `${options}&url=${q(`${fx.url}/echo?n=1`)}`);
    assert.is(first.body.data.title, 'echo');
    // The same options for other targets: a plan kept for those options is taken for each, with its own target.
    const second = await call(app.free, `${options}&url=${q(`${fx.url}/versioned?utm_source=x&n=2#top`)}`);
    assert.is(second.body.data.url, `${fx.url}/versioned?n=2`, 'canonical, tracking parameters gone');
    assert.match(second.body.data.title, /^version \d+$/);
    for (const [bad, code] of [
      [q('ftp://example.com/'), 'EINVALURL'],
      ['', 'EINVALURL'],
      [q('no url at all'), 'EINVALURL'],
    ]) {
      const res = await call(app.free, `${options}&url=${bad}`);
      assert.is(res.status, 400, bad);
      assert.is(res.body.code, code, bad);
    }
    // Two targets in one query are refused as before, however the options were kept.
    assert.is((await call(app.free, `${options}&url=${q(`${fx.url}/echo`)}&url=${q(`${fx.url}/echo?2`)}`)).status, 400);
  } finally {
    await app.close();
  }
});

test('a failure is remembered briefly: the same bad request does not reach the target again until it expires', async () => {
  const clock = manualClock();
  const app = await startHandlers({ REFRACT_FAILURE_TTL: '30s' }, [], { clock });
  try {
    const query = `url=${q(`${fx.url}/challenge`)}`;
    const first = await call(app.free, query);
    assert.is(first.body.code, 'EPROXYNEEDED');
    assert.is(first.headers.get('x-cache-status'), 'MISS');
    const hits = hitsOf('/challenge');
    const second = await call(app.free, query);
    assert.is(second.body.code, 'EPROXYNEEDED');
    assert.is(second.status, first.status);
    assert.is(second.headers.get('x-cache-status'), 'HIT');
    assert.is(hitsOf('/challenge'), hits);
    clock.advance(31_000);
    await call(app.free, query);
    assert.is(hitsOf('/challenge'), hits + 1);
  } finally {
    await app.close();
  }
});

test.run();
