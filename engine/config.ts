import { parseDuration } from './duration.ts';

/**
 * Every setting Refract reads from the environment, with its default. README's table mirrors this list
 * (a test checks that each name is documented there).
 */
export interface Config {
  port: number;
  proPort: number;
  host: string;
  /** Base of asset links; empty means the free endpoint's own address once it listens. */
  publicUrl: string;
  allowPrivateHosts: string[];
  proxyUrls: string[];
  /** Proxies by country (lower-case ISO 3166 code) for `proxy.location` and the pro challenge retry. */
  proxyLocations: Record<string, string[]>;
  redisUrl: string | undefined;
  apiKeys: string[];
  plugins: string[];
  cacheMaxBytes: number;
  cacheTtlMs: number;
  timeoutMs: number;
  maxTimeoutMs: number;
  maxBodyBytes: number;
  probeTimeoutMs: number;
  freeQuota: number;
  freeQuotaWindowSecs: number;
  /** Requests per UTC month of a pro key without a quota of its own. */
  proQuota: number;
  /** How long a failed extraction is remembered, so a storm of identical bad requests costs one attempt. */
  failureTtlMs: number;
  concurrency: number;
  browserConcurrency: number;
  browserQueue: number;
  browserRetireAfterPages: number;
  browserMaxMemoryBytes: number;
  /** Pages kept ready (reset after use, or opened ahead of need) for the next request of their kind, in all (0: none). */
  browserWarmPages: number;
  prerenderBudgetMs: number;
  assetsDir: string;
  /** Base URL of generated files; empty = `<publicUrl>/assets/`. */
  assetsUrl: string;
  /** Path of a JSON file of extra oEmbed providers (the same format as the shipped list), checked first. */
  oembedProviders: string | undefined;
  testHooks: boolean;
  /** The Chromium binary that pages and audits run in. */
  chromePath: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** How long requests in flight may take to finish after SIGTERM before the process ends anyway. */
  shutdownGraceMs: number;
  /** Bearer token that `/metrics` requires; empty: open. */
  metricsToken: string;
  /** Proxies trusted to name the client (hop count or address list; empty: none). */
  trustProxy: string;
  /** How long a client may take to send a request's headers before its connection is closed (408). */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: number;
  /** Connections one client address may hold open at once, per endpoint (0: no limit). */
  maxConnectionsPerClient: number;
  /** Where error answers send a report (`{id}`, `{code}` filled in); empty: the error page's reporting section. */
  reportUrl: string;
}

