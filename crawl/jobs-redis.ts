import { hostname } from 'node:os';
import type { Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Engine } from '../engine/index.ts';
import { cancelCrawl, crawlDistributed, startWorker } from './distributed.ts';
import { closeInTime, connect as connectRedisBlocking } from './redis-connect.ts';
import { pageKey, type CrawlResult } from './walk.ts';
import {
  isJobId,
  isTerminal,
  jobWebhook,
  newJob,
  tellEnded,
  type Charge,
  type Job,
  type JobStatus,
  type Jobs,
} from './jobs.ts';

/** The queue of jobs to coordinate: one entry a crawl job, taken by one API process at a time. */
const QUEUE = 'refract-jobs';
/** Finished jobs stay readable this long (their pages' keys in Redis last as long). */
const KEEP_SECS = 7 * 24 * 3600;
/**
 * How long the process coordinating a job, or visiting a page, holds it without renewing its lock: a process that
 * dies gives its jobs and pages to the others about this long after (the lock is renewed twice as often).
 */
const LOCK_MS = 10_000;
/** How often a coordinator looks whether its job was cancelled. */
const POLL_MS = 1000;
/** How long each of BullMQ's closes may take at shutdown (the server ends itself 10 s after its grace period). */
const CLOSE_MS = 4000;

const keysOf = (id: string) => ({
  job: `refract:job:${id}`,
  results: `refract:job:${id}:results`,
  emitted: `refract:job:${id}:emitted`,
});

/**
 * Appends a page's result line once: the first append of a page adds its line and counts it; later ones, and any
 * to a job that ended (a cancel is seen by its coordinator up to a second later), do nothing.
 */
const APPEND = `
local s = redis.call('HGET', KEYS[3], 'status')
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
return 1`;

