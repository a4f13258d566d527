// The settings of the service around the work: its ports and addresses, proxies, Redis, keys and quotas, plugins,
// crawl jobs, logs, and its HTTP server's limits (config.ts puts them together with the work's).
import {
  setting,
  text,
  list,
  count,
  duration,
  durationAtLeast,
  locations,
  level,
  parentWatch,
  type LEVELS,
} from './config-read.ts';

/** The service's settings, by their name in `Config`. */
export const SERVICE_SETTINGS = {
  port: setting('PORT', count, 3000, 'Port of the free endpoint (default {default}).'),
  proPort: setting('PRO_PORT', count, 3001, 'Port of the pro endpoint (default {default}).'),
  host: setting('HOST', text, '0.0.0.0', 'Interface to listen on (default {default}).'),
  /** Base of asset links; empty means the free endpoint's own address once it listens. */
  publicUrl: setting(
    'PUBLIC_URL',
    (raw) => raw.replace(/\/+$/, ''),
    '',
    'Base URL under which assets and error docs are linked (default{default}).',
    ": the free endpoint's own address",
  ),
  allowPrivateHosts: setting(
    'REFRACT_ALLOW_PRIVATE_HOSTS',
    list,
    [] as string[],
    'Comma-separated host names or CIDRs exempt from the SSRF guard (default {default}).',
    'none',
  ),
  proxyUrls: setting(
    'PROXY_URLS',
    list,
    [] as string[],
    'Comma-separated proxy URLs; requests rotate over them by session (default {default}).',
    'none',
  ),
  /** Proxies by country (lower-case ISO 3166 code) for `proxy.location` and the pro challenge retry. */
  proxyLocations: setting(
    'REFRACT_PROXY_LOCATIONS',
    locations,
    {} as Record<string, string[]>,
    'Comma-separated `country=proxyUrl` pairs (`us=http://u:p@host:8000`, repeat a country to rotate) serving `proxy.location` and the pro retry of challenge pages (default {default}).',
    'none',
  ),
  redisUrl: setting(
    'REDIS_URL',
    (raw): string | undefined => raw,
    undefined as string | undefined,
    'Redis connection URL for the shared cache, quotas and crawl jobs (default{default}).',
    ': in memory',
  ),
  apiKeys: setting(
    'REFRACT_API_KEYS',
    list,
    [] as string[],
    "Comma-separated API keys of the pro endpoint, or the path (starting with `/` or `./`) of a file with one key per line, optionally followed by that key's monthly quota; the file is re-read when it changes, so keys rotate without a restart.",
  ),
  plugins: setting(
    'REFRACT_PLUGINS',
    list,
    [] as string[],
    'Comma-separated module names or paths of third-party plugins to load.',
  ),
  freeQuota: setting(
    'REFRACT_FREE_QUOTA',
    count,
    250,
    'Requests per window per IP on the free endpoint (default {default}).',
  ),
  freeQuotaWindowSecs: setting(
    'REFRACT_FREE_QUOTA_WINDOW',
    (raw, name) => duration(raw, name) / 1000,
    24 * 3600,
    'Length of the free quota window (default {default}).',
    '24h',
  ),
  /** Requests per UTC month of a pro key without a quota of its own. */
  proQuota: setting(
    'REFRACT_PRO_QUOTA',
    count,
    46_000,
    'Requests per UTC calendar month of each pro key that sets no quota of its own in the key file (default {default}).',
  ),
  /** How long a failed extraction is remembered, so a storm of identical bad requests costs one attempt. */
  dataDir: setting(
    'REFRACT_DATA_DIR',
    text,
    '.data',
    'Folder where crawl jobs (`POST /crawls`) keep their state, journal and result lines, so that a restarted process resumes them (default {default}); with REDIS_URL they are kept in Redis instead.',
    './.data',
  ),
  crawlPages: setting(
    'REFRACT_CRAWL_PAGES',
    count,
    4,
    'With REDIS_URL, pages of crawl jobs this API process visits at once, beside any `refract worker` (default {default}; 0 leaves them to the workers).',
  ),
  monitorsPerKey: setting(
    'REFRACT_MONITORS_PER_KEY',
    count,
    100,
    'Monitors (`POST /monitors`) one API key may keep (default {default}).',
  ),
  monitorMinInterval: setting(
    'REFRACT_MONITOR_MIN_INTERVAL',
    duration,
    60_000,
    "The shortest interval of a monitor's schedule, and of two runs of a cron schedule (default {default}).",
  ),
  monitorHistory: setting(
    'REFRACT_MONITOR_HISTORY',
    count,
    100,
    "Changes kept in a monitor's history, the oldest dropped first (default {default}).",
  ),
  monitorHistoryAge: setting(
    'REFRACT_MONITOR_HISTORY_AGE',
    duration,
    30 * 86_400_000,
    "How long a change stays in a monitor's history (default {default}).",
  ),
  /** Read by `refract-api mcp --endpoint` and `refract-api monitor` (clients of another Refract), not by the server. */
  clientKey: setting(
    'REFRACT_API_KEY',
    text,
    '',
    'The key `refract-api mcp --endpoint URL` and `refract-api monitor` send to a remote Refract when `--key` is not given; the server itself does not read it (default {default}).',
    'none',
  ),
  clientEndpoint: setting(
    'REFRACT_ENDPOINT',
    text,
    '',
    'The pro endpoint of the Refract that `refract-api monitor` drives when `--endpoint` is not given; the server itself does not read it (default {default}).',
    'none',
  ),
  signingSecret: setting(
    'REFRACT_SIGNING_SECRET',
    text,
    '',
    "Secret from which each pro key's signing secret is derived, for signed links (`?…&expires=…&signature=…`, no header needed; `refract-api sign`); changing it revokes every signed link, and signed links are refused while it is unset (default {default}).",
    'unset',
  ),
  webhookSecret: setting(
    'REFRACT_WEBHOOK_SECRET',
    text,
    '',
    'Key of webhook signatures (Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`), a `whsec_<base64>` key or any text (its UTF-8 bytes); a crawl with a `webhook` is refused while it is unset (default {default}).',
    'unset',
  ),
  /** Chromium's own sandbox: auto (on when not root and user namespaces work), on, or off (`--no-sandbox`). */
  logLevel: setting(
    'REFRACT_LOG_LEVEL',
    level,
    'info' as (typeof LEVELS)[number],
    'debug, info, warn, error or silent (default {default}).',
  ),
  /** How long requests in flight may take to finish after SIGTERM before the process ends anyway. */
  shutdownGraceMs: setting(
    'REFRACT_SHUTDOWN_GRACE',
    duration,
    30_000,
    'On SIGTERM, how long requests in flight may take to finish (readiness is false and new connections are refused meanwhile; the default covers the default `timeout`); one still running then is answered 503 EBUSY before browsers, Redis and the process close (default {default}).',
  ),
  /** Whether the server stops when the process that started it ends. */
  exitWithParent: setting(
    'REFRACT_EXIT_WITH_PARENT',
    parentWatch,
    'npm',
    "Whether the server drains and stops when the process that started it ends: `on`, `off`, or `npm` (default {default}): only when npm's own shell started it (`npx refract-api serve`: npm passes a SIGTERM to that shell, which ends without passing it on). A server started by a script (`nohup refract serve &`) outlives the script.",
  ),
  /** Bearer token that `/metrics` requires; empty: open. */
  metricsToken: setting(
    'REFRACT_METRICS_TOKEN',
    text,
    '',
    'Bearer token that `/metrics` requires (`Authorization: Bearer <token>`) on both ports; unset, `/metrics` is served on the pro port alone, without a token (default {default}).',
    'unset',
  ),
  /** How long a client may take to send a request's headers before its connection is closed (408). */
  headersTimeoutMs: setting(
    'REFRACT_HEADERS_TIMEOUT',
    durationAtLeast(1000),
    10_000,
    'How long a client may take to send the headers of a request before the server answers 408 and closes the connection (default {default}).',
  ),
  /** How long an idle keep-alive connection is kept open. */
  keepAliveTimeoutMs: setting(
    'REFRACT_KEEPALIVE_TIMEOUT',
    duration,
    65_000,
    'How long an idle keep-alive connection is kept open; longer than the idle timeout of the load balancer in front, so that it closes first (default {default}).',
  ),
  /** Connections one client address may hold open at once, per endpoint (0: no limit). */
  maxConnectionsPerClient: setting(
    'REFRACT_MAX_CONNECTIONS_PER_CLIENT',
    count,
    256,
    "Connections one client address (the socket's peer) may hold open at once on each endpoint; more are closed at once. Behind a reverse proxy every connection comes from the proxy: raise it or set 0 (no limit) there (default {default}).",
  ),
  /** Where error answers send a report (`{id}`, `{code}` filled in); empty: the error page's reporting section. */
  reportUrl: setting(
    'REFRACT_REPORT_URL',
    text,
    '',
    "Where error answers' `report` link points, with `{id}` (the request id) and `{code}` filled in, e.g. an issue tracker's new-issue URL (default{default}).",
    ": the error page's section on reporting, with the id",
  ),
  /** Proxies trusted to name the client (hop count or address list; empty: none). */
  trustProxy: setting(
    'REFRACT_TRUST_PROXY',
    text,
    '',
    "Proxies trusted to name the client in `X-Forwarded-For` (or `Forwarded`), for the free quota: a hop count (`1`: the nearest proxy) or a comma-separated list of addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`. Unset, nothing is trusted: the socket's peer is the client (default {default}).",
    'unset',
  ),
};