/** Documentation of each environment variable, keyed by name. */
export const ENV_DOCS: Record<string, string> = {
  PORT: 'Port of the free endpoint (default 3000).',
  PRO_PORT: 'Port of the pro endpoint (default 3001).',
  HOST: 'Interface to listen on (default 0.0.0.0).',
  PUBLIC_URL: 'Base URL under which assets and error docs are linked (default: the free endpoint\'s own address).',
  REFRACT_ALLOW_PRIVATE_HOSTS: 'Comma-separated host names or CIDRs exempt from the SSRF guard (default none).',
  PROXY_URLS: 'Comma-separated proxy URLs; requests rotate over them by session (default none).',
  REFRACT_PROXY_LOCATIONS: 'Comma-separated `country=proxyUrl` pairs (`us=http://u:p@host:8000`, repeat a country to rotate) serving `proxy.location` and the pro retry of challenge pages (default none).',
  REDIS_URL: 'Redis connection URL for shared cache and quotas (default: in memory).',
  REFRACT_API_KEYS: 'Comma-separated API keys of the pro endpoint, or the path (starting with `/` or `./`) of a file with one key per line, optionally followed by that key\'s monthly quota; the file is re-read when it changes, so keys rotate without a restart.',
  REFRACT_PLUGINS: 'Comma-separated module names or paths of third-party plugins to load.',
  REFRACT_CACHE_MAX_BYTES: 'Upper bound of the in-memory response cache in bytes (default 128 MiB).',
  REFRACT_CACHE_TTL: 'Default cache lifetime, milliseconds or text such as 24h (default 24h).',
  REFRACT_TIMEOUT: 'Default request timeout, milliseconds or text (default 28s).',
  REFRACT_MAX_TIMEOUT: 'Largest `timeout` a request may ask for (default 60s).',
  REFRACT_MAX_BODY_BYTES: 'Largest target body read, in bytes (default 10 MiB).',
  REFRACT_PROBE_TIMEOUT: 'Longest time one media probe (size, dimensions, duration) may take (default 3s); 0 turns probing off.',
  REFRACT_FREE_QUOTA: 'Requests per window per IP on the free endpoint (default 250).',
  REFRACT_FREE_QUOTA_WINDOW: 'Length of the free quota window (default 24h).',
  REFRACT_PRO_QUOTA: 'Requests per UTC calendar month of each pro key that sets no quota of its own in the key file (default 46000).',
  REFRACT_FAILURE_TTL: 'How long a failed extraction is cached and answered again without new work (default 30s; 0 = not cached).',
  REFRACT_CONCURRENCY: 'Requests processed at once by the executor (default 16).',
  REFRACT_BROWSER_CONCURRENCY: 'Browser pages open at once (default 4).',
  REFRACT_BROWSER_QUEUE: 'Requests that may wait for a browser page; past it EBUSY (503) answers at once (default 32).',
  REFRACT_BROWSER_RETIRE_AFTER: 'Pages a browser serves before it is replaced by a fresh one (default 100).',
  REFRACT_BROWSER_WARM_PAGES: 'Pages kept ready for the next request of their kind, in all (default: the browser concurrency; 0 opens and closes a page per request).',
  REFRACT_BROWSER_MAX_MEMORY: 'Resident memory of all browser processes, in bytes, past which browsers are replaced (default 2 GiB; 0 = no ceiling).',
  REFRACT_PRERENDER_BUDGET: 'How long prerendering may take before the plain fetch answers instead (default 8s).',
  REFRACT_ASSETS_DIR: 'Folder of generated screenshots, PDFs and videos (default ./.assets).',
  REFRACT_ASSETS_URL: 'Base URL that generated files are linked under (default: PUBLIC_URL + `/assets/`; `refract crawl` links the files in its assets folder with `file:` URLs).',
  REFRACT_OEMBED_PROVIDERS: 'Path of a JSON file of extra oEmbed providers for `iframe`, in the format of the shipped providers list; they are matched before it (default none).',
  CHROME_PATH: 'The Chromium binary for pages and Lighthouse audits (default /usr/bin/chromium, Debian\'s).',
  REFRACT_TEST_HOOKS: 'Set to 1 to accept the `html_url` test parameter (loopback only); never in production.',
  REFRACT_LOG_LEVEL: 'debug, info, warn, error or silent (default info).',
  REFRACT_SHUTDOWN_GRACE: 'On SIGTERM, how long requests in flight may take to finish (readiness is false and new connections are refused meanwhile) before browsers, Redis and the process close (default 25s).',
  REFRACT_METRICS_TOKEN: 'Bearer token that `/metrics` requires (`Authorization: Bearer <token>`); unset, `/metrics` is open (default unset).',
  REFRACT_HEADERS_TIMEOUT: 'How long a client may take to send the headers of a request before the server answers 408 and closes the connection (default 10s).',
  REFRACT_KEEPALIVE_TIMEOUT: 'How long an idle keep-alive connection is kept open; longer than the idle timeout of the load balancer in front, so that it closes first (default 65s).',
  REFRACT_MAX_CONNECTIONS_PER_CLIENT: 'Connections one client address (the socket\'s peer) may hold open at once on each endpoint; more are closed at once. Behind a reverse proxy every connection comes from the proxy: raise it or set 0 (no limit) there (default 256).',
  REFRACT_REPORT_URL: 'Where error answers\' `report` link points, with `{id}` (the request id) and `{code}` filled in, e.g. an issue tracker\'s new-issue URL (default: the error page\'s section on reporting, with the id).',
  REFRACT_TRUST_PROXY: 'Proxies trusted to name the client in `X-Forwarded-For` (or `Forwarded`), for the free quota: a hop count (`1`: the nearest proxy) or a comma-separated list of addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`. Unset, nothing is trusted: the socket\'s peer is the client (default unset).',
};

type Env = Record<string, string | undefined>;

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

function duration(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = parseDuration(raw);
  if (n === undefined) throw new Error(`${name} must be a duration such as 30s or 60000, got "${raw}"`);
  return n;
}

