// Monitors: a page read on a schedule with `changes`, its changes kept as a history and told to a webhook. Each
// monitor is one file under the data folder (written whole and renamed into place), read back at start, so monitors
// and their histories outlive restarts; one timer wakes the scheduler at the next monitor due. A run that fails
// (the request failed, or the report says `failed`) never counts as a change; three in a row are told once as
// `monitor.failed`.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import type { ChangeReport, Clock, Engine } from '../engine/index.ts';
import type { Charge, QuotaPolicy } from './job.ts';
import { readChanges } from './watch.ts';
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
export interface Kept {
  owner: string;
  monitor: Monitor;
  changes: ChangeReport[];
  /** The owner's quota, charged a request a read (none: not charged). */
  policy?: QuotaPolicy;
  /** When the last read that did not fail was made. */
  goodAt?: string | null;
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
  /** Charges a read to its owner's quota (the server's; none for a library's monitors). */
  charge?: Charge;
}

/** A page of a list, and where the next one starts (null at the end). */
export interface Page<T> {
  items: T[];
  next: string | null;
}

export function paged<T>(all: T[], cursor: number, limit: number): Page<T> {
  const items = all.slice(cursor, cursor + limit);
  return { items, next: cursor + limit < all.length ? String(cursor + limit) : null };
}

/** A new monitor of an owner, its first read due now. */
export function newKept(owner: string, spec: MonitorSpec, clock: Clock, policy?: QuotaPolicy): Kept {
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
  return { owner, monitor, changes: [], policy, goodAt: null };
}

/** Why a read may not be made (the quota ran out, or could not be counted), or nothing: it was charged. */
async function charged(k: Kept, opts: MonitorsOptions): Promise<string | undefined> {
  if (!opts.charge || !k.policy) return undefined;
  try {
    const rate = await opts.charge(k.owner, k.policy);
    return rate.exceeded ? "ERATE: the key's request quota ran out; the page was not read" : undefined;
  } catch (err) {
    return `ESTORAGE: the quota could not be counted (${(err as Error).message}); the page was not read`;
  }
}

/** A webhook of a monitor (the same one for its whole life: its deliveries go in order). */
export type HookOf = (m: Monitor) => ReturnType<typeof createWebhook>;

/**
 * One run of a monitor: its page read with `changes` as its owner, the result in the monitor (counts, status, the
 * history kept: the newest `historyMax` changes, none older than `historyAgeMs`) and told to its webhook. Never
 * throws: a failed request is a failed read.
 */
export async function runMonitor(k: Kept, opts: MonitorsOptions, hookOf: HookOf): Promise<ChangeReport> {
  const { engine, clock } = opts;
  const m = k.monitor;
  const tag = m.tag ?? m.id;
  const lastGoodAt = k.goodAt ?? null;
  // Each read counts against its owner's quota, as a request of theirs would; none is made past it.
  const refused = await charged(k, opts);
  const report: ChangeReport = refused
    ? { status: 'failed', tag, checkedAt: new Date(clock.now()).toISOString(), previousAt: lastGoodAt, reason: refused }
    : await readChanges(engine, { url: m.url, query: m.query, tag, scope: k.owner, lastGoodAt }, () => clock.now());
  record(k, report, report.status === 'failed' ? m.failures + 1 : 0, opts);
  const webhook = m.webhook && hookOf(m);
  if (report.status === 'failed') {
    if (m.failures === FAILURES_TOLD)
      webhook?.send({ type: 'monitor.failed', id: m.id, url: m.url, failures: m.failures, reason: report.reason });
  } else if (report.status === 'changed')
    webhook?.send({ type: 'monitor.changed', id: m.id, url: m.url, changes: report });
  return report;
}

/** A read in a monitor: a run; when it is the latest read, its time, status and failures in a row; a change kept. */
function record(k: Kept, report: ChangeReport, failures: number, opts: MonitorsOptions): void {
  const m = k.monitor;
  m.runs++;
  if (!m.lastRunAt || Date.parse(report.checkedAt) >= Date.parse(m.lastRunAt)) {
    m.lastRunAt = report.checkedAt;
    m.lastStatus = report.status;
    m.failures = failures;
    if (report.status !== 'failed') k.goodAt = report.checkedAt;
  }
  if (report.status === 'new' || report.status === 'changed') k.changes = kept(k.changes, report, opts);
}

