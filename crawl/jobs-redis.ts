// Crawl jobs with REDIS_URL: every API process serves them; one coordinates each job at a time (a BullMQ job of its
// own, taken up by another process when its coordinator dies), its pages visited by every process's page worker and
// by any `refract worker`; state and results in Redis (jobs-redis-store.ts).
import { hostname } from 'node:os';
import type { Job as BullJob } from 'bullmq';
import type { Engine } from '../engine/index.ts';
import { crawlDistributed } from './distributed.ts';
import { markCancelled } from './distributed-keys.ts';
import { startWorker } from './worker.ts';
import { closeInTime, connect as connectRedisBlocking } from './redis-connect.ts';
import { pageKey } from './pages.ts';
import { KEEP_SECS, keysOf, RedisJobStore, type End } from './jobs-redis-store.ts';
import { isTerminal, jobWebhook, newJob, tellEnded, type Charge, type Job, type Jobs } from './job.ts';

/** The queue of jobs to coordinate: one entry a crawl job, taken by one API process at a time. */
const QUEUE = 'refract-jobs';
/**
 * How long the process coordinating a job, or visiting a page, holds it without renewing its lock: a process that
 * dies gives its jobs and pages to the others about this long after (the lock is renewed twice as often).
 */
const LOCK_MS = 10_000;
/** How often a coordinator looks whether its job was cancelled. */
const POLL_MS = 1000;
/** How long each of BullMQ's closes may take at shutdown (the server ends itself 10 s after its grace period). */
const CLOSE_MS = 4000;

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
      if (end.status !== 'completed') await markCancelled(store.redis, id);
    } else if (stop.signal.reason === 'cancel') {
      await markCancelled(store.redis, id);
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
      if (moved) await markCancelled(redis, job.id);
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
