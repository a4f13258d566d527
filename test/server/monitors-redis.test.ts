// Monitors with REDIS_URL, on a real Redis and real server processes (issue 54, item 2): a monitor on a 2-second
// schedule made through one process and read through the other is read once a tick (counted at the target),
// whichever process runs it; it keeps being read after the process that made it is killed with SIGKILL, and a process
// started afterwards answers it with its history. Waits are for reads of the page, never sleeps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter, once } from 'node:events';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startChild, type Child } from '../util/child.ts';
import { startRedis, type TestRedis } from '../util/redis.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVERY_MS = 2000;
let fx: Fixture;
let redis: TestRedis;
const children: Child[] = [];
/** When the target was read (epoch ms), and a signal at each read. */
const reads: number[] = [];
const seen = new EventEmitter();
let price = '19.99';

const env = () => ({
  PORT: '0',
  PRO_PORT: '0',
  HOST: '127.0.0.1',
  REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  REFRACT_LOG_LEVEL: 'info',
  REDIS_URL: redis.url,
  REFRACT_API_KEYS: 'key-a,key-b',
  REFRACT_MONITOR_MIN_INTERVAL: '1s',
  REFRACT_PROBE_TIMEOUT: '0',
});

test.before(async () => {
  redis = await startRedis();
  fx = await serveFixtures({
    '/price': (_, res) => {
      reads.push(Date.now());
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><head><title>Price</title></head><body><main><h1>Tea</h1><p class="price">${price}</p><p>Loose leaf green tea from the hills, picked in spring and dried in the shade.</p></main></body></html>`,
      );
      seen.emit('read');
    },
  });
});

test.after(async () => {
  await Promise.all(children.map((c) => c.stop().catch(() => undefined)));
  await fx.close();
  await redis.close();
});

async function api(base: string, method: string, route: string, body?: unknown, key = 'key-a') {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}
/** Waits (at most 30 s) for `n` more reads of the target. */
async function readsMore(n: number): Promise<void> {
  const target = reads.length + n;
  const limit = AbortSignal.timeout(30_000);
  while (reads.length < target) {
    if (limit.aborted) throw new Error(`waited 30 s for ${n} reads, saw ${reads.length - (target - n)}`);
    await once(seen, 'read', { signal: limit }).catch(() => undefined);
  }
}

test('one read a tick across two processes; a SIGKILL of one leaves the schedule running; a new process answers it', async () => {
  const [a, b] = await Promise.all([startChild(ROOT, env()), startChild(ROOT, env())]);
  children.push(a, b);
  const created = await api(a.proUrl, 'POST', '/monitors', {
    url: `${fx.url}/price`,
    query: 'data.price.selector=.price',
    every: EVERY_MS,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id as string;
  // Seen from the other process too, and from no other key.
  assert.is((await api(b.proUrl, 'GET', `/monitors/${id}`)).body.data.url, `${fx.url}/price`);
  assert.is((await api(b.proUrl, 'GET', `/monitors/${id}`, undefined, 'key-b')).status, 404);

  const from = reads.length;
  await readsMore(5);
  price = '17.49';
  await readsMore(2);
  // Once a tick: two processes each reading it would read it twice within a moment.
  const gaps = reads.slice(from + 1).map((t, i) => t - reads[from + i]!);
  assert.ok(
    gaps.every((g) => g > EVERY_MS / 2),
    `reads ${EVERY_MS} ms apart, never twice a tick: ${gaps.join(', ')}`,
  );
  const history = await api(b.proUrl, 'GET', `/monitors/${id}/changes`);
  assert.equal(
    history.body.data.changes.map((c: any) => c.status),
    ['changed', 'new'],
  );
  assert.equal(history.body.data.changes[0].diff.fields, { price: { before: '19.99', after: '17.49' } });

  a.process.kill('SIGKILL');
  await a.exited;
  const afterKill = reads.length;
  await readsMore(3);
  assert.ok(reads.length - afterKill >= 3, 'still read on schedule by the process left');

  const c = await startChild(ROOT, env());
  children.push(c);
  const monitor = (await api(c.proUrl, 'GET', `/monitors/${id}`)).body.data;
  assert.ok(monitor.runs >= 7, `runs counted across processes: ${monitor.runs}`);
  assert.is((await api(c.proUrl, 'GET', `/monitors/${id}/changes`)).body.data.changes.length, 2);
  assert.is((await api(c.proUrl, 'DELETE', `/monitors/${id}`)).status, 200);
  assert.is((await api(b.proUrl, 'GET', `/monitors/${id}`)).status, 404);
});

test.run();
