import type { Clock, Counters } from '../engine/index.ts';

/** The state of a caller's quota window, as the rate-limit headers report it. */
export interface QuotaState {
  limit: number;
  remaining: number;
  resetEpochSecs: number;
  exceeded: boolean;
  used: number;
}

/** A quota: how many requests per window; the window is a fixed length aligned to the epoch, or the UTC month. */
export interface QuotaPolicy {
  limit: number;
  window: number | 'month';
}

/** Per-caller quotas over fixed windows, counted in the shared counters (memory or Redis). */
export interface Quota {
  /** Spends one request; `exceeded` tells whether it was refused. */
  consume(caller: string, policy: QuotaPolicy): Promise<QuotaState>;
  /** Reads the state without spending (cache hits cost nothing). */
  peek(caller: string, policy: QuotaPolicy): Promise<QuotaState>;
}

/** The current window of a policy: its id and when it ends (the next window starts). */
export function windowOf(now: number, policy: QuotaPolicy): { id: string; endsAt: number } {
  if (policy.window === 'month') {
    const d = new Date(now);
    return {
      id: `${d.getUTCFullYear()}-${d.getUTCMonth() + 1}`,
      endsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    };
  }
  const start = Math.floor(now / policy.window) * policy.window;
  return { id: String(start), endsAt: start + policy.window };
}

/** Creates the quota over shared counters and a clock. */
export function createQuota(counters: Counters, clock: Clock): Quota {
  const state = (used: number, policy: QuotaPolicy, endsAt: number, exceeded: boolean): QuotaState => ({
    limit: policy.limit,
    used,
    remaining: Math.max(0, policy.limit - used),
    resetEpochSecs: Math.ceil(endsAt / 1000),
    exceeded,
  });
  return {
    async consume(caller, policy) {
      const { id, endsAt } = windowOf(clock.now(), policy);
      const used = await counters.incr(`quota:${caller}:${id}`, endsAt);
      return state(Math.min(used, policy.limit), policy, endsAt, used > policy.limit);
    },
    async peek(caller, policy) {
      const { id, endsAt } = windowOf(clock.now(), policy);
      return state(Math.min(await counters.get(`quota:${caller}:${id}`), policy.limit), policy, endsAt, false);
    },
  };
}
