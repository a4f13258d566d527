// The shared state on Redis (state.ts chooses it when a URL is configured): whether Redis answers, its counters,
// its locks and the response cache's store.
import type { Redis } from 'ioredis';
import pTimeout from 'p-timeout';
import type Keyv from 'keyv';
import type { Logger } from '../kernel/log.ts';
import type { Counters, Locks } from './state.ts';

/** How long one Redis operation may take before its fallback answers (a hung server answers nothing). */
export const OP_TIMEOUT_MS = 1000;
/** How often an unreachable Redis is probed while it is marked down. */
export const PROBE_EVERY_MS = 1000;

/**
 * Whether Redis answers: down on a connection error or a failed operation, up again when the client is ready and
 * a PING answers. Each change is logged once (not each failed command).
 */
export function watchLink(client: Redis, logger: Logger) {
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
    logger.error(
      'Redis is unreachable: cache reads miss, quotas count in this process and nothing is coalesced across processes until it is back',
      err,
    );
    probe = setInterval(() => {
      if (ready()) void within(client.ping(), OP_TIMEOUT_MS).then(markUp, () => undefined);
    }, PROBE_EVERY_MS);
    probe.unref();
  };
  client.on('error', markDown);
  // A connection the server dropped is lost at once (ioredis reports refused reconnects only after its retries).
  client.on('close', () => {
    if (!closing) markDown(new Error('the connection to Redis closed'));
  });
  client.on('ready', () => {
    if (!up) void within(client.ping(), OP_TIMEOUT_MS).then(markUp, () => undefined);
  });
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
    stop: () => {
      closing = true;
      clearInterval(probe);
    },
  };
}

/** The promise, or a rejection once `ms` passed. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  pTimeout(promise, { milliseconds: ms, message: `Redis did not answer within ${ms} ms` });

const PREFIX = 'refract:';

/** Counters in Redis: INCR plus an absolute expiry, in one round trip. */
export function redisCounters(client: Redis): Counters {
  return {
    async incr(key, expireAt) {
      const [[err, n] = [null, 0]] =
        (await client
          .multi()
          .incr(PREFIX + key)
          .pexpireat(PREFIX + key, expireAt)
          .exec()) ?? [];
      if (err) throw err;
      return Number(n);
    },
    async get(key) {
      return Number((await client.get(PREFIX + key)) ?? 0);
    },
  };
}

/** Locks in Redis: SET NX PX to take one, DEL + PUBLISH to release it, a subscription to wait for it. */
export async function redisLocks(client: Redis): Promise<{ locks: Locks; close(): Promise<void> }> {
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
  // Sent once the connection is up (this one queues commands while it is down) and sent again after a reconnect.
  void subscriber.subscribe(channel).catch(() => undefined);
  const locks: Locks = {
    async acquire(key, ttlMs) {
      return (await client.set(`${PREFIX}lock:${key}`, '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK';
    },
    async renew(key, ttlMs) {
      await client.pexpire(`${PREFIX}lock:${key}`, Math.max(1, Math.round(ttlMs)));
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
        void client.exists(`${PREFIX}lock:${key}`).then((n) => {
          if (!n) wake();
        }, wake);
      });
    },
  };
  return {
    locks,
    close: async () => {
      await subscriber.quit().catch(() => undefined);
    },
  };
}

/** The response cache's Keyv store on Redis: text values with a lifetime in milliseconds (Keyv adds the namespace). */
export function redisStore(client: Redis): Keyv['store'] {
  const store = {
    async get(key: string) {
      return (await client.get(key)) ?? undefined;
    },
    async set(key: string, value: string, ttl?: number) {
      await (ttl ? client.set(key, value, 'PX', Math.max(1, Math.round(ttl))) : client.set(key, value));
      return true;
    },
    async delete(key: string) {
      return (await client.del(key)) > 0;
    },
    async clear() {
      /* the cache never clears the shared store: other processes read it */
    },
    on() {
      return store;
    },
  };
  return store as unknown as Keyv['store'];
}
