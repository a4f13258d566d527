// Two Refract processes on one real Redis: shared cache, shared quota, a restart keeps the cache, and
// identical concurrent requests to both processes compute once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startChild, type Child } from '../util/child.ts';
import { startRedis, startOwnRedis, type TestRedis } from '../util/redis.ts';
import { call, q } from '../util/refract.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
let fx: Fixture;
let redis: TestRedis;
let gate: { reached: () => void; release: Promise<void> } | undefined;

const env = () => ({
  PORT: '0',
  PRO_PORT: '0',
  HOST: '127.0.0.1',
  REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  REFRACT_LOG_LEVEL: 'info',
  REDIS_URL: redis.url,
  REFRACT_FREE_QUOTA: '4',
  REFRACT_PROBE_TIMEOUT: '0',
});

test.before(async () => {
  redis = await startRedis();
  fx = await serveFixtures({
    '/shared': async (_: IncomingMessage, res: ServerResponse) => {
      const held = gate;
      if (held) {
        held.reached();
        await held.release;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Shared</title></head><body><p>A page both processes read.</p></body></html>');
    },
  });
});

test.after(async () => {
  await fx.close();
  await redis.close();
});

const hits = (p: string) => fx.hits.filter((h) => h.startsWith(p)).length;

test('a MISS on one process is a HIT on the other, the quota is shared, and a restart keeps the cache', async () => {
  await redis.flush();
  const a = await startChild(ROOT, env());
  const b = await startChild(ROOT, env());
  let restarted: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const query = `url=${q(`${fx.url}/shared?one`)}`;
    const missA = await call(a.url, query);
    assert.is(missA.status, 200, JSON.stringify(missA.body));
    assert.is(missA.headers.get('x-cache-status'), 'MISS');
    const hitB = await call(b.url, query);
    assert.is(hitB.headers.get('x-cache-status'), 'HIT');
    assert.equal(hitB.body.data, missA.body.data);
    // Quota of 4 per IP, counted in Redis: one miss on A, then two on B and one on A; the fifth is refused on either.
    assert.is(missA.headers.get('x-rate-limit-remaining'), '3');
    assert.is((await call(b.url, `url=${q(`${fx.url}/shared?two`)}`)).headers.get('x-rate-limit-remaining'), '2');
    assert.is((await call(b.url, `url=${q(`${fx.url}/shared?three`)}`)).headers.get('x-rate-limit-remaining'), '1');
    assert.is((await call(a.url, `url=${q(`${fx.url}/shared?four`)}`)).headers.get('x-rate-limit-remaining'), '0');
    const refused = await call(b.url, `url=${q(`${fx.url}/shared?five`)}`);
    assert.is(refused.status, 429);
    assert.is(refused.body.code, 'ERATE');
    await a.stop();
    restarted = await startChild(ROOT, env());
    const afterRestart = await call(restarted.url, query);
    assert.is(afterRestart.headers.get('x-cache-status'), 'HIT');
    assert.equal(afterRestart.body.data, missA.body.data);
  } finally {
    await restarted?.stop();
    await b.stop();
  }
});

test('identical concurrent requests to two processes compute once', async () => {
  await redis.flush();
  const a = await startChild(ROOT, env());
  const b = await startChild(ROOT, env());
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
    const before = hits('/shared');
    const query = `url=${q(`${fx.url}/shared?together`)}`;
    const first = call(a.url, query);
    await reachedTarget;
    // The first process holds the lock and is blocked at the target; had the second fetched too, its request
    // would reach the target (and be counted) while the gate is still shut.
    const second = call(b.url, query);
    gate = undefined;
    release();
    const [ra, rb] = await Promise.all([first, second]);
    assert.is(ra.status, 200);
    assert.is(rb.status, 200);
    assert.equal(rb.body.data, ra.body.data);
    assert.is(hits('/shared') - before, 1, 'the target was fetched once for both processes');
    // One computation, one MISS: the process that waited on the other's answers a HIT (and charges nothing).
    assert.equal([ra, rb].map((r) => r.headers.get('x-cache-status')).sort(), ['HIT', 'MISS']);
  } finally {
    gate = undefined;
    await a.stop();
    await b.stop();
  }
});

/** Polls a process's readiness until it is `want` (Redis coming back is noticed by the client's reconnect). */
async function readiness(app: Child, want: number) {
  for (const end = Date.now() + 20_000; Date.now() < end; )
    if ((await fetch(`${app.url}/readyz`)).status === want) return;
  assert.unreachable(`readiness did not become ${want}`);
}

/** SIGTERM, and how the process ended: its exit code and how long it took. */
async function sigterm(app: Child): Promise<{ code: number | null; took: number }> {
  const stopping = Date.now();
  await app.stop();
  return { code: await app.exited, took: Date.now() - stopping };
}

