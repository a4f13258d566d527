// Connections of the distributed crawl (distributed.ts) to Redis: ones BullMQ's workers can block on, checked once.
import type { Redis } from 'ioredis';
import pTimeout from 'p-timeout';

/** A connection whose commands wait for Redis indefinitely (BullMQ's workers need it), reconnecting on its own. */
export async function connect(url: string): Promise<Redis> {
  // Loaded with the first connection, not with the engine (see engine/store/state.ts).
  const { Redis } = await import('ioredis');
  // BullMQ's workers need commands that wait for Redis indefinitely instead of failing after retries.
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on('error', () => undefined); // reconnects on its own; an unreachable Redis is reported by `connectChecked`
  return redis;
}

/** Connects, and fails clearly when Redis does not answer in time instead of waiting for it forever. */
export async function connectChecked(url: string, ms = 5000): Promise<Redis> {
  const redis = await connect(url);
  try {
    await pTimeout(redis.ping(), {
      milliseconds: ms,
      message: `Redis at ${new URL(url).host} did not answer within ${ms / 1000} s`,
    });
    return redis;
  } catch (err) {
    redis.disconnect();
    throw err;
  }
}

/**
 * Waits for a BullMQ worker's or queue's close at most `ms`, and cuts the connections (`cut`) when it is late.
 * BullMQ's close waits for the jobs in flight and then for its blocking connection's end, which never comes when
 * that connection was caught reconnecting (Redis gone and back: BullMQ issues #2430 and #4656; here, a SIGTERM
 * after Redis returned waited out the 10 s hard exit in 2 of 5 runs). What a cut worker held is not lost: a page's
 * or a job's lock expires and the queue hands it to another process. Answers whether the close finished in time.
 */
export async function closeInTime(closing: Promise<unknown>, ms: number, cut: () => void): Promise<boolean> {
  const settled = closing.then(
    () => true,
    () => true,
  );
  const inTime = await pTimeout(settled, { milliseconds: ms, fallback: () => false });
  if (!inTime) cut();
  return inTime;
}
