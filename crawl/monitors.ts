// Monitors: a page read on a schedule with `changes`, its changes kept as a history and told to a webhook. Each
// monitor is one file under the data folder (written whole and renamed into place), read back at start, so monitors
// and their histories outlive restarts; one timer wakes the scheduler at the next monitor due. A run that fails
// (the request failed, or the report says `failed`) never counts as a change; three in a row are told once as
// `monitor.failed`.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import { parseQuery, type ChangeReport, type Clock, type Engine } from '../engine/index.ts';
import { nextRun, type MonitorSpec } from './monitor-request.ts';
import { createWebhook } from './webhooks.ts';

/** A monitor as its owner sees it. */
export interface Monitor extends MonitorSpec {
  id: string;
  createdAt: string;
  nextRunAt: string;
  lastRunAt: string | null;
  lastStatus: ChangeReport['status'] | null;
  runs: number;
  /** Failed reads in a row (0 after a good one). */
  failures: number;
}

/** What is kept of a monitor: itself, its owner, and its changes (newest last). */
interface Kept {
  owner: string;
  monitor: Monitor;
  changes: ChangeReport[];
}

/** Failed reads in a row that are told once as `monitor.failed`. */
export const FAILURES_TOLD = 3;
/** Monitors read at once by one process (each read is a request of the engine's). */
const AT_ONCE = 2;

export interface MonitorsOptions {
  engine: Engine;
  dir: string;
  clock: Clock;
  webhookSecret: string;
  perKey: number;
  historyMax: number;
  historyAgeMs: number;
}

