import { parseDuration } from './duration.ts';

/**
 * Every setting Refract reads from the environment, declared once: its variable, how its text is read, its
 * default, and its documentation, in which `{default}` stands for the default as shown. The `Config` type, the
 * parsing in `loadConfig`, and ENV_DOCS (README's settings table and `--help` carry its rows: a test checks
 * README against it) all come from this one list, so a default cannot differ between them.
 */

type Env = Record<string, string | undefined>;

/** One setting: how its variable's text becomes a value, and what it is when the variable is unset or empty. */
interface Setting<T> {
  env: string;
  doc: string;
  read(raw: string, name: string): T;
  /** The value when unset: fixed, or computed from the other variables (the warm pages follow the concurrency). */
  fallback: T | ((env: Env) => T);
  /** How the default is written in the docs, when it is not the value itself. */
  shown?: string;
}

function setting<T>(env: string, read: (raw: string, name: string) => T, fallback: T | ((env: Env) => T), doc: string, shown?: string): Setting<T> {
  return { env, read, fallback, doc, shown };
}

const text = (raw: string) => raw;
const list = (raw: string) => raw.split(',').map((s) => s.trim()).filter(Boolean);
function count(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}
const atLeast = (min: number) => (raw: string, name: string) => Math.max(min, count(raw, name));
function duration(raw: string, name: string): number {
  const n = parseDuration(raw);
  if (n === undefined) throw new Error(`${name} must be a duration such as 30s or 60000, got "${raw}"`);
  return n;
}
const durationAtLeast = (min: number) => timed((raw: string, name: string) => Math.max(min, duration(raw, name)));
/** Readers of durations (their defaults are written 28s, 24h). */
const durationReaders = new WeakSet<object>([duration]);
function timed<T extends (raw: string, name: string) => number>(read: T): T {
  durationReaders.add(read);
  return read;
}
function locations(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of list(raw)) {
    const m = /^([a-z]{2})=(.+)$/i.exec(pair);
    if (!m) throw new Error(`REFRACT_PROXY_LOCATIONS entries must look like us=http://host:8000, got "${pair}"`);
    (out[m[1]!.toLowerCase()] ??= []).push(m[2]!);
  }
  return out;
}
const SANDBOX = ['auto', 'on', 'off'] as const;
function sandbox(raw: string, name: string): (typeof SANDBOX)[number] {
  if (!(SANDBOX as readonly string[]).includes(raw)) throw new Error(`${name} must be auto, on or off, got "${raw}"`);
  return raw as (typeof SANDBOX)[number];
}
const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
const level = (raw: string): (typeof LEVELS)[number] => (LEVELS as readonly string[]).includes(raw) ? raw as (typeof LEVELS)[number] : 'info';

const MiB = 1024 * 1024;
const HOUR = 3600_000;

/** The value of one setting in an environment: read from its variable, or its default. */
function read<T>(s: Setting<T>, env: Env): T {
  const raw = env[s.env];
  if (raw === undefined || raw === '') return typeof s.fallback === 'function' ? (s.fallback as (env: Env) => T)(env) : s.fallback;
  return s.read(raw, s.env);
}

// Declared apart: the warm pages' default is the browser concurrency.
const browserConcurrency = setting('REFRACT_BROWSER_CONCURRENCY', atLeast(1), 4, 'Browser pages open at once (default {default}).');

