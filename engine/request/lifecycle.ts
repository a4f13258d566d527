import type { EventEmitter } from 'node:events';
import { RefractError, isRefractError, type Code } from '../kernel/errors.ts';
import type { Cache } from '../store/cache.ts';
import { coded } from '../kernel/failures.ts';
import { cacheKeyOf } from './cache-key.ts';
import type { Plan } from '../plan/plan.ts';
import type { CacheEntry, Extraction } from './extraction.ts';
import type { Clock } from '../store/state.ts';
import type { Logger } from '../kernel/log.ts';

/** How an answer was obtained from the cache. */
export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'BYPASS';

/** An extraction as the engine answers it: the stored entry (data, lifetime) and how the cache served it. */
export interface Outcome extends CacheEntry {
  cache: CacheStatus;
}

/**
 * Per call: `admit` runs before work is spent on a MISS or BYPASS (a quota charge that may refuse it), and only
 * by the request that does the work (others that share its computation are HITs, free); `scope` is the caller
 * a `cacheKey` belongs to.
 */
export interface ExtractOptions {
  admit?: () => Promise<void>;
  scope?: string;
}

/** How many times a request that waited on another's computation tries again when that one was refused its quota. */
const FOLLOWER_RETRIES = 2;

/** Errors of the extraction that are worth remembering for a while (not capacity or unexpected failures). */
const NOT_REMEMBERED = new Set<Code>(['EFATAL', 'EBUSY', 'ERATE', 'ESTORAGE']);

/** What the lifecycle works with: the cache, the one-shot runner, the clock, lifetimes, and where to report. */
export interface LifecycleDeps {
  cache: Cache<CacheEntry>;
  run(plan: Plan): Promise<Extraction>;
  clock: Clock;
  cacheTtlMs: number;
  failureTtlMs: number;
  logger: Logger;
  /** Background work reports here: `refresh` with `{ url, ok }` once a stale entry was regenerated. */
  events: EventEmitter;
  /** Whether a stored entry may still be answered (its generated files exist); an unusable one is made again. */
  usable?(entry: CacheEntry): Promise<boolean>;
}

/** A failure carries the cache state it was answered with (a remembered failure is a HIT). */
function withCacheStatus(err: unknown, cache: CacheStatus): unknown {
  if (err && typeof err === 'object') Object.defineProperty(err, 'cacheStatus', { value: cache, configurable: true });
  return err;
}

/** The cache state a failure was answered with, MISS when it was never looked up. */
export function cacheStatusOf(err: unknown): CacheStatus {
  return (err as { cacheStatus?: CacheStatus } | null)?.cacheStatus ?? 'MISS';
}

/** Whether an answer lacks something it was asked for: a step's warning (it failed, or ran out of time). */
export function degraded(entry: Pick<CacheEntry, 'warnings'>): boolean {
  return entry.warnings.length > 0;
}

/** Runs the plan and stores the outcome; a failure worth remembering is stored briefly and returned as such. */
async function compute(deps: LifecycleDeps, plan: Plan, key: string): Promise<CacheEntry> {
  const { cache, clock } = deps;
  try {
    // The run's phases are this request's (Server-Timing): they are answered, never stored.
    const { phases, ...result } = await deps.run(plan);
    const now = clock.now();
    // An answer missing an output that was asked for (a step failed or ran out of time: its warning says so) is
    // answered once and never kept: a repeat tries again instead of handing back the gap as a fresh answer.
    if (degraded(result)) return { ...result, ...(phases ? { phases } : {}), createdAt: now, expiresAt: now };
    const fresh: CacheEntry = { ...result, createdAt: now, expiresAt: now + (plan.options.ttl ?? deps.cacheTtlMs) };
    const storing = performance.now();
    await cache.set(key, fresh);
    return phases ? { ...fresh, phases: [...phases, { name: 'store', ms: performance.now() - storing }] } : fresh;
  } catch (err) {
    if (!isRefractError(err) || NOT_REMEMBERED.has(err.code) || deps.failureTtlMs <= 0) throw err;
    const now = clock.now();
    const failed: CacheEntry = {
      data: {},
      fetchMode: 'none',
      fetchTimeMs: 0,
      warnings: [],
      createdAt: now,
      expiresAt: now + deps.failureTtlMs,
      failure: { code: err.code, message: err.message, data: err.data },
    };
    await cache.set(key, failed);
    return failed;
  }
}

