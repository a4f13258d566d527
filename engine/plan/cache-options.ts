import { bool, duration, text, toBoolean, z } from './schema.ts';

/** The range of `ttl`: one minute to 31 days (SPEC limits). */
export const TTL_MIN = 60_000;
export const TTL_MAX = 31 * 24 * 3600_000;

/** The cache's query options, read by lifecycle.ts (force, ttl, staleTtl) and cache-key.ts (cacheKey). */
export const cacheOptions = {
  force: bool().default(false),
  // `min` and `max` are aliases of the range ends; the range is checked in the plan, after aliasing.
  ttl: z
    .preprocess((v) => (v === 'min' ? TTL_MIN : v === 'max' ? TTL_MAX : v), duration({ min: TTL_MIN, max: TTL_MAX }))
    .optional(),
  // `true` serves the stored copy at any age while refreshing it (a stale threshold of 0); `false` turns it off.
  staleTtl: z.preprocess((v) => {
    const flag = toBoolean(v);
    return flag === true ? 0 : flag === false ? undefined : v;
  }, duration({ max: TTL_MAX }).optional()),
  cacheKey: text().optional(),
};