/** A page of a list, and where the next one starts (null at the end). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

function paged<T>(all: T[], cursor: number, limit: number): Page<T> {
  const items = all.slice(cursor, cursor + limit);
  return { items, next: cursor + limit < all.length ? String(cursor + limit) : null };
}

export async function createMonitors(opts: MonitorsOptions) {
  const { engine, clock } = opts;
  const kept = new Map<string, Kept>();
  await mkdir(opts.dir, { recursive: true });
  for (const name of await readdir(opts.dir)) {
    if (!name.endsWith('.json')) continue;
    try {
      const k = JSON.parse(await readFile(path.join(opts.dir, name), 'utf8')) as Kept;
      kept.set(k.monitor.id, k);
    } catch (err) {
      engine.logger.warn('a monitor file could not be read', { file: name, error: (err as Error).message });
    }
  }
  const limit = pLimit(AT_ONCE);
  const running = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** Writes of one monitor, one after another (a later one never overtaken by an earlier one). */
  const writes = new Map<string, Promise<void>>();

  const save = (k: Kept): Promise<void> => {
    const file = path.join(opts.dir, `${k.monitor.id}.json`);
    const write = async () => {
      if (!kept.has(k.monitor.id)) return;
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(k));
      await rename(temp, file);
    };
    const next = (writes.get(k.monitor.id) ?? Promise.resolve()).then(write, write);
    writes.set(k.monitor.id, next);
    return next;
  };

  /** The history kept: the newest `historyMax` changes, none older than `historyAgeMs`. */
  const trim = (changes: ChangeReport[]) => {
    const oldest = clock.now() - opts.historyAgeMs;
    return changes.filter((c) => Date.parse(c.checkedAt) >= oldest).slice(-opts.historyMax);
  };

  async function run(k: Kept): Promise<void> {
    const m = k.monitor;
    const query = { ...parseQuery(new URLSearchParams(m.query)), url: m.url, changes: { tag: m.tag ?? m.id } };
    let report: ChangeReport;
    try {
      const outcome = await engine.extract(engine.plan(query, 'pro'), { scope: k.owner });
      report = outcome.data.changes as ChangeReport;
    } catch (err) {
      const at = new Date(clock.now()).toISOString();
      report = {
        status: 'failed',
        tag: m.tag ?? m.id,
        checkedAt: at,
        previousAt: null,
        reason: (err as Error).message,
      };
    }
    if (!kept.has(m.id)) return;
    m.runs++;
    m.lastRunAt = report.checkedAt;
    m.lastStatus = report.status;
    const webhook = m.webhook && hookOf(m);
    if (report.status === 'failed') {
      m.failures++;
      if (m.failures === FAILURES_TOLD)
        webhook?.send({ type: 'monitor.failed', id: m.id, url: m.url, failures: m.failures, reason: report.reason });
    } else {
      m.failures = 0;
      if (report.status === 'new' || report.status === 'changed') k.changes = trim([...k.changes, report]);
      if (report.status === 'changed')
        webhook?.send({ type: 'monitor.changed', id: m.id, url: m.url, changes: report });
    }
    await save(k);
  }

  /** Runs every monitor due now (each once, however late), then sleeps until the next is due. */
  async function tick(): Promise<void> {
    const now = clock.now();
    const due = [...kept.values()].filter((k) => Date.parse(k.monitor.nextRunAt) <= now && !running.has(k.monitor.id));
    for (const k of due) {
      running.add(k.monitor.id);
      k.monitor.nextRunAt = new Date(nextRun(k.monitor, now)).toISOString();
    }
    schedule();
    await Promise.all(
      due.map((k) =>
        limit(() => run(k))
          .catch((err) =>
            engine.logger.warn('a monitor run failed', { id: k.monitor.id, error: (err as Error).message }),
          )
          .finally(() => running.delete(k.monitor.id)),
      ),
    );
  }

  /** One timer, for the monitor due first. */
  function schedule(): void {
    clearTimeout(timer);
    if (closed || !kept.size) return;
    let first = Number.POSITIVE_INFINITY;
    for (const k of kept.values()) first = Math.min(first, Date.parse(k.monitor.nextRunAt));
    // (A timer's delay is at most 2^31 - 1 ms: a later monitor is looked at again then.)
    timer = setTimeout(() => void tick(), Math.min(2 ** 31 - 1, Math.max(0, first - clock.now())));
    timer.unref();
  }

  /** Each monitor's webhook, one for its life: its deliveries go in order. */
  const hooks = new Map<string, ReturnType<typeof createWebhook>>();
  function hookOf(m: Monitor) {
    let hook = hooks.get(m.id);
    if (!hook)
      hooks.set(m.id, (hook = createWebhook({ ...m.webhook!, secret: opts.webhookSecret, guard: engine.guard })));
    return hook;
  }

  const mine = (owner: string, id: string) => {
    const k = kept.get(id);
    return k && k.owner === owner ? k : undefined;
  };
  schedule();

  return {
    /** Creates a monitor; its first read is now. False when the key keeps as many as it may. */
    async create(owner: string, spec: MonitorSpec): Promise<Monitor | undefined> {
      if ([...kept.values()].filter((k) => k.owner === owner).length >= opts.perKey) return undefined;
      const at = new Date(clock.now()).toISOString();
      const monitor: Monitor = {
        ...spec,
        id: `mon_${randomUUID()}`,
        createdAt: at,
        nextRunAt: at,
        lastRunAt: null,
        lastStatus: null,
        runs: 0,
        failures: 0,
      };
      const k: Kept = { owner, monitor, changes: [] };
      kept.set(monitor.id, k);
      await save(k);
      schedule();
      return monitor;
    },
    list(owner: string, cursor: number, count: number): Page<Monitor> {
      const all = [...kept.values()].filter((k) => k.owner === owner).map((k) => k.monitor);
      return paged(all, cursor, count);
    },
    get: (owner: string, id: string): Monitor | undefined => mine(owner, id)?.monitor,
    /** A monitor's changes, newest first; undefined for a monitor this owner does not have. */
    changes(owner: string, id: string, cursor: number, count: number): Page<ChangeReport> | undefined {
      const k = mine(owner, id);
      return k && paged([...k.changes].reverse(), cursor, count);
    },
    async delete(owner: string, id: string): Promise<boolean> {
      if (!mine(owner, id)) return false;
      kept.delete(id);
      hooks.delete(id);
      await writes.get(id);
      writes.delete(id);
      await rm(path.join(opts.dir, `${id}.json`), { force: true });
      schedule();
      return true;
    },
    /** Runs the monitors due now (the timer calls it; a test with a hand-moved clock calls it itself). */
    tick,
    /** How many monitors are kept, all owners together. */
    size: () => kept.size,
    close(): void {
      closed = true;
      clearTimeout(timer);
    },
  };
}

export type Monitors = Awaited<ReturnType<typeof createMonitors>>;
