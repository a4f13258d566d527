import { z, duration } from './schema.ts';
import { cacheOptions } from './cache-options.ts';
import { pageOptions } from './page-options.ts';
import { fetchOptions } from './fetch-options.ts';
import { proxyOptions } from './proxy-options.ts';
import { outputOptions } from './filter.ts';

export { TTL_MIN, TTL_MAX } from './cache-options.ts';
export { viewportFields } from './page-options.ts';

/** Pro-only parameters and the code each is refused with on the free plan. */
export const PRO_ONLY = {
  cacheKey: 'ECACHEKEY',
  filename: 'EFILENAME',
  headers: 'EHEADERS',
  proxy: 'EPROXY',
  staleTtl: 'ESTTL',
  ttl: 'ETTL',
} as const;

/**
 * Schema of the general (non-plugin) parameters, applied before any I/O. Each group is declared next to the code
 * that reads it (docs/parameters.md maps every name to its file); the plugins declare their own.
 */
export const coreSchema = z.object({
  url: z.string({ error: 'the `url` parameter is required' }),
  timeout: duration({ min: 1 }).optional(),
  ...fetchOptions,
  ...proxyOptions,
  ...cacheOptions,
  ...pageOptions,
  ...outputOptions,
});

/** The general options of a request after validation. */
export type CoreOptions = z.output<typeof coreSchema> & { timeout: number };

/** General parameters that exist only for tests (REFRACT_TEST_HOOKS): refused otherwise, and not described. */
export const TEST_HOOK_PARAMS: ReadonlySet<string> = new Set(['htmlUrl']);

/** Names that are general parameters and so cannot be plugin names. */
export const CORE_PARAMS: ReadonlySet<string> = new Set(Object.keys(coreSchema.shape));

/** Parameters whose invalid value has its own code instead of EINVALQUERY. */
export const INVALID_CODES = {
  url: 'EINVALURL',
  ttl: 'EINVALTTL',
  staleTtl: 'EINVALSTTL',
  proxy: 'EINVALPROXY',
  headers: 'EHEADERS',
  filename: 'EFILENAME',
} as const;
