import Keyv from 'keyv';
import { LRUCache } from 'lru-cache';

/** What the cache keeps: any JSON value with its lifetime (the request path stores its answers). */
export interface Stored {
  createdAt: number;
  expiresAt: number;
}

/** Cross-process locks (Redis), so that one process computes what all of them asked for at once. */
export interface CacheLocks {
  acquire(key: string, ttlMs: number): Promise<boolean>;
  renew(key: string, ttlMs: number): Promise<void>;
  release(key: string): Promise<void>;
  wait(key: string, timeoutMs: number): Promise<void>;
}

/**
 * How long a process's lock on computing an entry outlives the process: it renews the lock while it computes, so a
 * process killed mid-computation (SIGKILL) holds up the others' requests for the same entry this long, not for the
 * whole computation's deadline (its timeout and 5 s more: a monitor's reads on another process stopped for 35 s).
 */
export const HOLD_MS = 5000;

/** The response cache: Keyv over a byte-bounded LRU in memory (or another Keyv store), with coalescing. */
export interface Cache<E extends Stored = Stored> {
  get(key: string): Promise<E | undefined>;
  set(key: string, entry: E): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Runs `compute` once for concurrent callers of the same key: in this process always, and across processes
   * when locks are given (the others wait for the holder and read what it stored). `compute` stores its entry.
   */
  coalesce(key: string, compute: () => Promise<E>, waitMs: number): Promise<E>;
  close(): Promise<void>;
}

/** Freezes an entry and everything in it: stored entries are shared by every request that reads them. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The memory an entry takes, as its serialized size (UTF-16) plus bookkeeping. */
const sizeOf = (text: string) => text.length * 2 + 200;

/**
 * Creates the cache. Without a store the entries live in this process, in an LRU bounded by `maxBytes` of their
 * serialized size, and a read answers the stored (frozen) entry itself: no copy, no parsing. With a store (Redis,
 * through Keyv) entries are kept as JSON; the last parsed form of each recently read key is kept beside it, so that
 * reading unchanged text answers the same frozen entry again. Either way an unchanged entry is the same object,
 * which lets callers keep what they derive from it (a rendered body) for as long as it lives.
 */
export function createCache<E extends Stored = Stored>(opts: {
  maxBytes: number;
  store?: Keyv['store'];
  locks?: CacheLocks;
  now?: () => number;
  /** Runs a store operation, or its fallback when the store is unreachable (SharedState.attempt). */
  attempt?: <T>(op: () => Promise<T>, fallback: () => T | Promise<T>) => Promise<T>;
}): Cache<E> {
  const now = opts.now ?? Date.now;
  const attempt = opts.attempt ?? ((op) => op());
  const maxSize = Math.max(1024, opts.maxBytes);
  const local = opts.store ? undefined : new LRUCache<string, E>({ maxSize });
  const keyv = opts.store ? new Keyv({ store: opts.store, namespace: 'refract' }) : undefined;
  const parsed =
    keyv &&
    new LRUCache<string, { text: string; entry: E }>({ max: 1000, maxSize, sizeCalculation: (v) => sizeOf(v.text) });
  const inflight = new Map<string, Promise<E>>();
  const read = async (key: string): Promise<E | undefined> => {
    if (local) return local.get(key);
    // An unreachable store is a miss.
    const text = (await attempt(
      () => keyv!.get(key),
      () => undefined,
    )) as string | undefined;
    if (typeof text !== 'string') return undefined;
    const known = parsed!.get(key);
    if (known?.text === text) return known.entry;
    const entry = deepFreeze(JSON.parse(text) as E);
    parsed!.set(key, { text, entry });
    return entry;
  };
  const cache: Cache<E> = {
    async get(key) {
      const entry = await read(key);
      return entry && entry.expiresAt > now() ? entry : undefined;
    },
    async set(key, entry) {
      const text = JSON.stringify(entry);
      // The store's own expiry is on the wall clock and only frees memory; freshness is judged with `now`.
      const ttl = Math.max(1000, entry.expiresAt - now());
      if (local) local.set(key, deepFreeze(JSON.parse(text) as E), { ttl, size: sizeOf(text) });
      else
        await attempt(
          () => keyv!.set(key, text, ttl),
          () => false,
        );
    },
    async delete(key) {
      if (local) local.delete(key);
      else {
        parsed!.delete(key);
        await attempt(
          () => keyv!.delete(key),
          () => false,
        );
      }
    },
    coalesce(key, compute, waitMs) {
      const running = inflight.get(key);
      if (running) return running;
      const promise = (opts.locks ? acrossProcesses(key, compute, waitMs) : compute()).finally(() =>
        inflight.delete(key),
      );
      inflight.set(key, promise);
      return promise;
    },
    async close() {
      await keyv?.disconnect?.();
    },
  };
  async function acrossProcesses(key: string, compute: () => Promise<E>, waitMs: number): Promise<E> {
    const locks = opts.locks!;
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (await locks.acquire(key, HOLD_MS)) {
        // Renewed while this process computes: killed, it lets the lock lapse within HOLD_MS.
        const renewing = setInterval(() => void locks.renew(key, HOLD_MS).catch(() => undefined), HOLD_MS / 3);
        renewing.unref();
        try {
          return await compute();
        } finally {
          clearInterval(renewing);
          await locks.release(key);
        }
      }
      // Another process is computing it: wait for its release, then read what it stored. Asked again every HOLD_MS:
      // a holder that was killed releases nothing, and its lock lapses.
      await locks.wait(key, Math.max(1, Math.min(HOLD_MS, deadline - Date.now())));
      const stored = await cache.get(key);
      if (stored) return stored;
      if (Date.now() >= deadline) return compute();
    }
  }
  return cache;
}
