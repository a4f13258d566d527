import { z, bool, device, duration, text, list, num, oneOf, options, toBoolean, TEXT_FORM_MARK } from './schema.ts';

/** The range of `ttl`: one minute to 31 days (SPEC limits). */
export const TTL_MIN = 60_000;
export const TTL_MAX = 31 * 24 * 3600_000;

/** Pro-only parameters and the code each is refused with on the free plan. */
export const PRO_ONLY = {
  cacheKey: 'ECACHEKEY', filename: 'EFILENAME', headers: 'EHEADERS', proxy: 'EPROXY', staleTtl: 'ESTTL', ttl: 'ETTL',
} as const;

/** The viewport fields a request (`viewport.*`) or an output (`screenshot.width`...) may set. */
export const viewportFields = {
  width: num({ min: 1, max: 8000, int: true }).optional(),
  height: num({ min: 1, max: 8000, int: true }).optional(),
  deviceScaleFactor: num({ min: 0.1, max: 5 }).optional(),
  isMobile: bool().optional(),
  hasTouch: bool().optional(),
  isLandscape: bool().optional(),
};

/** Schema of the general (non-plugin) parameters, applied before any I/O. */
export const coreSchema = z.object({
  url: z.string({ error: 'the `url` parameter is required' }),
  htmlUrl: text().optional(),
  force: bool().default(false),
  audio: bool().default(false),
  video: bool().default(false),
  filter: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v),
    z.array(z.string().trim().min(1)).optional()),
  embed: text().optional(),
  timeout: duration({ min: 1 }).optional(),
  prerender: z.preprocess((v) => {
    const word = typeof v === 'string' ? v.trim().toLowerCase() : v;
    return word === 'auto' ? word : toBoolean(word);
  }, z.union([z.literal('auto'), z.boolean()], { error: 'expected auto, true or false' })).default('auto'),
  userAgent: text().optional(),
  headers: z.record(z.string(), z.string({ error: 'expected one text value per header' }), { error: 'expected dotted header names' }).optional(),
  // `min` and `max` are aliases of the range ends; the range is checked in the plan, after aliasing.
  ttl: z.preprocess((v) => (v === 'min' ? TTL_MIN : v === 'max' ? TTL_MAX : v), duration({ min: TTL_MIN, max: TTL_MAX })).optional(),
  // `true` serves the stored copy at any age while refreshing it (a stale threshold of 0); `false` turns it off.
  staleTtl: z.preprocess((v) => {
    const flag = toBoolean(v);
    return flag === true ? 0 : flag === false ? undefined : v;
  }, duration({ max: TTL_MAX }).optional()),
  cacheKey: text().optional(),
  filename: text().optional(),
  // A proxy URL, or `{ url, location }`: the plan normalizes both forms to the object.
  proxy: z.preprocess((v) => (typeof v === 'string' ? { url: v } : v), options({
    url: text().refine((v) => { try { return ['http:', 'https:'].includes(new URL(v).protocol); } catch { return false; } }, { error: 'expected an http(s) proxy URL such as http://user:pass@host:8080' }).optional(),
    location: text().transform((v) => v.toLowerCase()).refine((v) => /^[a-z]{2}$/.test(v), { error: 'expected a two-letter country code such as us' }).optional(),
  })).meta({ [TEXT_FORM_MARK]: 'a proxy URL such as http://user:pass@host:8080' }).optional(),
  retry: num({ min: 0, max: 5, int: true }).optional(),
  waitUntil: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(oneOf(['load', 'domcontentloaded', 'networkidle', 'networkidle0', 'networkidle2', 'commit', 'auto']))).optional(),
  device: device().optional(),
  viewport: options(viewportFields).optional(),
  colorScheme: oneOf(['light', 'dark', 'no-preference']).optional(),
  mediaType: oneOf(['screen', 'print']).optional(),
  animations: bool().optional(),
  javascript: bool().default(true),
  adblock: bool().optional(),
  click: list().optional(),
  scroll: text().optional(),
  scripts: list().optional(),
  styles: list().optional(),
  modules: list().optional(),
  waitForSelector: text().optional(),
  waitForTimeout: duration({ max: 20_000 }).optional(),
});

/** The general options of a request after validation. */
export type CoreOptions = z.output<typeof coreSchema> & { timeout: number };

/** General parameters that exist only for tests (REFRACT_TEST_HOOKS): refused otherwise, and not described. */
export const TEST_HOOK_PARAMS: ReadonlySet<string> = new Set(['htmlUrl']);

/** Names that are general parameters and so cannot be plugin names. */
export const CORE_PARAMS: ReadonlySet<string> = new Set(Object.keys(coreSchema.shape));

/** Parameters whose invalid value has its own code instead of EINVALQUERY. */
export const INVALID_CODES = {
  url: 'EINVALURL', ttl: 'EINVALTTL', staleTtl: 'EINVALSTTL', proxy: 'EINVALPROXY', headers: 'EHEADERS',
} as const;
