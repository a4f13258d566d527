// A page read with `changes` as someone's: one read (readChanges, what a monitor's run and `watch` both do), and
// `watch`, the library's monitor: the page read now and then on a schedule in this process, each report as it comes.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseQuery, type ChangeReport, type Engine, type RawObject } from '../engine/index.ts';
import { monitorRequest, nextRun } from './monitor-request.ts';

/**
 * The change report of one read of `url` with `query` (text), compared with the last good read by `scope` and `tag`.
 * Never throws: a request that failed is a `failed` report (its `previousAt` is `lastGoodAt`, the caller's knowledge
 * of its last good read, as the baseline was not reached).
 */
export async function readChanges(
  engine: Engine,
  read: { url: string; query: string; tag: string; scope: string; lastGoodAt?: string | null },
  now: () => number,
): Promise<ChangeReport> {
  const query = { ...parseQuery(new URLSearchParams(read.query)), url: read.url, changes: { tag: read.tag } };
  try {
    const outcome = await engine.extract(engine.plan(query, 'pro'), { scope: read.scope });
    const report = outcome.data.changes as ChangeReport | undefined;
    if (report?.status) return report;
    // The step itself failed: its warning says why.
    const why = outcome.warnings?.find((w) => w.plugin === 'changes');
    return failed(read, now, why?.message ?? 'the page could not be compared');
  } catch (err) {
    return failed(read, now, (err as Error).message);
  }
}

function failed(read: { tag: string; lastGoodAt?: string | null }, now: () => number, reason: string): ChangeReport {
  const at = new Date(now()).toISOString();
  return { status: 'failed', tag: read.tag, checkedAt: at, previousAt: read.lastGoodAt ?? null, reason };
}

/** What `watch` takes. */
export interface WatchOptions {
  /** The API's options of each read (`data.price.selector=.price&changes.ignore=.ad`), as text or an object. */
  query?: string | RawObject;
  /** How often: milliseconds or text (`30s`, `1h`); or give `cron`. At least a second. */
  every?: string | number;
  /** When: a cron expression (UTC). */
  cron?: string;
  /** The history's name (`changes.tag`; default `watch`). */
  tag?: string;
  /** Whose history it is (as the server's API key; default none). */
  scope?: string;
  /** Stops the watch: a read under way ends, then the loop does, without throwing. */
  signal?: AbortSignal;
}

/** The shortest interval `watch` takes (the server's monitors have REFRACT_MONITOR_MIN_INTERVAL). */
export const WATCH_MIN_INTERVAL = 1000;

/**
 * Reads `url` with `changes` now and then on the schedule, yielding each report (`new` first, then `same`,
 * `changed` or `failed`): `for await (const report of watch(engine, url, { every: '1h' }))`. Baselines are the
 * engine's (its data folder, or Redis), so a watch started again goes on from its last good read. Invalid options
 * throw a RefractError before the first read.
 */
export async function* watch(engine: Engine, url: string, options: WatchOptions = {}): AsyncGenerator<ChangeReport> {
  const { every, cron, query, signal } = options;
  const spec = await monitorRequest({ url, query, every, cron, tag: options.tag }, engine, '', WATCH_MIN_INTERVAL);
  const tag = spec.tag ?? 'watch';
  let lastGoodAt: string | null = null;
  while (!signal?.aborted) {
    const report = await readChanges(
      engine,
      { url: spec.url, query: spec.query, tag, scope: options.scope ?? '', lastGoodAt },
      Date.now,
    );
    if (report.status !== 'failed') lastGoodAt = report.checkedAt;
    yield report;
    const wait = nextRun(spec, Date.now()) - Date.now();
    try {
      await sleep(Math.max(0, wait), undefined, { signal });
    } catch {
      return;
    }
  }
}
