// Two Refract processes on one real Redis: shared cache, shared quota, a restart keeps the cache, and
// identical concurrent requests to both processes compute once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startChild } from '../util/child.ts';
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

test('Redis killed mid-run: requests still answer (misses, local counting), readiness says so, and Redis is used again once back', async () => {
  const own = await startOwnRedis();
  const app = await startChild(ROOT, { ...env(), REDIS_URL: own.url, REFRACT_FREE_QUOTA: '1000' }, { keepLog: true });
  const ready = async () => (await fetch(`${app.url}/readyz`)).status;
  /** Polls readiness until it is `want` (Redis coming back is noticed by the client's reconnect, on its own time). */
  const until = async (want: number) => {
    for (const end = Date.now() + 20_000; Date.now() < end; ) if ((await ready()) === want) return;
    assert.unreachable(`readiness did not become ${want}`);
  };
  try {
    const query = (tag: string) => `url=${q(`${fx.url}/shared?${tag}`)}`;
    assert.is((await call(app.url, query('a'))).headers.get('x-cache-status'), 'MISS');
    assert.is((await call(app.url, query('a'))).headers.get('x-cache-status'), 'HIT');
    assert.is(await ready(), 200);
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
    await until(503);
    const checks = ((await (await fetch(`${app.url}/readyz`)).json()) as { data: { checks: { redis: boolean } } }).data
      .checks;
    assert.is(checks.redis, false);
    await own.restart();
    await until(200);
    assert.is((await call(app.url, query('b'))).headers.get('x-cache-status'), 'MISS');
    assert.is(
      (await call(app.url, query('b'))).headers.get('x-cache-status'),
      'HIT',
      'the cache in Redis is used again',
    );
    const log = app.log();
    assert.is(log.split('Redis is unreachable').length - 1, 1, 'the loss is logged once');
    assert.is(log.split('Redis is reachable again').length - 1, 1, 'the return is logged once');
  } finally {
    await app.stop();
    await own.kill();
  }
});

test.run();