/** Refract's settings, by their name in `Config`. */
export const SETTINGS = {
  port: setting('PORT', count, 3000, 'Port of the free endpoint (default {default}).'),
  proPort: setting('PRO_PORT', count, 3001, 'Port of the pro endpoint (default {default}).'),
  host: setting('HOST', text, '0.0.0.0', 'Interface to listen on (default {default}).'),
  /** Base of asset links; empty means the free endpoint's own address once it listens. */
  publicUrl: setting('PUBLIC_URL', (raw) => raw.replace(/\/+$/, ''), '', 'Base URL under which assets and error docs are linked (default{default}).', ': the free endpoint\'s own address'),
  allowPrivateHosts: setting('REFRACT_ALLOW_PRIVATE_HOSTS', list, [] as string[], 'Comma-separated host names or CIDRs exempt from the SSRF guard (default {default}).', 'none'),
  proxyUrls: setting('PROXY_URLS', list, [] as string[], 'Comma-separated proxy URLs; requests rotate over them by session (default {default}).', 'none'),
  /** Proxies by country (lower-case ISO 3166 code) for `proxy.location` and the pro challenge retry. */
  proxyLocations: setting('REFRACT_PROXY_LOCATIONS', locations, {} as Record<string, string[]>, 'Comma-separated `country=proxyUrl` pairs (`us=http://u:p@host:8000`, repeat a country to rotate) serving `proxy.location` and the pro retry of challenge pages (default {default}).', 'none'),
  redisUrl: setting('REDIS_URL', (raw): string | undefined => raw, undefined as string | undefined, 'Redis connection URL for the shared cache, quotas and crawl jobs (default{default}).', ': in memory'),
  apiKeys: setting('REFRACT_API_KEYS', list, [] as string[], 'Comma-separated API keys of the pro endpoint, or the path (starting with `/` or `./`) of a file with one key per line, optionally followed by that key\'s monthly quota; the file is re-read when it changes, so keys rotate without a restart.'),
  plugins: setting('REFRACT_PLUGINS', list, [] as string[], 'Comma-separated module names or paths of third-party plugins to load.'),
  cacheMaxBytes: setting('REFRACT_CACHE_MAX_BYTES', count, 128 * MiB, 'Upper bound of the in-memory response cache in bytes (default {default}).'),
  cacheTtlMs: setting('REFRACT_CACHE_TTL', duration, 24 * HOUR, 'Default cache lifetime, milliseconds or text such as 24h (default {default}).'),
  timeoutMs: setting('REFRACT_TIMEOUT', duration, 28_000, 'Default request timeout, milliseconds or text (default {default}).'),
  maxTimeoutMs: setting('REFRACT_MAX_TIMEOUT', duration, 60_000, 'Largest `timeout` a request may ask for (default {default}).'),
  maxBodyBytes: setting('REFRACT_MAX_BODY_BYTES', count, 10 * MiB, 'Largest target body read, in bytes (default {default}).'),
  maxDocumentChars: setting('REFRACT_MAX_DOCUMENT', count, 5 * MiB, 'The part of an HTML body that is parsed for metadata, rules and content, in characters (default {default}); a longer page is read up to a tag near that point. Past 256 kB it is parsed in slices, so that other requests are answered meanwhile.'),
  probeTimeoutMs: setting('REFRACT_PROBE_TIMEOUT', duration, 3000, 'Longest time one media probe (size, dimensions, duration) may take (default {default}); 0 turns probing off.'),
  freeQuota: setting('REFRACT_FREE_QUOTA', count, 250, 'Requests per window per IP on the free endpoint (default {default}).'),
  freeQuotaWindowSecs: setting('REFRACT_FREE_QUOTA_WINDOW', (raw, name) => duration(raw, name) / 1000, 24 * 3600, 'Length of the free quota window (default {default}).', '24h'),
  /** Requests per UTC month of a pro key without a quota of its own. */
  proQuota: setting('REFRACT_PRO_QUOTA', count, 46_000, 'Requests per UTC calendar month of each pro key that sets no quota of its own in the key file (default {default}).'),
  /** How long a failed extraction is remembered, so a storm of identical bad requests costs one attempt. */
  failureTtlMs: setting('REFRACT_FAILURE_TTL', duration, 30_000, 'How long a failed extraction is cached and answered again without new work (default {default}; 0 = not cached).'),
  concurrency: setting('REFRACT_CONCURRENCY', count, 16, 'Requests processed at once by the executor (default {default}).'),
  browserConcurrency,
  browserQueue: setting('REFRACT_BROWSER_QUEUE', count, 32, 'Requests that may wait for a browser page; past it EBUSY (503) answers at once (default {default}).'),
  browserRetireAfterPages: setting('REFRACT_BROWSER_RETIRE_AFTER', atLeast(1), 100, 'Pages a browser serves before it is replaced by a fresh one (default {default}).'),
  browserMaxMemoryBytes: setting('REFRACT_BROWSER_MAX_MEMORY', count, 2048 * MiB, 'Memory of all browser processes (their private resident memory, shared memory counted once), in bytes, past which browsers are replaced (default {default}; 0 = no ceiling).'),
  /** Pages kept ready (reset after use, or opened ahead of need) for the next request of their kind, in all (0: none). */
  browserWarmPages: setting('REFRACT_BROWSER_WARM_PAGES', count, (env: Env) => read(browserConcurrency, env), 'Pages kept ready for the next request of their kind, in all (default{default}; 0 opens and closes a page per request). A new context and its renderer cost ~360 ms of CPU: a page that served a request is reset (about:blank, cookies, permissions, and every origin\'s storage cleared) and used again, up to 50 times, unless the request failed, opened a window, changed the viewport or left a listener. Pages through a proxy, of a crawl, with custom headers or recording video are never reused.', ': the browser concurrency'),
  prerenderBudgetMs: setting('REFRACT_PRERENDER_BUDGET', duration, 8000, 'How long prerendering may take before the plain fetch answers instead (default {default}).'),
  assetsDir: setting('REFRACT_ASSETS_DIR', text, '.assets', 'Folder of generated screenshots, PDFs and videos (default {default}).', './.assets'),
  /** Base URL of generated files; empty = `<publicUrl>/assets/`. */
  assetsUrl: setting('REFRACT_ASSETS_URL', text, '', 'Base URL that generated files are linked under (default{default}; `refract crawl` links the files in its assets folder with `file:` URLs).', ': PUBLIC_URL + `/assets/`'),
  /** Bounds of the local assets folder (0: unbounded); the oldest files go first, pruned in the background. */
  assetsMaxBytes: setting('REFRACT_ASSETS_MAX_BYTES', count, 2048 * MiB, 'Total size, in bytes, the local assets folder is kept under; past it the oldest files are deleted in the background, and a cached answer linking a deleted file is made again (default {default}; 0 = unbounded).'),
  assetsMaxAgeMs: setting('REFRACT_ASSETS_MAX_AGE', duration, 7 * 24 * HOUR, 'Age past which a file of the local assets folder is deleted (a file made again is new) (default {default}; 0 = no limit).'),
  /** `s3://bucket/prefix`: generated files in an S3-compatible bucket instead of the local folder. */
  assetsS3: setting('REFRACT_ASSETS_S3', text, '', 'Keep generated files in an S3-compatible bucket, `s3://bucket/prefix`, shared by every process, instead of `REFRACT_ASSETS_DIR`; the client reads the AWS SDK\'s variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL_S3` for MinIO, R2 or another S3 API); retention is the bucket\'s lifecycle rule (default{default}).', ': unset, the local folder'),
  /** Path of a JSON file of extra oEmbed providers (the same format as the shipped list), checked first. */
  oembedProviders: setting('REFRACT_OEMBED_PROVIDERS', (raw): string | undefined => raw, undefined as string | undefined, 'Path of a JSON file of extra oEmbed providers for `iframe`, in the format of the shipped providers list; they are matched before it (default {default}).', 'none'),
  testHooks: setting('REFRACT_TEST_HOOKS', (raw) => raw === '1', false, 'Set to 1 to accept the `html_url` test parameter (loopback only); never in production.'),
  /** The Chromium binary that pages and audits run in. */
  chromePath: setting('CHROME_PATH', text, '/usr/bin/chromium', 'The Chromium binary for pages and Lighthouse audits (default {default}, Debian\'s).'),
  /** Remote browsers (the browser tier) instead of a local Chromium. */
  browserEndpoints: setting('REFRACT_BROWSER_ENDPOINTS', list, [] as string[], 'Comma-separated remote browsers to use instead of a local Chromium: `ws://` URLs speak Playwright\'s protocol (`npx refract browser-server`, `chromium.launchServer()`, Browserless\'s Playwright route), `cdp+ws://` or `cdp+http://` URLs speak CDP. Pages are spread over them; one that fails, or hangs (no answer to a heartbeat within 3 s), is left alone for a backoff (0.5 s doubling to 30 s) while its pages go to the others (default {default}).', 'none: a local Chromium'),
  /** Where the guard's proxy listens for a browser tier. */
  guardProxyHost: setting('REFRACT_GUARD_PROXY_HOST', text, '127.0.0.1', 'The address of this machine that the SSRF guard\'s proxy listens on and remote browsers reach it at: every request of a remote browser goes through it, and it serves only the hosts of REFRACT_BROWSER_ENDPOINTS (default {default}; set it to this machine\'s address on the browser tier\'s network, or 0.0.0.0 to listen on every interface and be reached at the first external address, as in a container).'),
  /** Where crawl jobs keep their state and results (embedded default). */
  dataDir: setting('REFRACT_DATA_DIR', text, '.data', 'Folder where crawl jobs (`POST /crawls`) keep their state, journal and result lines, so that a restarted process resumes them (default {default}); with REDIS_URL they are kept in Redis instead.', './.data'),
  crawlPages: setting('REFRACT_CRAWL_PAGES', count, 4, 'With REDIS_URL, pages of crawl jobs this API process visits at once, beside any `refract worker` (default {default}; 0 leaves them to the workers).'),
  /** The key webhook deliveries are signed with. */
  webhookSecret: setting('REFRACT_WEBHOOK_SECRET', text, '', 'Key of webhook signatures (Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`), a `whsec_<base64>` key or any text (its UTF-8 bytes); a crawl with a `webhook` is refused while it is unset (default {default}).', 'unset'),
  /** Chromium's own sandbox: auto (on when not root and user namespaces work), on, or off (`--no-sandbox`). */
  chromiumSandbox: setting('REFRACT_CHROMIUM_SANDBOX', sandbox, 'auto' as (typeof SANDBOX)[number], 'Chromium\'s sandbox: `auto` turns it on when the process is not root and may make user namespaces (checked once at start), `on` requires it, `off` launches with `--no-sandbox` (Chromium refuses the sandbox to root: the SSRF guard, a context per request and the page deadline are then the isolation) (default {default}).'),
  logLevel: setting('REFRACT_LOG_LEVEL', level, 'info' as (typeof LEVELS)[number], 'debug, info, warn, error or silent (default {default}).'),
  /** How long requests in flight may take to finish after SIGTERM before the process ends anyway. */
  shutdownGraceMs: setting('REFRACT_SHUTDOWN_GRACE', duration, 30_000, 'On SIGTERM, how long requests in flight may take to finish (readiness is false and new connections are refused meanwhile; the default covers the default `timeout`); one still running then is answered 503 EBUSY before browsers, Redis and the process close (default {default}).'),
  /** Bearer token that `/metrics` requires; empty: open. */
  metricsToken: setting('REFRACT_METRICS_TOKEN', text, '', 'Bearer token that `/metrics` requires (`Authorization: Bearer <token>`) on both ports; unset, `/metrics` is served on the pro port alone, without a token (default {default}).', 'unset'),
  /** How long a client may take to send a request's headers before its connection is closed (408). */
  headersTimeoutMs: setting('REFRACT_HEADERS_TIMEOUT', durationAtLeast(1000), 10_000, 'How long a client may take to send the headers of a request before the server answers 408 and closes the connection (default {default}).'),
  /** How long an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: setting('REFRACT_KEEPALIVE_TIMEOUT', duration, 65_000, 'How long an idle keep-alive connection is kept open; longer than the idle timeout of the load balancer in front, so that it closes first (default {default}).'),
  /** Connections one client address may hold open at once, per endpoint (0: no limit). */
  maxConnectionsPerClient: setting('REFRACT_MAX_CONNECTIONS_PER_CLIENT', count, 256, 'Connections one client address (the socket\'s peer) may hold open at once on each endpoint; more are closed at once. Behind a reverse proxy every connection comes from the proxy: raise it or set 0 (no limit) there (default {default}).'),
  /** Where error answers send a report (`{id}`, `{code}` filled in); empty: the error page's reporting section. */
  reportUrl: setting('REFRACT_REPORT_URL', text, '', 'Where error answers\' `report` link points, with `{id}` (the request id) and `{code}` filled in, e.g. an issue tracker\'s new-issue URL (default{default}).', ': the error page\'s section on reporting, with the id'),
  /** Proxies trusted to name the client (hop count or address list; empty: none). */
  trustProxy: setting('REFRACT_TRUST_PROXY', text, '', 'Proxies trusted to name the client in `X-Forwarded-For` (or `Forwarded`), for the free quota: a hop count (`1`: the nearest proxy) or a comma-separated list of addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`. Unset, nothing is trusted: the socket\'s peer is the client (default {default}).', 'unset'),
};

