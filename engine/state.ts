import type { Redis } from 'ioredis';
import type Keyv from 'keyv';
import type { Logger } from './log.ts';

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
  /** False while Redis is set and unreachable (what needs it then falls back; see `attempt`). */
  healthy(): boolean;
  /** Failed Redis operations so far (each one answered by its fallback). */
  errors(): number;
  /**
   * Runs an operation on the shared store, or answers `fallback` at once while Redis is unreachable, and when the
   * operation fails or takes over a second: Redis going away costs cache misses and local counting, never an answer.
   */
  attempt<T>(op: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** How long one Redis operation may take before its fallback answers (a hung server answers nothing). */
const OP_TIMEOUT_MS = 1000;
/** How often an unreachable Redis is probed while it is marked down. */
const PROBE_EVERY_MS = 1000;

/**
 * Whether Redis answers: down on a connection error or a failed operation, up again when the client is ready and
 * a PING answers. Each change is logged once (not each failed command).
 */
function watchLink(client: Redis, logger: Logger) {
  const ready = () => client.status === 'ready';
  let up = true;
  let errors = 0;
  let probe: NodeJS.Timeout | undefined;
  let closing = false;
  const markUp = () => {
    if (up) return;
    up = true;
    clearInterval(probe);
    probe = undefined;
    logger.warn('Redis is reachable again: the shared cache, quotas and locks are used again');
  };
  const markDown = (err: unknown) => {
    errors++;
    if (!up) return;
    up = false;
    logger.error('Redis is unreachable: cache reads miss, quotas count in this process and nothing is coalesced across processes until it is back', err);
    probe = setInterval(() => {
      if (ready()) void within(client.ping(), OP_TIMEOUT_MS).then(markUp, () => undefined);
    }, PROBE_EVERY_MS);
    probe.unref();
  };
  client.on('error', markDown);
  // A connection the server dropped is lost at once (ioredis reports refused reconnects only after its retries).
  client.on('close', () => { if (!closing) markDown(new Error('the connection to Redis closed')); });
  client.on('ready', () => { if (!up) void within(client.ping(), OP_TIMEOUT_MS).then(markUp, () => undefined); });
  return {
    healthy: () => up && ready(),
    errors: () => errors,
    async attempt<T>(op: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
      if (!up || !ready()) return fallback();
      try {
        return await within(op(), OP_TIMEOUT_MS);
      } catch (err) {
        markDown(err);
        return fallback();
      }
    },
    stop: () => { closing = true; clearInterval(probe); },
  };
}

/** The promise, or a rejection once `ms` passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
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
function redisCounters(client: Redis): Counters {
  return {
    async incr(key, expireAt) {
      const [[err, n] = [null, 0]] = (await client.multi().incr(PREFIX + key).pexpireat(PREFIX + key, expireAt).exec()) ?? [];
      if (err) throw err;
      return Number(n);
    },
    async get(key) {
      return Number((await client.get(PREFIX + key)) ?? 0);
    },
  };
}

/** Locks in Redis: SET NX PX to take one, DEL + PUBLISH to release it, a subscription to wait for it. */
async function redisLocks(client: Redis): Promise<{ locks: Locks; close(): Promise<void> }> {
  // A subscribed connection takes no other command: the subscriber is a connection of its own.
  const subscriber = client.duplicate({ enableOfflineQueue: true });
  // Without a listener, a dropped connection is an unhandled 'error' event that ends the process.
  subscriber.on('error', () => undefined);
  const waiters = new Map<string, Set<() => void>>();
  const channel = `${PREFIX}released`;
  subscriber.on('message', (_: string, key: string) => {
    for (const wake of waiters.get(key) ?? []) wake();
    waiters.delete(key);
  });
  await subscriber.subscribe(channel);
  const locks: Locks = {
    async acquire(key, ttlMs) {
      return (await client.set(`${PREFIX}lock:${key}`, '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
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

/** The response cache's Keyv store on Redis: text values with a lifetime in milliseconds (Keyv adds the namespace). */
function redisStore(client: Redis): Keyv['store'] {
  const store = {
    async get(key: string) { return (await client.get(key)) ?? undefined; },
    async set(key: string, value: string, ttl?: number) {
      await (ttl ? client.set(key, value, 'PX', Math.max(1, Math.round(ttl))) : client.set(key, value));
      return true;
    },
    async delete(key: string) { return (await client.del(key)) > 0; },
    async clear() { /* the cache never clears the shared store: other processes read it */ },
    on() { return store; },
  };
  return store as unknown as Keyv['store'];
}

/**
 * Creates the shared state: Redis when a URL is configured, otherwise this process's memory. An unreachable Redis
 * fails the start; once started, Redis may come and go (see `SharedState.attempt`).
 */
export async function createState(redisUrl: string | undefined, clock: Clock, logger: Logger): Promise<SharedState> {
  if (!redisUrl) {
    return { kind: 'memory', counters: memoryCounters(clock), healthy: () => true, errors: () => 0, attempt: (op) => op(), close: async () => undefined };
  }
  // Without an offline queue a command fails at once while the connection is down, instead of waiting for it.
  // ioredis is the one Redis client of the service (BullMQ's too), loaded only with Redis: it defines a String
  // subclass at load, which slows every parser of the process (test/engine/v8-fast-paths.test.ts; patched here,
  // but a project that installs this package gets it as published).
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
  // Reconnects are the client's job (it retries with backoff); the link logs the state change.
  const link = watchLink(client, logger);
  await client.connect();
  const { locks: remote, close } = await redisLocks(client);
  const store = redisStore(client);
  const local = memoryCounters(clock);
  const redis = redisCounters(client);
  const counters: Counters = {
    incr: (key, expireAt) => link.attempt(() => redis.incr(key, expireAt), () => local.incr(key, expireAt)),
    get: (key) => link.attempt(() => redis.get(key), () => local.get(key)),
  };
  // Without Redis every process computes for itself: the lock is taken, released and waited for at once.
  const locks: Locks = {
    acquire: (key, ttlMs) => link.attempt(() => remote.acquire(key, ttlMs), () => true),
    release: (key) => link.attempt(() => remote.release(key), () => undefined),
    wait: (key, timeoutMs) => (link.healthy() ? remote.wait(key, timeoutMs) : Promise.resolve()),
  };
  return {
    kind: 'redis',
    store,
    counters,
    locks,
    healthy: link.healthy,
    errors: link.errors,
    attempt: link.attempt,
    async close() {
      link.stop();
      await close();
      await client.quit().catch(() => undefined);
    },
  };
}
