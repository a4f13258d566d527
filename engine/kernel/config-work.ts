// The settings of the work itself: caches and time-outs, the browsers, generated files, media probes (config.ts
// puts them together with the service's).
import {
  setting,
  text,
  list,
  count,
  atLeast,
  duration,
  sandbox,
  MiB,
  HOUR,
  read,
  type SANDBOX,
  type Env,
} from './config-read.ts';

// Declared apart: the warm pages' default is the browser concurrency.
const browserConcurrency = setting(
  'REFRACT_BROWSER_CONCURRENCY',
  atLeast(1),
  4,
  'Browser pages open at once (default {default}).',
);

/** The work's settings, by their name in `Config`. */
export const WORK_SETTINGS = {
  cacheMaxBytes: setting(
    'REFRACT_CACHE_MAX_BYTES',
    count,
    128 * MiB,
    'Upper bound of the in-memory response cache in bytes (default {default}).',
  ),
  cacheTtlMs: setting(
    'REFRACT_CACHE_TTL',
    duration,
    24 * HOUR,
    'Default cache lifetime, milliseconds or text such as 24h (default {default}).',
  ),
  timeoutMs: setting(
    'REFRACT_TIMEOUT',
    duration,
    28_000,
    'Default request timeout, milliseconds or text (default {default}).',
  ),
  maxTimeoutMs: setting(
    'REFRACT_MAX_TIMEOUT',
    duration,
    60_000,
    'Largest `timeout` a request may ask for (default {default}).',
  ),
  maxBodyBytes: setting(
    'REFRACT_MAX_BODY_BYTES',
    count,
    10 * MiB,
    'Largest target body read, in bytes (default {default}).',
  ),
  maxDocumentChars: setting(
    'REFRACT_MAX_DOCUMENT',
    count,
    5 * MiB,
    'The part of an HTML body that is parsed for metadata, rules and content, in characters (default {default}); a longer page is read up to a tag near that point. Past 256 kB it is parsed in slices, so that other requests are answered meanwhile.',
  ),
  probeTimeoutMs: setting(
    'REFRACT_PROBE_TIMEOUT',
    duration,
    3000,
    'Longest time one media probe (size, dimensions, duration) may take (default {default}); 0 turns probing off.',
  ),
  failureTtlMs: setting(
    'REFRACT_FAILURE_TTL',
    duration,
    30_000,
    'How long a failed extraction is cached and answered again without new work (default {default}; 0 = not cached).',
  ),
  concurrency: setting(
    'REFRACT_CONCURRENCY',
    count,
    16,
    'Requests processed at once by the executor (default {default}).',
  ),
  browserConcurrency,
  browserQueue: setting(
    'REFRACT_BROWSER_QUEUE',
    count,
    32,
    'Requests that may wait for a browser page; past it EBUSY (503) answers at once (default {default}).',
  ),
  browserRetireAfterPages: setting(
    'REFRACT_BROWSER_RETIRE_AFTER',
    atLeast(1),
    100,
    'Pages a browser serves before it is replaced by a fresh one (default {default}).',
  ),
  browserMaxMemoryBytes: setting(
    'REFRACT_BROWSER_MAX_MEMORY',
    count,
    2048 * MiB,
    'Memory of all browser processes (their private resident memory, shared memory counted once), in bytes, past which browsers are replaced (default {default}; 0 = no ceiling).',
  ),
  /** Pages kept ready (reset after use, or opened ahead of need) for the next request of their kind, in all (0: none). */
  browserWarmPages: setting(
    'REFRACT_BROWSER_WARM_PAGES',
    count,
    (env: Env) => read(browserConcurrency, env),
    "Pages kept ready for the next request of their kind, in all (default{default}; 0 opens and closes a page per request). A new context and its renderer cost ~360 ms of CPU: a page that served a request is reset (about:blank, cookies, permissions, and every origin's storage cleared) and used again, up to 50 times, unless the request failed, opened a window, changed the viewport or left a listener. Pages through a proxy, of a crawl, with custom headers or recording video are never reused.",
    ': the browser concurrency',
  ),
  prerenderBudgetMs: setting(
    'REFRACT_PRERENDER_BUDGET',
    duration,
    8000,
    'How long prerendering may take before the plain fetch answers instead (default {default}).',
  ),
  assetsDir: setting(
    'REFRACT_ASSETS_DIR',
    text,
    '.assets',
    'Folder of generated screenshots, PDFs and videos (default {default}).',
    './.assets',
  ),
  /** Base URL of generated files; empty = `<publicUrl>/assets/`. */
  assetsUrl: setting(
    'REFRACT_ASSETS_URL',
    text,
    '',
    'Base URL that generated files are linked under (default{default}; `refract crawl` links the files in its assets folder with `file:` URLs).',
    ': PUBLIC_URL + `/assets/`',
  ),
  /** Bounds of the local assets folder (0: unbounded); the oldest files go first, pruned in the background. */
  assetsMaxBytes: setting(
    'REFRACT_ASSETS_MAX_BYTES',
    count,
    2048 * MiB,
    'Total size, in bytes, the local assets folder is kept under; past it the oldest files are deleted in the background, and a cached answer linking a deleted file is made again (default {default}; 0 = unbounded).',
  ),
  assetsMaxAgeMs: setting(
    'REFRACT_ASSETS_MAX_AGE',
    duration,
    7 * 24 * HOUR,
    'Age past which a file of the local assets folder is deleted (a file made again is new) (default {default}; 0 = no limit).',
  ),
  /** `s3://bucket/prefix`: generated files in an S3-compatible bucket instead of the local folder. */
  assetsS3: setting(
    'REFRACT_ASSETS_S3',
    text,
    '',
    "Keep generated files in an S3-compatible bucket, `s3://bucket/prefix`, shared by every process, instead of `REFRACT_ASSETS_DIR`; the client reads the AWS SDK's variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL_S3` for Versity's gateway, MinIO, R2 or another S3 API; the bucket is created when missing); retention is the bucket's lifecycle rule (default{default}).",
    ': unset, the local folder',
  ),
  /** Path of a JSON file of extra oEmbed providers (the same format as the shipped list), checked first. */
  oembedProviders: setting(
    'REFRACT_OEMBED_PROVIDERS',
    (raw): string | undefined => raw,
    undefined as string | undefined,
    'Path of a JSON file of extra oEmbed providers for `iframe`, in the format of the shipped providers list; they are matched before it (default {default}).',
    'none',
  ),
  testHooks: setting(
    'REFRACT_TEST_HOOKS',
    (raw) => raw === '1',
    false,
    'Set to 1 to accept the `html_url` test parameter (loopback only); never in production.',
  ),
  /** The Chromium binary that pages and audits run in. */
  chromePath: setting(
    'CHROME_PATH',
    text,
    '/usr/bin/chromium',
    "The Chromium binary for pages and Lighthouse audits (default {default}, Debian's).",
  ),
  /** Remote browsers (the browser tier) instead of a local Chromium. */
  browserEndpoints: setting(
    'REFRACT_BROWSER_ENDPOINTS',
    list,
    [] as string[],
    "Comma-separated remote browsers to use instead of a local Chromium: `ws://` URLs speak Playwright's protocol (`npx refract browser-server`, `chromium.launchServer()`, Browserless's Playwright route), `cdp+ws://` or `cdp+http://` URLs speak CDP. Pages are spread over them; one that fails, or hangs (no answer to a heartbeat within 3 s), is left alone for a backoff (0.5 s doubling to 30 s) while its pages go to the others (default {default}).",
    'none: a local Chromium',
  ),
  /** Where the guard's proxy listens for a browser tier. */
  guardProxyHost: setting(
    'REFRACT_GUARD_PROXY_HOST',
    text,
    '127.0.0.1',
    "The address of this machine that the SSRF guard's proxy listens on and remote browsers reach it at: every request of a remote browser goes through it, and it serves only the hosts of REFRACT_BROWSER_ENDPOINTS (default {default}; set it to this machine's address on the browser tier's network, or 0.0.0.0 to listen on every interface and be reached at the first external address, as in a container).",
  ),
  /** Where crawl jobs keep their state and results (embedded default). */
  chromiumSandbox: setting(
    'REFRACT_CHROMIUM_SANDBOX',
    sandbox,
    'auto' as (typeof SANDBOX)[number],
    "Chromium's sandbox: `auto` turns it on when the process is not root and may make user namespaces (checked once at start), `on` requires it, `off` launches with `--no-sandbox` (Chromium refuses the sandbox to root: the SSRF guard, a context per request and the page deadline are then the isolation) (default {default}).",
  ),
};
