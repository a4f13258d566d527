// Crawls past one machine: the pages go on a BullMQ queue in Redis, any number of `refract worker` processes
// visit them, and each page's result is committed exactly once to a Redis stream that the coordinator reads.
import { createHash } from 'node:crypto';
// BullMQ (~220 modules) loads when a distributed crawl or a worker starts, not with every process of the engine.
import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeInTime, connect, connectChecked } from './redis-connect.ts';
import {
  createWalk,
  failure,
  inputUrl,
  pageKey,
  type CrawlInput,
  type CrawlOptions,
  type CrawlResult,
  type Link,
  type Walk,
} from './walk.ts';
import type { Engine } from '../engine/index.ts';

const QUEUE = 'refract-crawl';
/** Finished crawls' keys and jobs are kept this long (a rerun of the same crawl within it writes nothing new). */
const KEEP_SECS = 7 * 24 * 3600;

/** A page job: which crawl, which page, how deep. */
interface PageJob {
  crawl: string;
  url: string;
  depth: number;
}

/** What a crawl stores for its workers: its input and options (without the local-only ones). */
interface CrawlSpec {
  input: CrawlInput;
  options: Omit<CrawlOptions, 'stateDir' | 'done' | 'concurrency' | 'onKnown'>;
}

const keys = (id: string) => ({
  spec: `refract:crawl:${id}:spec`,
  admitted: `refract:crawl:${id}:admitted`,
  done: `refract:crawl:${id}:done`,
  results: `refract:crawl:${id}:results`,
  cancelled: `refract:crawl:${id}:cancelled`,
});

/**
 * Admits pages to a crawl, atomically: a page already admitted stays admitted (so a redone page re-adds the
 * same jobs); a new page is admitted while the crawl has room under its page cap. Returns the indexes admitted.
 */
const ADMIT = `
local out = {}
local max = tonumber(ARGV[1])
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    table.insert(out, i - 2)
  elseif max < 0 or redis.call('SCARD', KEYS[1]) < max then
    redis.call('SADD', KEYS[1], ARGV[i])
    table.insert(out, i - 2)
  end
end
return out`;

/** Commits a page's result once: the first commit of a page appends it to the results stream, later ones do nothing. */
const COMMIT = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  redis.call('XADD', KEYS[2], '*', 'page', ARGV[1], 'result', ARGV[2])
  return 1