function locations(pairs: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of pairs) {
    const m = /^([a-z]{2})=(.+)$/i.exec(pair);
    if (!m) throw new Error(`REFRACT_PROXY_LOCATIONS entries must look like us=http://host:8000, got "${pair}"`);
    (out[m[1]!.toLowerCase()] ??= []).push(m[2]!);
  }
  return out;
}

/** Builds the configuration from an environment (process.env by default); throws on a malformed value. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const level = (env.REFRACT_LOG_LEVEL ?? 'info') as Config['logLevel'];
  return {
    port,
    proPort: int(env, 'PRO_PORT', 3001),
    host: env.HOST || '0.0.0.0',
    publicUrl: (env.PUBLIC_URL ?? '').replace(/\/+$/, ''),
    allowPrivateHosts: list(env.REFRACT_ALLOW_PRIVATE_HOSTS),
    proxyUrls: list(env.PROXY_URLS),
    proxyLocations: locations(list(env.REFRACT_PROXY_LOCATIONS)),
    redisUrl: env.REDIS_URL || undefined,
    apiKeys: list(env.REFRACT_API_KEYS),
    plugins: list(env.REFRACT_PLUGINS),
    cacheMaxBytes: int(env, 'REFRACT_CACHE_MAX_BYTES', 128 * 1024 * 1024),
    cacheTtlMs: duration(env, 'REFRACT_CACHE_TTL', 24 * 3600_000),
    timeoutMs: duration(env, 'REFRACT_TIMEOUT', 28_000),
    maxTimeoutMs: duration(env, 'REFRACT_MAX_TIMEOUT', 60_000),
    maxBodyBytes: int(env, 'REFRACT_MAX_BODY_BYTES', 10 * 1024 * 1024),
    probeTimeoutMs: duration(env, 'REFRACT_PROBE_TIMEOUT', 3000),
    freeQuota: int(env, 'REFRACT_FREE_QUOTA', 250),
    freeQuotaWindowSecs: duration(env, 'REFRACT_FREE_QUOTA_WINDOW', 24 * 3600_000) / 1000,
    proQuota: int(env, 'REFRACT_PRO_QUOTA', 46_000),
    failureTtlMs: duration(env, 'REFRACT_FAILURE_TTL', 30_000),
    concurrency: int(env, 'REFRACT_CONCURRENCY', 16),
    browserConcurrency: Math.max(1, int(env, 'REFRACT_BROWSER_CONCURRENCY', 4)),
    browserQueue: int(env, 'REFRACT_BROWSER_QUEUE', 32),
    browserRetireAfterPages: Math.max(1, int(env, 'REFRACT_BROWSER_RETIRE_AFTER', 100)),
    browserMaxMemoryBytes: int(env, 'REFRACT_BROWSER_MAX_MEMORY', 2 * 1024 ** 3),
    browserWarmPages: Math.max(0, int(env, 'REFRACT_BROWSER_WARM_PAGES', Math.max(1, int(env, 'REFRACT_BROWSER_CONCURRENCY', 4)))),
    prerenderBudgetMs: duration(env, 'REFRACT_PRERENDER_BUDGET', 8000),
    assetsDir: env.REFRACT_ASSETS_DIR || '.assets',
    assetsUrl: env.REFRACT_ASSETS_URL ?? '',
    oembedProviders: env.REFRACT_OEMBED_PROVIDERS || undefined,
    testHooks: env.REFRACT_TEST_HOOKS === '1',
    chromePath: env.CHROME_PATH || '/usr/bin/chromium',
    logLevel: ['debug', 'info', 'warn', 'error', 'silent'].includes(level) ? level : 'info',
    shutdownGraceMs: duration(env, 'REFRACT_SHUTDOWN_GRACE', 25_000),
    metricsToken: env.REFRACT_METRICS_TOKEN ?? '',
    trustProxy: env.REFRACT_TRUST_PROXY ?? '',
    headersTimeoutMs: Math.max(1000, duration(env, 'REFRACT_HEADERS_TIMEOUT', 10_000)),
    keepAliveTimeoutMs: duration(env, 'REFRACT_KEEPALIVE_TIMEOUT', 65_000),
    maxConnectionsPerClient: int(env, 'REFRACT_MAX_CONNECTIONS_PER_CLIENT', 256),
    reportUrl: env.REFRACT_REPORT_URL ?? '',
  };
}