/** The stored entry of a key, if there is one that may be answered (one linking a deleted file is dropped). */
async function usable(deps: LifecycleDeps, key: string): Promise<CacheEntry | undefined> {
  const stored = await deps.cache.get(key);
  if (!stored || stored.failure || !deps.usable || (await deps.usable(stored))) return stored;
  await deps.cache.delete(key);
  return undefined;
}

/**
 * The engine's one entry for a plan: cache → coalesce → executor → steps. A fresh entry is a HIT; past its
 * `staleTtl` a STALE answer is given while one background refresh runs; `force` is a BYPASS; anything else is
 * computed once for all concurrent callers (across processes with Redis) and stored. Failures worth it are
 * remembered for the failure TTL and answered again as HITs. Failures throw, carrying their cache state.
 */
export function createLifecycle(deps: LifecycleDeps) {
  const { cache, clock } = deps;
  const refreshing = new Set<string>();

  /** Refreshes a stale entry once (per process; across processes the cache lock makes it once in all). */
  function refreshInBackground(plan: Plan, key: string, staleSince: number): void {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    // Another process may have refreshed it while this one waited for the lock: a newer entry is kept as it is.
    const refresh = async () => {
      const current = await cache.get(key);
      return current && current.createdAt > staleSince ? current : compute(deps, plan, key);
    };
    void cache
      .coalesce(key, refresh, plan.options.timeout + 5000)
      .then((entry) => deps.events.emit('refresh', { url: plan.url, ok: !entry.failure }))
      .catch((err) => {
        deps.logger.warn('background refresh failed', { url: plan.url, error: (err as Error).message });
        deps.events.emit('refresh', { url: plan.url, ok: false });
      })
      .finally(() => refreshing.delete(key));
  }

  async function lookup(
    plan: Plan,
    key: string,
    opts: ExtractOptions,
  ): Promise<{ entry: CacheEntry; cache: CacheStatus; lookupMs: number }> {
    const since = performance.now();
    const stored = plan.options.force ? undefined : await usable(deps, key);
    const lookupMs = performance.now() - since;
    if (stored) {
      const { staleTtl } = plan.options;
      if (stored.failure || staleTtl === undefined || clock.now() - stored.createdAt < staleTtl)
        return { entry: stored, cache: 'HIT', lookupMs };
      refreshInBackground(plan, key, stored.createdAt);
      return { entry: stored, cache: 'STALE', lookupMs };
    }
    const force = !!plan.options.force;
    const status: CacheStatus = force ? 'BYPASS' : 'MISS';
    if (force) {
      try {
        await opts.admit?.();
        await cache.delete(key);
      } catch (err) {
        throw withCacheStatus(err, status);
      }
    }
    for (let tries = 0; ; tries++) {
      // Set only for the request whose computation runs: the others that wait on it get its entry as a HIT.
      let mine = false;
      try {
        // Checked again once this request holds the computation (another process may have stored it meanwhile).
        const entry = await cache.coalesce(
          key,
          async () => {
            const current = await usable(deps, key);
            if (current) return current;
            mine = true;
            if (!force) await opts.admit?.();
            return compute(deps, plan, key);
          },
          plan.options.timeout + 5000,
        );
        // A degraded answer shared with this caller was not stored: it is as new to this caller as to the one that ran it.
        return { entry, cache: mine || force || degraded(entry) ? status : 'HIT', lookupMs };
      } catch (err) {
        // The request that computed was refused its own quota: that says nothing of this caller's, who tries itself.
        if (!mine && !force && tries < FOLLOWER_RETRIES && isRefractError(err) && err.code === 'ERATE') continue;
        throw withCacheStatus(coded(err), status);
      }
    }
  }

  return {
    async extract(plan: Plan, opts: ExtractOptions = {}): Promise<Outcome> {
      const { entry, cache: status, lookupMs } = await lookup(plan, cacheKeyOf(plan, opts.scope), opts);
      if (entry.failure) {
        const { code, message, data } = entry.failure;
        throw withCacheStatus(
          new RefractError(code as Code, message, { data: data as Record<string, unknown> | undefined }),
          status,
        );
      }
      return { ...entry, cache: status, phases: [{ name: 'cache', ms: lookupMs }, ...(entry.phases ?? [])] };
    },
  };
}
