// `GET /` of one endpoint: who asks (callers.ts), the plan, the quota, the engine's answer from the cache or a
// computation, rendered (renderings.ts) with its cache, rate and timing headers; no sockets (app.ts has those).
import fresh from 'fresh';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import {
  RefractError,
  parseQuery,
  type ServiceEngine as Engine,
  type Plan,
  type Tier,
  cacheStatusOf,
  degraded,
  formatDuration,
  type CacheEntry,
  type Clock,
  type Phase,
} from '../engine/index.ts';
import { failure } from './jsend.ts';
import type { Quota, QuotaPolicy, QuotaState } from './quota.ts';
import type { KeyRing } from './keys.ts';
import { createRenderings } from './renderings.ts';
import { freeCallerOf, header, proCallerOf, SIGNED, signedCallerOf } from './callers.ts';

/** A request as the handler sees it: no sockets. */
export interface HandlerRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
}

/** A response as the handler returns it: no sockets. */
export interface HandlerResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
  /** A body streamed instead of `body` (a generated file), its `content-length` set in `headers`. */
  stream?: Readable;
  /** How long each phase took (the server adds compression and the total, and sends them as Server-Timing). */
  phases?: Phase[];
  /** What the access log and the metrics tell of this request. */
  facts?: RequestFacts;
}

/** What is known of an answered API request, for its access line and metrics (no key, no header value, no query). */
export interface RequestFacts {
  id: string;
  /** The error code of a failure. */
  code?: string;
  /** The requested output: `embed`, else the plan's first step that is not `meta`, else `meta` (`none`: no plan). */
  output: string;
  cache?: string;
  fetchMode?: string;
  /** The target's origin and path (its query may carry tokens: it is left out). */
  target?: string;
}

/** The output a plan asks for, as the metrics label it (a few names: one per plugin). */
function outputOf(plan: Plan): string {
  if (plan.options.embed) return 'embed';
  return plan.steps.find((step) => step.name !== 'meta')?.name ?? 'meta';
}

/** Origin and path of a target URL, without its query, fragment or credentials. */
function targetOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
}

/** What the access log and metrics say of a plan: worked out once per kept plan (a cache HIT parses no URL). */
function describer(): (plan: Plan) => { output: string; target: string | undefined } {
  const described = new WeakMap<Plan, { output: string; target: string | undefined }>();
  return (plan) => {
    let out = described.get(plan);
    if (!out) described.set(plan, (out = { output: outputOf(plan), target: targetOf(plan.url) }));
    return out;
  };
}

/** What a handler serves with: the engine (which owns the cache), the quotas, keys, the endpoint's tier, and the clock. */
export interface HandlerDeps {
  engine: Engine;
  quota: Quota;
  tier: Tier;
  keys: KeyRing;
  docsUrl: string;
  clock: Clock;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const BASE = 'http://refract.local';

function rateHeaders(q: QuotaState | undefined, tier: Tier): Record<string, string> {
  if (!q) return {};
  const out: Record<string, string> = {
    'x-rate-limit-limit': String(q.limit),
    'x-rate-limit-remaining': String(q.remaining),
    'x-rate-limit-reset': String(q.resetEpochSecs),
  };
  // A pro key is told when 80% of its monthly quota is used (SPEC: notification at 80% of the plan).
  if (tier === 'pro' && q.used >= 0.8 * q.limit)
    out['x-rate-limit-warning'] = `${Math.floor((100 * q.used) / q.limit)}% of the monthly quota used`;
  return out;
}

function cacheHeaders(entry: CacheEntry, status: string, now: number): Record<string, string> {
  const left = Math.max(0, entry.expiresAt - now);
  return {
    'x-cache-status': status,
    'x-cache-expired-at': formatDuration(left),
    'x-cache-ttl': String(entry.expiresAt - entry.createdAt),
    // An answer that lacks an output it was asked for is not kept here, and should not be kept downstream either.
    'cache-control': degraded(entry) ? 'no-store' : `public, max-age=${Math.floor(left / 1000)}`,
    'x-fetch-mode': entry.fetchMode,
    'x-fetch-time': `${entry.fetchTimeMs}ms`,
    ...(entry.prerenderReason ? { 'x-prerender-reason': entry.prerenderReason.replace(/[^\x20-\x7e]/g, '?') } : {}),
  };
}

/** Whether the request carries custom headers for the target (then its plan depends on more than its URL). */
function hasHeaderParams(req: HandlerRequest): boolean {
  for (const name in req.headers) if (name.startsWith('x-api-header-')) return true;
  return false;
}

/** Custom headers for the target may come as `x-api-header-<name>` request headers, keeping secrets out of URLs. */
function headerParams(req: HandlerRequest, search: URLSearchParams): URLSearchParams {
  let out: URLSearchParams | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (!name.startsWith('x-api-header-') || value === undefined) continue;
    out ??= new URLSearchParams(search);
    out.set(`headers.${name.slice('x-api-header-'.length)}`, Array.isArray(value) ? value.join(', ') : value);
  }
  return out ?? search;
}