test('Redis killed mid-run: requests still answer (misses, local counting), readiness says so, and Redis is used again once back', async () => {
  const own = await startOwnRedis();
  const app = await startChild(
    ROOT,
    { ...env(), REDIS_URL: own.url, REFRACT_FREE_QUOTA: '1000', REFRACT_API_KEYS: 'key-a' },
    { keepLog: true },
  );
  try {
    const query = (tag: string) => `url=${q(`${fx.url}/shared?${tag}`)}`;
    assert.is((await call(app.url, query('a'))).headers.get('x-cache-status'), 'MISS');
    assert.is((await call(app.url, query('a'))).headers.get('x-cache-status'), 'HIT');
    assert.is((await fetch(`${app.url}/readyz`)).status, 200);
    await own.kill();
    // Each request answers while Redis is gone: the cache is a miss, the quota counts in this process.
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const down = await call(app.url, query('a'));
      assert.is(down.status, 200, JSON.stringify(down.body).slice(0, 300));
      assert.is(down.body.data.title, 'Shared');
      assert.ok(Date.now() - started < 5000, 'no wait for Redis');
      assert.ok(down.headers.get('x-rate-limit-remaining'), 'quota headers still come');
    }
    await readiness(app, 503);
    const checks = ((await (await fetch(`${app.url}/readyz`)).json()) as { data: { checks: { redis: boolean } } }).data
      .checks;
    assert.is(checks.redis, false);
    await own.restart();
    await readiness(app, 200);
    assert.is((await call(app.url, query('b'))).headers.get('x-cache-status'), 'MISS');
    assert.is(
      (await call(app.url, query('b'))).headers.get('x-cache-status'),
      'HIT',
      'the cache in Redis is used again',
    );
    // Crawl jobs work again too: their queue's workers took their connections back.
    const posted = await fetch(`${app.proUrl}/crawls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'key-a' },
      body: JSON.stringify({ start: `${fx.url}/shared?crawl`, maxPages: 1 }),
    });
    assert.is(posted.status, 202, await posted.clone().text());
    const { data: job } = (await posted.json()) as { data: { url: string } };
    let status = '';
    for (const end = Date.now() + 20_000; Date.now() < end && status !== 'completed'; ) {
      status = (
        (await (await fetch(`${app.proUrl}${job.url}`, { headers: { 'x-api-key': 'key-a' } })).json()) as {
          data: { status: string };
        }
      ).data.status;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.is(status, 'completed', 'a crawl job after Redis came back');
    const log = app.log();
    assert.is(log.split('Redis is unreachable').length - 1, 1, 'the loss is logged once');
    assert.is(log.split('Redis is reachable again').length - 1, 1, 'the return is logged once');
  } finally {
    await app.stop();
    await own.kill();
  }
});

test('started while Redis is away, a process serves (readiness 503) and uses Redis once it is up; a SIGTERM while Redis is away, or just after it came back, ends it cleanly', async () => {
  const own = await startOwnRedis();
  await own.kill();
  // It did not start at all ("Connection is closed").
  const app = await startChild(ROOT, { ...env(), REDIS_URL: own.url }, { keepLog: true });
  let again: Child | undefined;
  try {
    const query = `url=${q(`${fx.url}/shared?started-away`)}`;
    assert.is((await call(app.url, query)).status, 200);
    await readiness(app, 503);
    await own.restart();
    await readiness(app, 200);
    assert.is((await call(app.url, query)).headers.get('x-cache-status'), 'MISS');
    assert.is((await call(app.url, query)).headers.get('x-cache-status'), 'HIT', 'the cache in Redis is used');
    // BullMQ's close waits for its connections, which do not end while they reconnect: it waited for the hard
    // exit (40 s, exit 1). Each of its closes is now bounded by 4 s (crawl/jobs-redis.ts), side by side.
    await own.kill();
    const away = await sigterm(app);
    assert.is(away.code, 0, `exit code with Redis away; log: ${app.log().slice(-600)}`);
    assert.ok(away.took < 8000, `stopped in ${away.took} ms with Redis away`);
    await own.restart();
    again = await startChild(ROOT, { ...env(), REDIS_URL: own.url }, { keepLog: true });
    assert.is((await call(again.url, `url=${q(`${fx.url}/shared?back`)}`)).status, 200);
    await own.restart();
    const back = await sigterm(again);
    assert.is(back.code, 0, `exit code just after Redis came back; log: ${again.log().slice(-600)}`);
    assert.ok(back.took < 8000, `stopped in ${back.took} ms just after Redis came back`);
  } finally {
    await app.stop();
    await again?.stop();
    await own.kill();
  }
});

test.run();
