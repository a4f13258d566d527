// The cache's lock across processes (engine/store/cache.ts, on a real Redis through state-redis.ts): a process
// killed while it computes an entry holds up the others' requests for it about HOLD_MS, not the computation's whole
// deadline (a monitor's reads on the process left stopped for 35 s: test/server/monitors-redis.test.ts); a holder
// that is alive and slower than HOLD_MS keeps its lock, and the others read what it stored.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { createCache, HOLD_MS } from '../../engine/store/cache.ts';
import { redisLocks, redisStore } from '../../engine/store/state-redis.ts';
import type { CacheEntry } from '../../engine/request/extraction.ts';
import { startRedis, type TestRedis } from '../util/redis.ts';

let redis: TestRedis;
const clients: Redis[] = [];
const closers: (() => Promise<void>)[] = [];

test.before(async () => {
  redis = await startRedis();
});

test.after(async () => {
  for (const close of closers) await close();
  for (const c of clients) c.disconnect();
  await redis.close();
});

const entry = (title: string): CacheEntry => ({
  data: { title },
  fetchMode: 'fetch',
  fetchTimeMs: 1,
  warnings: [],
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
});

/** A process's cache over the shared Redis, as the server builds it. */
async function processCache() {
  const client = new Redis(redis.url);
  clients.push(client);
  const { locks, close } = await redisLocks(client);
  closers.push(close);
  return { cache: createCache<CacheEntry>({ maxBytes: 1 << 20, store: redisStore(client), locks }), locks };
}

const within = <T>(ms: number, what: string, p: Promise<T>) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref()),
  ]);

test('a lock whose holder was killed lapses: another process computes the entry well before the deadline', async () => {
  const killed = await processCache();
  // What a process killed mid-computation leaves: its lock, taken as coalesce takes it, never renewed nor released.
  assert.ok(await killed.locks.acquire('k1', HOLD_MS));
  const left = await processCache();
  let computed = 0;
  const got = await within(
    HOLD_MS * 2 + 2000,
    'the entry',
    left.cache.coalesce(
      'k1',
      async () => {
        computed++;
        const e = entry('computed by the process left');
        await left.cache.set('k1', e);
        return e;
      },
      60_000,
    ),
  );
  assert.is(computed, 1);
  assert.is(got.data.title, 'computed by the process left');
});

test('a live holder slower than HOLD_MS keeps its lock: the other process reads what it stored, computing nothing', async () => {
  const slow = await processCache();
  const other = await processCache();
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let started!: () => void;
  const begun = new Promise<void>((r) => {
    started = r;
  });
  const first = slow.cache.coalesce(
    'k2',
    async () => {
      started();
      await held;
      const e = entry('the slow holder');
      await slow.cache.set('k2', e);
      return e;
    },
    60_000,
  );
  await begun;
  let computed = 0;
  const second = other.cache.coalesce(
    'k2',
    async () => {
      computed++;
      return entry('computed twice');
    },
    60_000,
  );
  // The holder computes for twice HOLD_MS (its lock renewed meanwhile), then stores and releases.
  await new Promise((r) => setTimeout(r, HOLD_MS * 2));
  release();
  assert.is((await first).data.title, 'the slow holder');
  assert.is((await second).data.title, 'the slow holder');
  assert.is(computed, 0, 'the waiting process computed nothing');
});

test.run();
