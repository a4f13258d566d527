import { randomUUID } from 'node:crypto';
import { RefractError, parseQuery, type Code, type Engine, type Plan, type Tier } from '../engine/index.ts';
import { cacheKeyOf, type Cache, type CacheEntry } from '../engine/cache.ts';
import { formatDuration } from '../engine/duration.ts';
import { success, failure } from './jsend.ts';
import { applyFilter, embedValue } from './render.ts';
import type { Quota, QuotaPolicy, QuotaState } from './quota.ts';
import type { KeyRing, KeyOwner } from './keys.ts';
import type { Clock } from './state.ts';
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { fetchAsset } from './asset.ts';

/** A request as the handler sees it: no sockets. */
export interface HandlerRequest { method: string; url: string; headers: Record<string, string | string[] | undefined>; ip: string }

/** A response as the handler returns it: no sockets. */
export interface HandlerResponse { status: number; headers: Record<string, string>; body: Buffer | string }

/** What a handler serves with: the engine, the cache, the quotas, keys, the endpoint's tier, and the clock. */
export interface HandlerDeps {
  engine: Engine; cache: Cache; quota: Quota; tier: Tier; keys: KeyRing; docsUrl: string; clock: Clock;
  /** Where background work reports: `refresh` with `{ url, ok }` when a stale entry was regenerated. */
  events: EventEmitter;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function header(req: HandlerRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function rateHeaders(q: QuotaState | undefined, tier: Tier): Record<string, string> {
  if (!q) return {};
  const out: Record<string, string> = { 'x-rate-limit-limit': String(q.limit), 'x-rate-limit-remaining': String(q.remaining), 'x-rate-limit-reset': String(q.resetEpochSecs) };
  // A pro key is told when 80% of its monthly quota is used (SPEC: notification at 80% of the plan).
  if (tier === 'pro' && q.used >= 0.8 * q.limit) out['x-rate-limit-warning'] = `${Math.floor((100 * q.used) / q.limit)}% of the monthly quota used`;
  return out;
}

function cacheHeaders(entry: CacheEntry, status: string, now: number): Record<string, string> {
  const left = Math.max(0, entry.expiresAt - now);
  return {
    'x-cache-status': status,
    'x-cache-expired-at': formatDuration(left),
    'x-cache-ttl': String(entry.expiresAt - entry.createdAt),
    'cache-control': `public, max-age=${Math.floor(left / 1000)}`,
    'x-fetch-mode': entry.fetchMode,
    'x-fetch-time': `${entry.fetchTimeMs}ms`,
    ...(entry.prerenderReason ? { 'x-prerender-reason': entry.prerenderReason.replace(/[^\x20-\x7e]/g, '?') } : {}),
  };
}

/** Who is calling: an IP on the free endpoint, a valid key on pro (the key itself is never logged or echoed). */
async function callerOf(req: HandlerRequest, deps: HandlerDeps): Promise<{ id: string; policy: QuotaPolicy }> {
  const key = header(req, 'x-api-key');
  const config = deps.engine.config;
  if (deps.tier === 'free') {
    if (key !== undefined) throw new RefractError('EPRO', 'Do not send `x-api-key` to the free endpoint; use the pro endpoint');
    return { id: `ip:${req.ip}`, policy: { limit: config.freeQuota, window: config.freeQuotaWindowSecs * 1000 } };
  }
  const owner: KeyOwner | undefined = key ? await deps.keys.check(key) : undefined;
  if (!owner) throw new RefractError('EAUTH', 'A valid `x-api-key` header is required on the pro endpoint');
  return { id: owner.id, policy: { limit: owner.quota ?? config.proQuota, window: 'month' } };
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

/** Errors of the extraction that are worth remembering for a while (not capacity or unexpected failures). */
const NOT_REMEMBERED = new Set<Code>(['EFATAL', 'EBUSY', 'ERATE']);

/** The content type a plugin declares for a text field (a data rule read as Markdown answers text/markdown). */
function embedTypeOf(plan: Plan, path: string, deps: HandlerDeps): string | undefined {
  const parts = path.split('.');
  for (const step of plan.steps) {
    const type = deps.engine.registry.get(step.name)?.embedType?.(parts, step.opts);
    if (type) return type;
  }
  return undefined;
}

async function render(plan: Plan, entry: CacheEntry, deps: HandlerDeps): Promise<{ type: string; body: Buffer | string }> {
  const { embed, filter } = plan.options;
  if (embed) {
    const value = embedValue(entry.data, embed);
    if (typeof value === 'string' && /^https?:\/\//.test(value) && /(^|\.)url$/.test(embed)) {
      const asset = await fetchAsset(value, deps.engine);
      return { type: asset.contentType, body: asset.body };
    }
    if (typeof value === 'string') return { type: embedTypeOf(plan, embed, deps) ?? 'text/plain; charset=utf-8', body: value };
    return { type: JSON_TYPE, body: JSON.stringify(value) };
  }
  const data = filter ? applyFilter(entry.data, filter) : entry.data;
  const extra = entry.warnings.length ? { warnings: entry.warnings } : {};
  return { type: JSON_TYPE, body: JSON.stringify(success(data, extra)) };
}

/** Whether an If-None-Match header names this entity tag (or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => { const tag = t.trim().replace(/^W\//, ''); return tag === etag || tag === '*'; });
}

/** Creates the request handler of one endpoint: (request) → response, never touching sockets. */
export function createHandler(deps: HandlerDeps) {
  const { engine, cache, quota } = deps;
  const refreshing = new Set<string>();

  /** Runs the plan and stores the outcome; a failure worth remembering is stored briefly and returned as such. */
  async function compute(plan: Plan, key: string): Promise<CacheEntry> {
    try {
      const result = await engine.run(plan);
      const now = deps.clock.now();
      const fresh: CacheEntry = { ...result, createdAt: now, expiresAt: now + (plan.options.ttl ?? engine.config.cacheTtlMs) };
      await cache.set(key, fresh);
      return fresh;
    } catch (err) {
      if (!(err instanceof RefractError) || NOT_REMEMBERED.has(err.code) || engine.config.failureTtlMs <= 0) throw err;
      const now = deps.clock.now();
      const failed: CacheEntry = {
        data: {}, fetchMode: 'none', fetchTimeMs: 0, warnings: [], createdAt: now, expiresAt: now + engine.config.failureTtlMs,
        failure: { code: err.code, message: err.message, data: err.data },
      };
      await cache.set(key, failed);
      return failed;
    }
  }

  /** Refreshes a stale entry once (per process; across processes the cache lock makes it once in all). */
  function refreshInBackground(plan: Plan, key: string, staleSince: number): void {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    // Another process may have refreshed it while this one waited for the lock: a newer entry is kept as it is.
    const refresh = async () => {
      const current = await cache.get(key);
      return current && current.createdAt > staleSince ? current : compute(plan, key);
    };
    void cache.coalesce(key, refresh, plan.options.timeout + 5000)
      .then((entry) => deps.events.emit('refresh', { url: plan.url, ok: !entry.failure }))
      .catch((err) => {
        engine.logger.warn('background refresh failed', { url: plan.url, error: (err as Error).message });
        deps.events.emit('refresh', { url: plan.url, ok: false });
      })
      .finally(() => refreshing.delete(key));
  }

  return async function handle(req: HandlerRequest): Promise<HandlerResponse> {
    const id = randomUUID();
    const base: Record<string, string> = {
      'x-request-id': id, 'x-pricing-plan': deps.tier, 'access-control-allow-origin': '*',
      'access-control-expose-headers': '*', vary: 'accept-encoding',
    };
    let rate: QuotaState | undefined;
    let caller = `ip:${req.ip}`;
    let policy: QuotaPolicy = { limit: engine.config.freeQuota, window: engine.config.freeQuotaWindowSecs * 1000 };
    let cacheStatus = 'MISS';
    try {
      const target = new URL(req.url, 'http://refract.local');
      if (req.method === 'OPTIONS') {
        return { status: 204, headers: { ...base, 'access-control-allow-methods': 'GET, HEAD', 'access-control-allow-headers': '*' }, body: '' };
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new RefractError('EMETHOD', `Method ${req.method} is not allowed; use GET`);
      if (target.pathname !== '/') throw new RefractError('ENOTFOUND', `No such path ${target.pathname}; the API answers on /`);
      const who = await callerOf(req, deps);
      caller = who.id;
      policy = who.policy;
      const plan = engine.plan(parseQuery(headerParams(req, target.searchParams)), deps.tier);
      const key = cacheKeyOf(plan);
      const now = deps.clock.now();
      let entry = plan.options.force ? undefined : await cache.get(key);
      let status = 'HIT';
      if (entry) {
        // Cache hits cost nothing.
        rate = await quota.peek(caller, policy);
        const { staleTtl } = plan.options;
        if (!entry.failure && staleTtl !== undefined && now - entry.createdAt >= staleTtl) {
          status = 'STALE';
          refreshInBackground(plan, key, entry.createdAt);
        }
      } else {
        rate = await quota.consume(caller, policy);
        if (rate.exceeded) throw new RefractError('ERATE', 'The request quota of this window is used up; wait for the reset');
        status = plan.options.force ? 'BYPASS' : 'MISS';
        if (plan.options.force) await cache.delete(key);
        // Checked again once this request holds the computation (another process may have stored it meanwhile).
        entry = await cache.coalesce(key, async () => (await cache.get(key)) ?? compute(plan, key), plan.options.timeout + 5000);
      }
      cacheStatus = status;
      if (entry.failure) throw new RefractError(entry.failure.code as Code, entry.failure.message, { data: entry.failure.data as Record<string, unknown> | undefined });
      const out = await render(plan, entry, deps);
      const body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      const headers: Record<string, string> = { ...base, ...rateHeaders(rate, deps.tier), ...cacheHeaders(entry, status, now), etag, 'content-type': out.type };
      // Embedded HTML (a report, or whatever a target served) runs sandboxed, in an opaque origin, never as this service.
      if (/^text\/html/i.test(out.type)) headers['content-security-policy'] = 'sandbox allow-scripts allow-popups';
      if (matches(header(req, 'if-none-match'), etag)) return { status: 304, headers, body: '' };
      return { status: 200, headers, body };
    } catch (err) {
      const { status, body, unexpected } = failure(err, id, deps.docsUrl);
      if (unexpected) engine.logger.error('unexpected failure', err);
      rate ??= await quota.peek(caller, policy).catch(() => undefined);
      const rates = rateHeaders(rate, deps.tier);
      const extra: Record<string, string> = status === 429 && rate ? { 'retry-after': String(Math.max(1, rate.resetEpochSecs - Math.floor(deps.clock.now() / 1000))) } : {};
      // Clients retry 413 and 503 after the time these headers name: such answers never carry one.
      if (status === 413 || status === 503) delete rates['x-rate-limit-reset'];
      return {
        status,
        headers: { ...base, ...rates, ...extra, 'x-cache-status': cacheStatus, 'x-fetch-mode': 'none', 'x-fetch-time': '0ms', 'cache-control': 'no-store', 'content-type': JSON_TYPE },
        body: JSON.stringify(body),
      };
    }
  };
}