/** Moves a job that has not ended to a status (with its end time, and code, when given); an ended job stays as it is. */
const MOVE = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s or s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'finishedAt', ARGV[2], 'queued', 0) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'code', ARGV[3], 'message', ARGV[4]) end
return 1`;

type End = { status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>; code?: string; message?: string };

/** Jobs' state (a hash) and result lines (a list, with the set of pages already in it) in Redis. */
class RedisJobStore {
  readonly redis: Redis;
  constructor(redis: Redis) {
    this.redis = redis;
  }

  async load(id: string): Promise<Job | undefined> {
    if (!isJobId(id)) return undefined;
    const h = await this.redis.hgetall(keysOf(id).job);
    if (!h.spec) return undefined;
    const spec = JSON.parse(h.spec) as Pick<Job, 'id' | 'owner' | 'request' | 'policy' | 'createdAt'>;
    return {
      ...spec,
      status: h.status as JobStatus,
      finishedAt: h.finishedAt || null,
      pages: { done: Number(h.done ?? 0), failed: Number(h.failed ?? 0), queued: Number(h.queued ?? 0) },
      ...(h.code ? { code: h.code, message: h.message } : {}),
    };
  }

  async create(job: Job): Promise<void> {
    const { id, owner, request, policy, createdAt } = job;
    await this.redis.hset(keysOf(id).job, {
      spec: JSON.stringify({ id, owner, request, policy, createdAt }),
      status: job.status,
      finishedAt: '',
      done: 0,
      failed: 0,
      queued: 0,
    });
  }

  /** Moves a job that has not ended to `status` (an ended one keeps its keys KEEP_SECS); false when it had ended. */
  async move(id: string, status: JobStatus, end?: End): Promise<boolean> {
    const moved =
      (await this.redis.eval(
        MOVE,
        1,
        keysOf(id).job,
        status,
        end ? new Date().toISOString() : '',
        end?.code ?? '',
        end?.message ?? '',
      )) === 1;
    if (end) await Promise.all(Object.values(keysOf(id)).map((key) => this.redis.expire(key, KEEP_SECS)));
    return moved;
  }

  /** Appends a page's line once (see APPEND); true when this call added it. */
  async append(id: string, line: CrawlResult): Promise<boolean> {
    const k = keysOf(id);
    return (
      (await this.redis.eval(
        APPEND,
        3,
        k.emitted,
        k.results,
        k.job,
        pageKey(line.url),
        JSON.stringify(line),
        line.status === 'success' ? 'done' : 'failed',
      )) === 1
    );
  }

  async results(id: string, cursor: number, limit: number): Promise<{ lines: string[]; next: number; more: boolean }> {
    const last = limit >= Number.MAX_SAFE_INTEGER ? -1 : cursor + limit;
    const lines = await this.redis.lrange(keysOf(id).results, cursor, last);
    const more = last >= 0 && lines.length > limit;
    if (more) lines.pop();
    return { lines, next: cursor + lines.length, more };
  }
}

type RedisJobDeps = { engine: Engine; charge: Charge; redisUrl: string; webhookSecret: string; pages: number };
/** What coordinating a job needs: the store, the jobs this process coordinates, and BullMQ's DelayedError. */
interface Coordination {
  store: RedisJobStore;
  deps: RedisJobDeps;
  DelayedError: new () => Error;
  coordinating: Map<string, { pause: () => void; done: Promise<unknown> }>;
}

/**
 * Reads a job's pages from the distributed crawl until it ends, its quota runs out, or `stop` (a cancel, a pause):
 * each page counted once against the quota and appended once. The end, or undefined when stopped before it.
 */
async function walkPages(
  c: Coordination,
  job: Job,
  webhook: ReturnType<typeof jobWebhook>,
  stop: AbortSignal,
): Promise<End | undefined> {
  const { redis } = c.store;
  const k = keysOf(job.id);
  try {
    const crawl = crawlDistributed(c.deps.engine, job.request.input, {
      ...job.request.options,
      redis: c.deps.redisUrl,
      id: job.id,
      signal: stop,
      onKnown: (n) => {
        void redis.hset(k.job, 'queued', Math.max(0, n - job.pages.done - job.pages.failed)).catch(() => undefined);
      },
    });
    for await (const line of crawl) {
      if (await redis.sismember(k.emitted, pageKey(line.url))) continue;
      const rate = await c.deps.charge(job.owner, job.policy);
      if (rate.exceeded)
        return {
          status: 'failed',
          code: 'ERATE',
          message: "The key's request quota ran out; the pages done so far are in the results",
        };
      if (await c.store.append(job.id, line)) {
        if (line.status === 'success') job.pages.done++;
        else job.pages.failed++;
        webhook.send({ type: 'crawl.page', page: line });
      }
      if (stop.aborted) break;
    }
    return stop.aborted ? undefined : { status: 'completed' };
  } catch (err) {
    return { status: 'failed', code: 'EFATAL', message: (err as Error).message };
  }
}

/** Coordinates one job until it ends, or hands it back to the queue when this process stops. */
async function coordinate(c: Coordination, entry: BullJob, token?: string): Promise<void> {
  const { store } = c;
  const id = (entry.data as { id: string }).id;
  const job = await store.load(id);
  if (!job || isTerminal(job.status)) return;
  const webhook = jobWebhook(job, c.deps);
  if (job.status === 'queued' && (await store.move(id, 'running')))
    webhook.send({ type: 'crawl.started', createdAt: job.createdAt });
  const stop = new AbortController();
  const watch = setInterval(() => {
    void store.redis.hget(keysOf(id).job, 'status').then(
      (status) => {
        if (status === 'cancelled') stop.abort('cancel');
      },
      () => undefined,
    );
  }, POLL_MS);
  let done: () => void = () => undefined;
  c.coordinating.set(id, {
    pause: () => stop.abort('pause'),
    done: new Promise<void>((resolve) => {
      done = resolve;
    }),
  });
  let end: End | undefined;
  try {
    end = await walkPages(c, job, webhook, stop.signal);
  } finally {
    clearInterval(watch);
  }
  try {
    if (end) {
      if (await store.move(id, end.status, end)) webhook.ended((await store.load(id))!);
      // The pages still queued are dropped by the workers rather than visited.
      if (end.status !== 'completed') await cancelCrawl(store.redis, id);
    } else if (stop.signal.reason === 'cancel') {
      await cancelCrawl(store.redis, id);
      webhook.ended((await store.load(id))!);
    }
    await webhook.settled();
    if (stop.signal.reason === 'pause' && !end) {
      // This process is stopping: the job goes back to the queue for another process, or this one's next start.
      await entry.moveToDelayed(Date.now(), token);
      throw new c.DelayedError();
    }
  } finally {
    c.coordinating.delete(id);
    done();
  }
}

/**
 * Crawl jobs with REDIS_URL: a job's state and result lines are in Redis, so any API process answers its status and
 * results; its pages go through the distributed crawl (engine/distributed.ts), visited by the page worker of every
 * API process (`REFRACT_CRAWL_PAGES` at once) and by any `refract worker`. One API process at a time coordinates a
 * job (reads its pages' results, counts them against the quota, writes its lines and sends its webhooks): the job
 * is an entry of a BullMQ queue, so when that process dies another one takes the job over once its lock expires,
 * and a stopping process hands its jobs back. A page's line is appended once (the first append wins), so a
 * takeover neither loses nor repeats a page.
 */
export async function createRedisJobs(deps: RedisJobDeps): Promise<Jobs> {
  const { engine } = deps;
  const { Redis } = await import('ioredis');
  const redis = new Redis(deps.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on('error', () => undefined); // reconnects on its own; a failing command answers the request that made it
  // BullMQ loads with the first Redis-mode jobs store, not with every server; its connections wait for Redis
  // indefinitely (its workers block on them), as the distributed crawl's do.
  const { DelayedError, Queue, Worker } = await import('bullmq');
  const queueConnection = await connectRedisBlocking(deps.redisUrl);
  const coordinatorConnection = await connectRedisBlocking(deps.redisUrl);
  const queue = new Queue(QUEUE, { connection: queueConnection });
  // Without a listener BullMQ prints each failed reconnect to stderr; Redis lost is logged where the cache sees it.
  queue.on('error', () => undefined);
  const store = new RedisJobStore(redis);
  const coordination: Coordination = { store, deps, DelayedError, coordinating: new Map() };
  const { coordinating } = coordination;
  const coordinator = new Worker(QUEUE, (entry, token) => coordinate(coordination, entry, token), {
    connection: coordinatorConnection,
    concurrency: 64,
    lockDuration: LOCK_MS,
    stalledInterval: LOCK_MS / 2,
    maxStalledCount: 20,
    removeOnComplete: { age: KEEP_SECS },
    removeOnFail: { age: KEEP_SECS },
  });
  // A job whose coordination failed for good (its processes died too often) ends failed instead of running forever.
  coordinator.on('failed', (entry, err) => {
    if (entry)
      void store
        .move((entry.data as { id: string }).id, 'failed', { status: 'failed', code: 'EFATAL', message: err.message })
        .catch(() => undefined);
  });
  // Redis going away is logged (and reported by readiness) where the cache sees it; the queue only reconnects.
  coordinator.on('error', () => undefined);
  const pages = pageWorkerOf(deps);

  return {
    async create(owner, policy, request) {
      const job = newJob(engine, owner, policy, request);
      await store.create(job);
      await queue.add('job', { id: job.id }, { jobId: job.id });
      return job;
    },
    async get(owner, id) {
      const job = await store.load(id);
      return job && job.owner === owner ? job : undefined;
    },
    results: (job, cursor, limit) => store.results(job.id, cursor, limit),
    async cancel(job) {
      // The coordinator sees it within a second and stops; the workers drop the job's queued pages.
      const moved = await store.move(job.id, 'cancelled', { status: 'cancelled' });
      if (moved) await cancelCrawl(redis, job.id);
      // Answered at once: the coordinator ends the walk in the background, and the webhook's deliveries go on on
      // their own (waiting for them held the answer for minutes while a receiver hung).
      const ended = (await store.load(job.id))!;
      // A job no coordinator had taken yet has nobody else to tell its webhook.
      if (moved && job.status === 'queued') tellEnded(ended, deps);
      return ended;
    },
    // The queue resumes jobs by itself: a job whose coordinator stopped is taken by the next process free.
    resume: async () => 0,
    async close() {
      for (const c of coordinating.values()) c.pause();
      await Promise.all([...coordinating.values()].map((c) => c.done));
      // Each of BullMQ's closes is bounded (see closeInTime): a job it held goes to another process.
      const cut = () => {
        queueConnection.disconnect();
        coordinatorConnection.disconnect();
      };
      const [inTime] = await Promise.all([closeInTime(coordinator.close(), CLOSE_MS, cut), pages.close()]);
      if (!inTime)
        engine.logger.warn(`the crawl jobs' queue did not close within ${CLOSE_MS} ms: its connections were cut`);
      await closeInTime(queue.close(), CLOSE_MS, cut);
      cut();
      redis.disconnect();
    },
    isTerminal,
  };
}

/**
 * This process's page worker, started once Redis answers (a process started while Redis is away still serves
 * requests, and takes pages once it is back).
 */
function pageWorkerOf(deps: { engine: Engine; redisUrl: string; pages: number }) {
  let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const start = async () => {
    try {
      const started = await startWorker(deps.engine, {
        redis: deps.redisUrl,
        concurrency: deps.pages,
        lockMs: LOCK_MS,
        name: `${hostname()}-${process.pid}`,
      });
      if (closed) await started.close();
      else worker = started;
    } catch {
      if (!closed) timer = setTimeout(() => void start(), 5000).unref();
    }
  };
  if (deps.pages > 0) void start();
  return {
    async close() {
      // A start still under way closes what it made once it ends (`closed`); it is not waited for.
      closed = true;
      clearTimeout(timer);
      await worker?.close(CLOSE_MS);
    },
  };
}