end
return 0`;

/** The job of a page: one id per crawl and page, so adding a page twice adds one job. */
function jobOf(id: string, link: Link) {
  const hash = createHash('sha256').update(pageKey(link.url)).digest('hex').slice(0, 32);
  return {
    name: 'page',
    data: { crawl: id, url: link.url, depth: link.depth } satisfies PageJob,
    opts: { jobId: `${id}-${hash}` },
  };
}

/** Admits pages (see ADMIT) and returns the indexes of those admitted. */
async function admitted(
  redis: Redis,
  id: string,
  maxPages: number | undefined,
  urls: readonly string[],
): Promise<number[]> {
  if (!urls.length) return [];
  return (await redis.eval(ADMIT, 1, keys(id).admitted, String(maxPages ?? -1), ...urls.map(pageKey))) as number[];
}

/** Admits pages and queues a job for each admitted one (a job that exists already is not added again). */
async function admit(
  redis: Redis,
  queue: Queue,
  id: string,
  maxPages: number | undefined,
  links: readonly Link[],
): Promise<void> {
  const indexes = await admitted(
    redis,
    id,
    maxPages,
    links.map((l) => l.url),
  );
  if (indexes.length) await queue.addBulk(indexes.map((i) => jobOf(id, links[i]!)));
}

async function commit(redis: Redis, id: string, result: CrawlResult): Promise<void> {
  const k = keys(id);
  await redis.eval(COMMIT, 2, k.done, k.results, pageKey(result.url), JSON.stringify(result));
}

/** The options that define a crawl (what its workers need), without those of this process or this run. */
function specOptions(options: CrawlOptions & Partial<DistributedCrawlOptions>): CrawlSpec['options'] {
  const {
    stateDir: _s,
    done: _d,
    concurrency: _c,
    onKnown: _k,
    redis: _r,
    id: _i,
    pollMs: _p,
    signal: _a,
    ...spec
  } = options;
  return spec;
}

/** A crawl's id: the same input and options give the same id, so running the same command again resumes it. */
export function crawlId(input: CrawlInput, options: CrawlOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ input, options: specOptions(options) }))
    .digest('hex')
    .slice(0, 16);
}

export interface DistributedCrawlOptions extends CrawlOptions {
  redis: string;
  /** The crawl's id (default: derived from the input and options). */
  id?: string;
  /** How often the coordinator looks for pages whose jobs failed for good (default 2 s). */
  pollMs?: number;
  /** Stops reading results (within a second): the crawl stays in Redis, and running it again goes on. */
  signal?: AbortSignal;
}

/** Cancels a crawl: workers drop its queued pages instead of visiting them. */
export async function cancelCrawl(redis: Redis, id: string): Promise<void> {
  await redis.set(keys(id).cancelled, '1', 'EX', KEEP_SECS);
}

/**
 * The coordinator: stores the crawl, queues its seeds, and yields every page's result as the workers commit it,
 * until every admitted page has one. Results already in `done` (for example, an existing output file) are skipped,
 * so running the same crawl again resumes it; a page whose job failed for good (its worker died too often) gets
 * an error line instead of going missing.
 */
export async function* crawlDistributed(
  engine: Engine,
  input: CrawlInput,
  options: DistributedCrawlOptions,
): AsyncGenerator<CrawlResult> {
  const id = options.id ?? crawlId(input, options);
  const k = keys(id);
  const redis = await connectChecked(options.redis);
  const reader = await connect(options.redis);
  const queue = new (await import('bullmq')).Queue(QUEUE, { connection: redis });
  queue.on('error', () => undefined); // commands that fail reject where they are made; reconnects are the client's
  const written = new Set<string>();
  for (const url of options.done ?? []) written.add(pageKey(url));
  let walk: Walk | undefined;
  try {
    walk = createWalk(engine, input, options);
    await redis.set(k.spec, JSON.stringify({ input, options: specOptions(options) } satisfies CrawlSpec));
    let seeds: Awaited<ReturnType<Walk['seeds']>>;
    try {
      seeds = await walk.seeds();
    } catch (err) {
      yield failure(inputUrl(input), err);
      return;
    }
    // Bad seeds are pages of the crawl too: admitted (they count toward the cap) and committed at once.
    for (const i of await admitted(
      redis,
      id,
      options.maxPages,
      seeds.invalid.map((r) => r.url),
    ))
      await commit(redis, id, seeds.invalid[i]!);
    await admit(
      redis,
      queue,
      id,
      options.maxPages,
      seeds.valid.map((url) => ({ url, depth: 0 })),
    );

    let cursor = '0';
    let lastPoll = 0;
    let finishing = false;
    for (;;) {
      if (options.signal?.aborted) return;
      const batch = (
        finishing
          ? await reader.xread('COUNT', 500, 'STREAMS', k.results, cursor)
          : await reader.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', k.results, cursor)
      ) as [string, [string, string[]][]][] | null;
      for (const [, entries] of batch ?? []) {
        for (const [entryId, fields] of entries) {
          cursor = entryId;
          const page = fields[fields.indexOf('page') + 1]!;
          if (written.has(page)) continue;
          written.add(page);
          yield JSON.parse(fields[fields.indexOf('result') + 1]!) as CrawlResult;
        }
      }
      if (finishing && !batch) break;
      const [admittedCount, doneCount] = await Promise.all([redis.scard(k.admitted), redis.scard(k.done)]);
      options.onKnown?.(admittedCount);
      if (batch || finishing) continue;
      // Nothing new for a second. A page's commit adds it to the done set and the stream at once, so once every
      // admitted page is done, what is left to read is in the stream already: read it without waiting, and stop.
      if (doneCount >= admittedCount) {
        finishing = true;
        continue;
      }
      if (Date.now() - lastPoll > (options.pollMs ?? 2000)) {
        lastPoll = Date.now();
        for (const job of await queue.getJobs(['failed'])) {
          const data = job.data as PageJob;
          if (data.crawl !== id) continue;
          await commit(redis, id, {
            url: data.url,
            status: 'error',
            code: 'EFATAL',
            message: `The page's job failed: ${job.failedReason}`,
          });
        }
      }
    }
    await Promise.all([k.spec, k.admitted, k.done, k.results].map((key) => redis.expire(key, KEEP_SECS)));
  } finally {
    await walk?.close();
    await queue.close();
    redis.disconnect();
    reader.disconnect();
  }
}

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