type Settings = typeof SETTINGS;
/** Refract's configuration: one value per setting, typed by how that setting is read. */
export type Config = { [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never };

/** A default as the docs write it: durations in their unit (28s, 24h), sizes in MiB or GiB. */
export function shownDefault(key: keyof Settings): string {
  const s = SETTINGS[key] as Setting<unknown>;
  if (s.shown !== undefined) return s.shown;
  const value = s.fallback as unknown;
  if (typeof value === 'number' && durationReaders.has(s.read)) return value % HOUR === 0 ? `${value / HOUR}h` : value % 1000 === 0 ? `${value / 1000}s` : `${value} ms`;
  if (typeof value === 'number' && value >= MiB && value % MiB === 0) return value % (1024 * MiB) === 0 ? `${value / (1024 * MiB)} GiB` : `${value / MiB} MiB`;
  return String(value);
}

/** Documentation of each environment variable, keyed by name, its default written in. */
export const ENV_DOCS: Record<string, string> = Object.fromEntries(
  (Object.keys(SETTINGS) as (keyof Settings)[]).map((key) => {
    const shown = shownDefault(key);
    return [SETTINGS[key].env, SETTINGS[key].doc.replace('{default}', shown)];
  }),
);

/** Builds the configuration from an environment (process.env by default); throws on a malformed value. */
export function loadConfig(env: Env = process.env): Config {
  return Object.fromEntries((Object.keys(SETTINGS) as (keyof Settings)[]).map((key) => [key, read(SETTINGS[key] as Setting<unknown>, env)])) as Config;
}
