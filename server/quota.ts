import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';

/** The state of a caller's quota window, as the rate-limit headers report it. */
export interface QuotaState { limit: number; remaining: number; resetEpochSecs: number; exceeded: boolean }

/** A per-caller quota over a fixed window. */
export interface Quota {
  /** Spends one request; `exceeded` tells whether it was refused. */
  consume(key: string): Promise<QuotaState>;
  /** Reads the state without spending. */
  peek(key: string): Promise<QuotaState>;
}

/** Creates an in-memory quota of `points` requests per `windowSecs`. */
export function createQuota(points: number, windowSecs: number): Quota {
  const limiter = new RateLimiterMemory({ points, duration: Math.max(1, Math.round(windowSecs)) });
  const state = (res: RateLimiterRes | null, exceeded: boolean): QuotaState => ({
    limit: points,
    remaining: res ? Math.max(0, res.remainingPoints) : points,
    resetEpochSecs: Math.ceil((Date.now() + (res ? res.msBeforeNext : windowSecs * 1000)) / 1000),
    exceeded,
  });
  return {
    async consume(key) {
      try {
        return state(await limiter.consume(key), false);
      } catch (res) {
        if (res instanceof Error) throw res;
        return state(res as RateLimiterRes, true);
      }
    },
    async peek(key) {
      return state(await limiter.get(key), false);
    },
  };
}