/** A history with a report added, in the order the reads were made, within its bounds (count and age). */
function kept(changes: ChangeReport[], report: ChangeReport, opts: MonitorsOptions): ChangeReport[] {
  const oldest = opts.clock.now() - opts.historyAgeMs;
  return [...changes, report]
    .sort((a, b) => Date.parse(a.checkedAt) - Date.parse(b.checkedAt))
    .filter((c) => Date.parse(c.checkedAt) >= oldest)
    .slice(-opts.historyMax);
}

/**
 * A read's outcome (`ran`, the monitor as the read left it; `report`) applied to the monitor as it is stored now
 * (`now`), which may hold another read saved while this one ran (in Redis, a read longer than a tick overlaps the
 * next tick's, on another process): each read is counted and each change kept, and the latest read says the status.
 */
export function applyRun(now: Kept, ran: Kept, report: ChangeReport, opts: MonitorsOptions): Kept {
  now.monitor.nextRunAt = ran.monitor.nextRunAt;
  record(now, report, ran.monitor.failures, opts);
  return now;
}

/** Each monitor's webhook, made once (`hooks` holds them: a deleted monitor's is dropped from it). */
export function webhooks(opts: MonitorsOptions, hooks: Map<string, ReturnType<typeof createWebhook>>): HookOf {
  return (m) => {
    let hook = hooks.get(m.id);
    if (!hook)
      hooks.set(m.id, (hook = createWebhook({ ...m.webhook!, secret: opts.webhookSecret, guard: opts.engine.guard })));
    return hook;
  };
}

/** Monitors of every owner, kept in this process's data folder (createMonitors) or in Redis (monitors-redis.ts). */
export interface Monitors {
  /** Creates a monitor; its first read is now. Undefined when the key keeps as many as it may. */
  create(owner: string, spec: MonitorSpec, policy?: QuotaPolicy): Promise<Monitor | undefined>;
  list(owner: string, cursor: number, count: number): Promise<Page<Monitor>>;
  get(owner: string, id: string): Promise<Monitor | undefined>;
  /** A monitor's changes, newest first; undefined for a monitor this owner does not have. */
  changes(owner: string, id: string, cursor: number, count: number): Promise<Page<ChangeReport> | undefined>;
  delete(owner: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Monitors in this process: files under `dir`, one timer for the monitor due first; `tick` runs those due now. */
export async function createMonitors(opts: MonitorsOptions): Promise<Monitors & { tick(): Promise<void> }> {
  const { engine, clock } = opts;
  const kept = new Map<string, Kept>();
  // The folder is made with the first monitor (a server whose data folder cannot be written still starts).
  const names = await readdir(opts.dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT')
      engine.logger.warn('the monitors folder could not be read', { dir: opts.dir, error: err.message });
    return [] as string[];
  });
  for (const name of names) {
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
      await mkdir(opts.dir, { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await writeFile(temp, JSON.stringify(k));
      await rename(temp, file);
    };
    const next = (writes.get(k.monitor.id) ?? Promise.resolve()).then(write, write);
    writes.set(k.monitor.id, next);
    return next;
  };

  async function run(k: Kept): Promise<void> {
    await runMonitor(k, opts, hookOf);
    // A read cut short by the process closing is not kept (it would count as failed): the next start reads again.
    if (!closed && kept.has(k.monitor.id)) await save(k);
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

  const hooks = new Map<string, ReturnType<typeof createWebhook>>();
  const hookOf = webhooks(opts, hooks);

  const mine = (owner: string, id: string) => {
    const k = kept.get(id);
    return k && k.owner === owner ? k : undefined;
  };
  schedule();

  return {
    async create(owner, spec, policy) {
      if ([...kept.values()].filter((k) => k.owner === owner).length >= opts.perKey) return undefined;
      const k = newKept(owner, spec, clock, policy);
      const { monitor } = k;
      kept.set(monitor.id, k);
      await save(k);
      schedule();
      return monitor;
    },
    async list(owner, cursor, count) {
      const all = [...kept.values()].filter((k) => k.owner === owner).map((k) => k.monitor);
      return paged(all, cursor, count);
    },
    get: async (owner, id) => mine(owner, id)?.monitor,
    async changes(owner, id, cursor, count) {
      const k = mine(owner, id);
      return k && paged([...k.changes].reverse(), cursor, count);
    },
    async delete(owner, id) {
      if (!mine(owner, id)) return false;
      kept.delete(id);
      hooks.delete(id);
      await writes.get(id);
      writes.delete(id);
      await rm(path.join(opts.dir, `${id}.json`), { force: true });
      schedule();
      return true;
    },
    tick,
    async close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
