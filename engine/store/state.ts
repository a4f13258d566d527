import { redisCounters, redisLocks, redisStore, watchLink } from './state-redis.ts';
import type Keyv from 'keyv';
import type { Logger } from '../kernel/log.ts';

/** Where "now" comes from: the wall clock in production, a hand-moved one in tests (no sleeps). */
export interface Clock {
  now(): number;
}
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
  /** Keeps the lock this caller holds for `ttlMs` more. */
  renew(key: string, ttlMs: number): Promise<void>;
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

/** In-memory counters: a map whose expired windows are swept as new ones are written. */
function memoryCounters(clock: Clock): Counters {
  const counts = new Map<string, { n: number; expireAt: number }>();
  let sweepAt = 0;
  const live = (key: string) => {
    const c = counts.get(key);
    if (c && c.expireAt <= clock.now()) {
      counts.delete(key);
      return undefined;
    }
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

/**
 * Creates the shared state: Redis when a URL is configured, otherwise this process's memory. An unreachable Redis
 * fails the start; once started, Redis may come and go (see `SharedState.attempt`).
 */
export async function createState(redisUrl: string | undefined, clock: Clock, logger: Logger): Promise<SharedState> {
  if (!redisUrl) {
    return {
      kind: 'memory',
      counters: memoryCounters(clock),
      healthy: () => true,
      errors: () => 0,
      attempt: (op) => op(),
      close: async () => undefined,
    };
  }
  // Without an offline queue a command fails at once while the connection is down, instead of waiting for it.
  // ioredis is the one Redis client of the service (BullMQ's too), loaded only with Redis: it defines a String
  // subclass at load, which slows every parser of the process (test/engine/v8-fast-paths.test.ts; patched here,
  // but a project that installs this package gets it as published).
  const { Redis } = await import('ioredis');
  const client = new Redis(redisUrl, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
  // Reconnects are the client's job (it retries with backoff); the link logs the state change.
  const link = watchLink(client, logger);
  // Redis away at start is Redis lost (the link logs it and readiness reports it): the process serves from its
  // memory, and the client keeps reconnecting on its own.
  await client.connect().catch(() => undefined);
  const { locks: remote, close } = await redisLocks(client);
  const store = redisStore(client);
  const local = memoryCounters(clock);
  const redis = redisCounters(client);
  const counters: Counters = {
    incr: (key, expireAt) =>
      link.attempt(
        () => redis.incr(key, expireAt),
        () => local.incr(key, expireAt),
      ),
    get: (key) =>
      link.attempt(
        () => redis.get(key),
        () => local.get(key),
      ),
  };
  // Without Redis every process computes for itself: the lock is taken, released and waited for at once.
  const locks: Locks = {
    acquire: (key, ttlMs) =>
      link.attempt(
        () => remote.acquire(key, ttlMs),
        () => true,
      ),
    renew: (key, ttlMs) =>
      link.attempt(
        () => remote.renew(key, ttlMs),
        () => undefined,
      ),
    release: (key) =>
      link.attempt(
        () => remote.release(key),
        () => undefined,
      ),
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
