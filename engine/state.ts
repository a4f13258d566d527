import KeyvRedis, { createClient, type RedisClientType } from '@keyv/redis';
import type Keyv from 'keyv';

/** Where "now" comes from: the wall clock in production, a hand-moved one in tests (no sleeps). */
export interface Clock { now(): number }
export const systemClock: Clock = { now: () => Date.now() };

/** Counters that expire at a given instant (quota windows). */
export interface Counters {
  /** Adds one and returns the new count; the counter disappears at `expireAt` (epoch ms). */
  incr(key: string, expireAt: number): Promise<number>;
  get(key: string): Promise<number>;
}

/** Cross-process mutual exclusion for computing one cache entry once across every process. */
export interface Locks {
  /** True when this caller now holds the lock (it expires by itself after `ttlMs`). */
  acquire(key: string, ttlMs: number): Promise<boolean>;
  /** Releases the lock and wakes the waiters. */
  release(key: string): Promise<void>;
  /** Resolves when the holder releases the lock (or at once if nobody holds it), at the latest after `timeoutMs`. */
  wait(key: string, timeoutMs: number): Promise<void>;
}

/** The state processes share: the cache store, quota counters, and (with Redis) locks. */
export interface SharedState {
  kind: 'memory' | 'redis';
  /** The Keyv store of the response cache; undefined means the embedded in-memory LRU. */
  store?: Keyv['store'];
  counters: Counters;
  locks?: Locks;
  close(): Promise<void>;
}

/** In-memory counters: a map whose expired windows are swept as new ones are written. */
function memoryCounters(clock: Clock): Counters {
  const counts = new Map<string, { n: number; expireAt: number }>();
  let sweepAt = 0;
  const live = (key: string) => {
    const c = counts.get(key);
    if (c && c.expireAt <= clock.now()) { counts.delete(key); return undefined; }
    return c;
  };
  return {
    async incr(key, expireAt) {
      const now = clock.now();
      if (now >= sweepAt) {
        for (const [k, c] of counts) if (c.expireAt <= now) counts.delete(k);
        sweepAt = now + 60_000;
      }
      const c = live(key) ?? { n: 0, expireAt };
      c.n++;
      counts.set(key, c);
      return c.n;
    },
    async get(key) {
      return live(key)?.n ?? 0;
    },
  };
}

const PREFIX = 'refract:';

/** Counters in Redis: INCR plus an absolute expiry, in one round trip. */
function redisCounters(client: RedisClientType): Counters {
  return {
    async incr(key, expireAt) {
      const [n] = await client.multi().incr(PREFIX + key).pExpireAt(PREFIX + key, expireAt).exec() as unknown as [number];
      return Number(n);
    },
    async get(key) {
      return Number((await client.get(PREFIX + key)) ?? 0);
    },
  };
}

/** Locks in Redis: SET NX PX to take one, DEL + PUBLISH to release it, a subscription to wait for it. */
async function redisLocks(client: RedisClientType): Promise<{ locks: Locks; close(): Promise<void> }> {
  const subscriber = client.duplicate();
  // Without a listener, a dropped connection is an unhandled 'error' event that ends the process.
  subscriber.on('error', () => undefined);
  await subscriber.connect();
  const waiters = new Map<string, Set<() => void>>();
  const channel = `${PREFIX}released`;
  await subscriber.subscribe(channel, (key) => {
    for (const wake of waiters.get(key) ?? []) wake();
    waiters.delete(key);
  });
  const locks: Locks = {
    async acquire(key, ttlMs) {
      return (await client.set(`${PREFIX}lock:${key}`, '1', { condition: 'NX', expiration: { type: 'PX', value: Math.max(1, Math.round(ttlMs)) } })) === 'OK';
    },
    async release(key) {
      await client.del(`${PREFIX}lock:${key}`);
      await client.publish(channel, key);
    },
    wait(key, timeoutMs) {
      return new Promise<void>((resolve) => {
        let done = false;
        const wake = () => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          waiters.get(key)?.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, timeoutMs);
        const set = waiters.get(key) ?? new Set();
        set.add(wake);
        waiters.set(key, set);
        // Registered first, checked second: a release between the holder's work and this line is not missed.
        void client.exists(`${PREFIX}lock:${key}`).then((n) => { if (!n) wake(); }, wake);
      });
    },
  };
  return { locks, close: async () => { await subscriber.quit().catch(() => undefined); } };
}

/** Creates the shared state: Redis when a URL is configured, otherwise this process's memory. */
export async function createState(redisUrl: string | undefined, clock: Clock): Promise<SharedState> {
  if (!redisUrl) return { kind: 'memory', counters: memoryCounters(clock), close: async () => undefined };
  const client = createClient({ url: redisUrl }) as RedisClientType;
  client.on('error', () => undefined); // reconnects are the client's job; each failed command still rejects
  await client.connect();
  const { locks, close } = await redisLocks(client);
  const store = new KeyvRedis(client as never, { namespace: 'refract', keyPrefixSeparator: ':' }) as unknown as Keyv['store'];
  return {
    kind: 'redis',
    store,
    counters: redisCounters(client),
    locks,
    async close() {
      await close();
      await client.quit().catch(() => undefined);
    },
  };
}