/** Names of unknown parameters as a header value: percent-encoded (any text is safe in it), at most 1 KB. */
function unknownHeader(names: readonly string[]): string {
  let out = '';
  for (const name of names) {
    const next = out ? `${out}, ${encodeURIComponent(name)}` : encodeURIComponent(name);
    if (next.length > 1024) return `${out}, ...`;
    out = next;
  }
  return out;
}

/** Creates the request handler of one endpoint: (request) → response, never touching sockets. */
export function createHandler(deps: HandlerDeps) {
  const { engine, quota } = deps;
  const renderings = createRenderings();
  const describe = describer();
  return async function handle(req: HandlerRequest): Promise<HandlerResponse> {
    const id = randomUUID();
    const phases: Phase[] = [];
    const base: Record<string, string> = {
      'x-request-id': id,
      'x-pricing-plan': deps.tier,
      'access-control-allow-origin': '*',
      'access-control-expose-headers': '*',
      vary: 'accept-encoding',
    };
    let rate: QuotaState | undefined;
    const facts: RequestFacts = { id, output: 'none' };
    let caller = `ip:${req.ip}`;
    let policy: QuotaPolicy = { limit: engine.config.freeQuota, window: engine.config.freeQuotaWindowSecs * 1000 };
    let tier: Tier = deps.tier;
    try {
      if (req.method === 'OPTIONS') {
        return {
          status: 204,
          headers: { ...base, 'access-control-allow-methods': 'GET, HEAD', 'access-control-allow-headers': '*' },
          body: '',
        };
      }
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new RefractError('EMETHOD', `Method ${req.method} is not allowed; use GET`);
      // The path is checked before the caller; the engine keeps the plans of queries that come again.
      const cut = req.url.indexOf('?');
      const path = cut < 0 ? req.url : req.url.slice(0, cut);
      if (path !== '/') {
        const { pathname } = new URL(req.url, BASE);
        if (pathname !== '/') throw new RefractError('ENOTFOUND', `No such path ${pathname}; the API answers on /`);
      }
      const search = cut < 0 ? '' : req.url.slice(cut + 1);
      // A signed link needs no header on either endpoint: it is its key's pro request, for exactly its query.
      const signed = SIGNED.test(search) ? await signedCallerOf(search, deps) : undefined;
      if (signed) {
        ({ id: caller, policy } = signed);
        tier = base['x-pricing-plan'] = 'pro';
      } else ({ id: caller, policy } = deps.tier === 'free' ? freeCallerOf(req, deps) : await proCallerOf(req, deps));
      const plan = signed
        ? engine.planQuery(signed.query, 'pro')
        : hasHeaderParams(req)
          ? engine.plan(parseQuery(headerParams(req, new URLSearchParams(search))), deps.tier)
          : engine.planQuery(search, deps.tier);
      ({ output: facts.output, target: facts.target } = describe(plan));
      // The two names spelt so that the test above missed them (`sign%61ture`) are still never ignored.
      if (!signed && plan.unknownParams.some((name) => /^(signature|expires)$/i.test(name)))
        throw new RefractError(
          'EAUTH',
          '`signature` and `expires` make a signed link; send them as written when signed',
        );
      if (plan.unknownParams.length) base['x-refract-unknown-params'] = unknownHeader(plan.unknownParams);
      // Work is charged (and may be refused) only on a MISS or BYPASS; cache hits cost nothing.
      const admit = async () => {
        const since = performance.now();
        rate = await quota.consume(caller, policy);
        phases.push({ name: 'quota', ms: performance.now() - since });
        if (rate.exceeded)
          throw new RefractError('ERATE', 'The request quota of this window is used up; wait for the reset');
      };
      const outcome = await engine.extract(plan, { admit, scope: caller });
      phases.push(...(outcome.phases ?? []));
      facts.cache = outcome.cache;
      facts.fetchMode = outcome.fetchMode;
      rate ??= await quota.peek(caller, policy);
      const now = deps.clock.now();
      const rendering = performance.now();
      const { type, body, etag } = await renderings(plan, outcome, deps);
      phases.push({ name: 'body', ms: performance.now() - rendering });
      const headers: Record<string, string> = {
        ...base,
        ...rateHeaders(rate, tier),
        ...cacheHeaders(outcome, outcome.cache, now),
        etag,
        'content-type': type,
      };
      // Embedded HTML (a report, or whatever a target served) runs sandboxed, in an opaque origin, never as this service.
      if (/^text\/html/i.test(type)) headers['content-security-policy'] = 'sandbox allow-scripts allow-popups';
      // Without the request's Cache-Control: fetch() adds `no-cache` to conditional requests; this is the origin.
      if (fresh({ 'if-none-match': header(req, 'if-none-match') }, { etag }))
        return { status: 304, headers, body: '', phases, facts };
      return { status: 200, headers, body, phases, facts };
    } catch (err) {
      const { status, body, unexpected } = failure(err, id, deps.docsUrl, engine.config.reportUrl);
      facts.code = String(body.code);
      // A request refused before it reached the cache (a bad query, a key) has no cache state.
      if (facts.target) facts.cache = cacheStatusOf(err);
      if (unexpected) engine.logger.error('unexpected failure', err);
      rate ??= await quota.peek(caller, policy).catch(() => undefined);
      const rates = rateHeaders(rate, tier);
      const extra = retryAfter(body.code, status, rate, deps.clock.now());
      // Clients retry 413 and 503 after the time these headers name: such answers never carry one.
      if (status === 413 || status === 503) delete rates['x-rate-limit-reset'];
      return {
        status,
        headers: {
          ...base,
          ...rates,
          ...extra,
          'x-cache-status': cacheStatusOf(err),
          'x-fetch-mode': 'none',
          'x-fetch-time': '0ms',
          'cache-control': 'no-store',
          'content-type': JSON_TYPE,
        },
        body: JSON.stringify(body),
        phases,
        facts,
      };
    }
  };
}

/** A full browser queue drains within about a page's time: the client is told to come back after a second. */
const BUSY_RETRY_SECS = 1;

/** When a refused client may try again: the quota's reset on 429, a second on a full browser queue (503 EBUSY). */
function retryAfter(code: unknown, status: number, rate: QuotaState | undefined, now: number): Record<string, string> {
  if (status === 429 && rate)
    return { 'retry-after': String(Math.max(1, rate.resetEpochSecs - Math.floor(now / 1000))) };
  if (code === 'EBUSY') return { 'retry-after': String(BUSY_RETRY_SECS) };
  return {};
}
