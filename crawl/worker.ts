// `refract worker`: a process that takes page jobs of any distributed crawl from the queue and visits them with its
// engine, each page's result committed once (distributed-keys.ts); a worker outlives many crawls.
// BullMQ (~220 modules) loads when a worker starts, not with every process of the engine.
import type { Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Engine } from '../engine/index.ts';
import { closeInTime, connect, connectChecked } from './redis-connect.ts';
import { pageKey } from './pages.ts';
import { createWalk, type Walk } from './walk.ts';
import { admit, commit, keys, KEEP_SECS, QUEUE, type CrawlSpec, type PageJob } from './distributed-keys.ts';

export interface WorkerOptions {
  redis: string;
  /** Pages this worker visits at once (default 4). */
  concurrency?: number;
  /** A name stored on every job this worker takes (BullMQ's `processedBy`). */
  name?: string;
  /** How long a job's lock lasts without renewal; a dead worker's pages are redone after about this long (default 30 s). */
  lockMs?: number;
  /** A crawl this worker has had no page of for this long is let go (its walk closed; default 60 s). */
  walkIdleMs?: number;
  /** How long the worker may take to be ready before its start fails (default 10 s). */
  readyMs?: number;
}

/**
 * The walks of the crawls a worker has pages of, each made once from the crawl's spec in Redis and let go once none
 * of its pages came for `idleMs` (a worker outlives many crawls).
 */
class WalkCache {
  readonly #walks = new Map<string, Promise<{ walk: Walk; spec: CrawlSpec }>>();
  readonly #busy = new Map<string, number>();
  readonly #idle = new Map<string, NodeJS.Timeout>();
  readonly #engine: Engine;
  readonly #redis: Redis;
  readonly #idleMs: number;
  constructor(engine: Engine, redis: Redis, idleMs: number) {
    this.#engine = engine;
    this.#redis = redis;
    this.#idleMs = idleMs;
  }

  get size(): number {
    return this.#walks.size;
  }

  /** The crawl's walk, made on first use. */
  of(id: string): Promise<{ walk: Walk; spec: CrawlSpec }> {
    let w = this.#walks.get(id);
    if (!w) {
      w = this.#redis.get(keys(id).spec).then((text) => {
        if (!text) throw new Error(`crawl ${id} is not stored in Redis`);
        const spec = JSON.parse(text) as CrawlSpec;
        return { walk: createWalk(this.#engine, spec.input, spec.options), spec };
      });
      w.catch(() => this.#walks.delete(id));
      this.#walks.set(id, w);
    }
    return w;
  }

  /** Runs a page of the crawl: its walk is not let go while a page of it runs, and `idleMs` after the last one ends. */
  async using<T>(id: string, fn: () => Promise<T>): Promise<T> {
    clearTimeout(this.#idle.get(id));
    this.#idle.delete(id);
    this.#busy.set(id, (this.#busy.get(id) ?? 0) + 1);
    try {
      return await fn();
    } finally {
      const left = this.#busy.get(id)! - 1;
      if (left > 0) this.#busy.set(id, left);
      else {
        this.#busy.delete(id);
        if (this.#walks.has(id)) this.#idle.set(id, setTimeout(() => this.#letGo(id), this.#idleMs).unref());
      }
    }
  }

  #letGo(id: string): void {
    const w = this.#walks.get(id);
    this.#walks.delete(id);
    this.#idle.delete(id);
    void w?.then(
      ({ walk }) => walk.close(),
      () => undefined,
    );
  }

  async close(): Promise<void> {
    for (const timer of this.#idle.values()) clearTimeout(timer);
    for (const w of this.#walks.values())
      await w.then(
        ({ walk }) => walk.close(),
        () => undefined,
      );
  }
}

/**
 * A worker: takes page jobs of any crawl from the queue and visits them with this engine. The order within a
 * job makes every page's result land exactly once: visit; admit and queue its links (idempotent); commit the
 * result (the first commit wins). A worker killed mid-page leaves the job's lock to expire; BullMQ's stalled-job
 * check gives the page to another worker, which redoes it unless its result was already committed.
 */
export async function startWorker(
  engine: Engine,
  options: WorkerOptions,
): Promise<{ close(ms?: number): Promise<void>; worker: Worker; walks(): number }> {
  const redis = await connectChecked(options.redis);
  const bull = await import('bullmq');
  const queue = new bull.Queue(QUEUE, { connection: redis });
  queue.on('error', () => undefined); // as the crawl's queue: failing commands reject where they are made
  const walks = new WalkCache(engine, redis, options.walkIdleMs ?? 60_000);
  const lockMs = options.lockMs ?? 30_000;
  const blocking = await connect(options.redis);
  const worker = new bull.Worker(
    QUEUE,
    async (job: Job) => {
      const { crawl: id, url, depth } = job.data as PageJob;
      const [done, cancelled] = await Promise.all([
        redis.sismember(keys(id).done, pageKey(url)),
        redis.exists(keys(id).cancelled),
      ]);
      if (done) return 'already done';
      if (cancelled) return 'cancelled';
      return walks.using(id, async () => {
        const { walk, spec } = await walks.of(id);
        const { result, links } = await walk.visit(url, depth);
        await admit(redis, queue, id, spec.options.maxPages, links);
        await commit(redis, id, result);
        return result.status;
      });
    },
    {
      connection: blocking,
      concurrency: options.concurrency ?? 4,
      name: options.name,
      lockDuration: lockMs,
      stalledInterval: Math.max(1000, Math.floor(lockMs / 2)),
      maxStalledCount: 3,
      removeOnComplete: { age: KEEP_SECS },
      removeOnFail: { age: KEEP_SECS },
    },
  );
  worker.on('error', () => undefined); // a lost connection: BullMQ reconnects, and a page's lock covers the rest
  const cut = () => {
    redis.disconnect();
    blocking.disconnect();
  };
  // Redis lost while the worker starts can leave its readiness waiting for good: a start that is late fails (the
  // caller tries again) and leaves nothing open.
  if (!(await closeInTime(worker.waitUntilReady(), options.readyMs ?? 10_000, cut))) {
    void worker.close(true).catch(() => undefined);
    await walks.close();
    throw new Error(`The crawl worker was not ready within ${(options.readyMs ?? 10_000) / 1000} s`);
  }
  return {
    worker,
    walks: () => walks.size,
    async close(ms = 5000) {
      // Pages in flight finish first, for up to `ms`; past it they are left to their locks' expiry.
      const inTime = await closeInTime(worker.close(), ms, cut);
      if (!inTime) engine.logger.warn(`the crawl worker did not close within ${ms} ms: its connections were cut`);
      await walks.close();
      if (inTime) await closeInTime(queue.close(), ms, cut);
      cut();
    },
  };
}
