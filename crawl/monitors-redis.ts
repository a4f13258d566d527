// Monitors with Redis: every API process serves them and reads them. Each monitor is one Redis key (the same record
// as the embedded store's file) and an entry of its owner's set; its schedule is a BullMQ job scheduler, so each
// tick is one job however many processes run, the schedule outlives restarts, and a read whose process was killed
// (SIGKILL) is taken up by another once its lock lapses (BullMQ's stalled jobs).
import type { Redis } from 'ioredis';
import type { Queue, Worker } from 'bullmq';
import {
  applyRun,
  newKept,
  paged,
  runMonitor,
  webhooks,
  type Kept,
  type Monitors,
  type MonitorsOptions,
} from './monitors.ts';
import { closeInTime, connect } from './redis-connect.ts';
import { nextRun, type MonitorSpec } from './monitor-request.ts';
import type { createWebhook } from './webhooks.ts';

const QUEUE = 'refract-monitors';
const KEY = (id: string) => `refract:monitor:${id}`;
const OWNED = (owner: string) => `refract:monitors:${owner}`;
/** Held for half a tick by the read that began it: a second job of the same tick finds it and reads nothing. */
const READING = (id: string) => `refract:monitor:${id}:reading`;
/** Reads of monitors one process makes at once. */
const AT_ONCE = 2;
/** How long a read may hold its job before another process takes it up (BullMQ renews it while the read runs). */
const LOCK_MS = 30_000;
/** How long closing the queue may take (Redis away: BullMQ's close waits for connections that keep reconnecting). */
const CLOSE_MS = 4000;
/** How long a schedule's due job may be taken with no next job scheduled before another process schedules it. */
export const TAKEN_MS = 1000;
/** How often each process looks for such a schedule, and how many it looks at (most overdue first), a page at a time. */
const SWEEP_MS = 500;
const SWEEP_MAX = 20;
const SWEEP_PAGE = 4;

export async function createRedisMonitors(opts: MonitorsOptions & { redisUrl: string }): Promise<Monitors> {
  const { clock, engine } = opts;
  // BullMQ loads with the first Redis-mode monitors, not with every server.
  const bull = await import('bullmq');
  const redis: Redis = await connect(opts.redisUrl);
  const blocking: Redis = await connect(opts.redisUrl);
  // Saves a read on a connection of its own, one at a time: WATCH holds for its connection until EXEC.
  const saving: Redis = await connect(opts.redisUrl);
  let saved: Promise<unknown> = Promise.resolve();
  const queue: Queue = new bull.Queue(QUEUE, { connection: redis });
  const load = async (id: string): Promise<Kept | undefined> => {
    const raw = await redis.get(KEY(id));
    return raw ? (JSON.parse(raw) as Kept) : undefined;
  };
  const hooks = new Map<string, ReturnType<typeof createWebhook>>();
  const hookOf = webhooks(opts, hooks);
  const worker: Worker = new bull.Worker(
    QUEUE,
    async (job) => {
      const id = (job.data as { id: string }).id;
      const k = await load(id);
      // A monitor deleted while its schedule was being mended (see `sweep`) leaves no schedule behind.
      if (!k) return void (await queue.removeJobScheduler(id));
      // One read a tick, whatever the queue hands out: a read killed with its process (SIGKILL) is handed out again
      // once its lock lapses (BullMQ's stalled jobs), and a schedule mended by `sweep` while its late process was
      // still taking it can run two jobs at once (stop 71's CI read a page twice 56 ms apart after a
      // SIGKILL). The first job of a tick takes the claim for half a tick; any other in that time is skipped.
      const now = clock.now();
      const half = Math.max(1, Math.floor((nextRun(k.monitor, now) - now) / 2));
      if ((await redis.set(READING(id), String(job.id), 'PX', half, 'NX')) !== 'OK')
        return void engine.logger.info('a second read of a monitor within one tick was skipped', { id, job: job.id });
      // When the scheduler's next job is due, as the monitor tells it (BullMQ counts it the same way).
      k.monitor.nextRunAt = new Date(nextRun(k.monitor, now)).toISOString();
      const ran = structuredClone(k);
      const report = await runMonitor(ran, opts, hookOf);
      // Applied to the monitor as stored now, not written over it: under load a read outlasts its tick, the next
      // tick's read runs on another process, and the later write lost the other's change (a history without its
      // first read). WATCH makes a write that raced another read try again.
      const save = async () => {
        for (let attempt = 0; attempt < 10; attempt++) {
          await saving.watch(KEY(id));
          const now = await saving.get(KEY(id));
          // A monitor deleted while it was read stays deleted.
          if (!now) return void (await saving.unwatch());
          const merged = applyRun(JSON.parse(now) as Kept, ran, report, opts);
          if (await saving.multi().set(KEY(id), JSON.stringify(merged), 'XX').exec()) return;
        }
        engine.logger.warn('a monitor read could not be saved: its monitor kept changing', { id });
      };
      await (saved = saved.then(save, save));
    },
    { connection: blocking, concurrency: AT_ONCE, lockDuration: LOCK_MS },
  );
  worker.on('error', (err) => engine.logger.warn('monitor worker', { error: err.message }));
  const schedule = (id: string, spec: Pick<MonitorSpec, 'every' | 'cron'>, immediately: boolean) =>
    queue.upsertJobScheduler(id, spec.every ? { every: spec.every } : { pattern: spec.cron!, tz: 'UTC', immediately }, {
      name: 'read',
      data: { id },
    });
  const sweeping = sweepEvery(SWEEP_MS, () =>
    sweep(queue, async (id) => {
      const k = await load(id);
      if (!k) return;
      await schedule(id, k.monitor, false);
      engine.logger.info('a monitor schedule whose due read was taken and not followed was scheduled again', { id });
    }).catch((err: Error) => engine.logger.warn('monitor schedules sweep', { error: err.message })),
  );
  const mine = async (owner: string, id: string) => {
    const k = await load(id);
    return k && k.owner === owner ? k : undefined;
  };

  return {
    async create(owner, spec, policy) {
      if ((await redis.scard(OWNED(owner))) >= opts.perKey) return undefined;
      const k = newKept(owner, spec, clock, policy);
      const { id } = k.monitor;
      await redis.multi().set(KEY(id), JSON.stringify(k)).sadd(OWNED(owner), id).exec();
      await schedule(id, spec, true);
      return k.monitor;
    },
    async list(owner, cursor, count) {
      const ids = await redis.smembers(OWNED(owner));
      const raws = ids.length ? await redis.mget(ids.map(KEY)) : [];
      const all = raws
        .filter((r): r is string => !!r)
        .map((r) => (JSON.parse(r) as Kept).monitor)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      return paged(all, cursor, count);
    },
    get: async (owner, id) => (await mine(owner, id))?.monitor,
    async changes(owner, id, cursor, count) {
      const k = await mine(owner, id);
      return k && paged([...k.changes].reverse(), cursor, count);
    },
    async delete(owner, id) {
      if (!(await mine(owner, id))) return false;
      await queue.removeJobScheduler(id);
      await redis.multi().del(KEY(id), READING(id)).srem(OWNED(owner), id).exec();
      hooks.delete(id);
      return true;
    },
    async close() {
      sweeping.stop();
      const cut = () => {
        blocking.disconnect();
        redis.disconnect();
        saving.disconnect();
      };
      if (!(await closeInTime(Promise.all([worker.close(), queue.close()]), CLOSE_MS, cut)))
        engine.logger.warn(`the monitors' queue did not close within ${CLOSE_MS} ms: its connections were cut`);
      blocking.disconnect();
      redis.disconnect();
      saving.disconnect();
    },
  };
}

/**
 * BullMQ schedules a job scheduler's next job from the worker's JavaScript just after the worker takes the due one
 * (moveToActive, then updateJobScheduler: two round trips, not one script). A process killed between the two leaves the
 * schedule with no next job until its taken job is found stalled, 30 to 60 s later (lock and stalled check), and every
 * tick of that time is lost: the CI run of 2924e13 saw 3 reads in 36 s on a 2 s schedule after a SIGKILL. Each process
 * therefore looks for schedules whose due job is still taken (active) or gone TAKEN_MS after it was due, and
 * `reschedule`s them (upsertJobScheduler: the next tick is the one after the taken job's, so none is lost). A slow
 * process that is still alive is harmless: its own scheduling then finds the schedule moved on and adds nothing.
 * The due job's id is BullMQ's `repeat:<scheduler>:<due ms>` (JobScheduler's getSchedulerNextJobId in BullMQ 6.7):
 * test/crawl/monitors-sweep.test.ts checks it, since a change would make every overdue schedule read as gone.
 */
export async function sweep(queue: Queue, reschedule: (id: string) => Promise<void>): Promise<void> {
  const before = Date.now() - TAKEN_MS;
  for (let start = 0; start < SWEEP_MAX; start += SWEEP_PAGE) {
    const page = await queue.getJobSchedulers(start, start + SWEEP_PAGE - 1, true);
    for (const s of page) {
      if (s.next === undefined || s.next > before) return;
      const state = await queue.getJobState(`repeat:${s.key}:${s.next}`);
      // Waiting or delayed: every process is busy and it will be read in turn.
      if (state === 'active' || state === 'unknown' || state === 'completed' || state === 'failed')
        await reschedule(s.key);
    }
    if (page.length < SWEEP_PAGE) return;
  }
}

/** Runs `run` every `ms`, one at a time, without keeping the process alive. */
function sweepEvery(ms: number, run: () => Promise<unknown>): { stop(): void } {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void run().finally(() => {
      busy = false;
    });
  }, ms);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
