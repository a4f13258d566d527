import { randomUUID } from 'node:crypto';
import { RefractError, parseQuery, type Engine, type Plan, type Tier } from '../engine/index.ts';
import { cacheKeyOf, type Cache, type CacheEntry } from '../engine/cache.ts';
import { formatDuration } from '../engine/duration.ts';
import { success, failure } from './jsend.ts';
import { applyFilter, embedValue } from './render.ts';
import type { Quota, QuotaState } from './quota.ts';
import { fetchAsset } from './asset.ts';

/** A request as the handler sees it: no sockets. */
export interface HandlerRequest { method: string; url: string; headers: Record<string, string | string[] | undefined>; ip: string }

/** A response as the handler returns it: no sockets. */
export interface HandlerResponse { status: number; headers: Record<string, string>; body: Buffer | string }

/** What a handler serves with: the engine, the cache, the quota, and the endpoint's tier. */
export interface HandlerDeps { engine: Engine; cache: Cache; quota: Quota; tier: Tier; apiKeys: readonly string[]; docsUrl: string }

const JSON_TYPE = 'application/json; charset=utf-8';

function header(req: HandlerRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function rateHeaders(q: QuotaState | undefined): Record<string, string> {
  if (!q) return {};
  return { 'x-rate-limit-limit': String(q.limit), 'x-rate-limit-remaining': String(q.remaining), 'x-rate-limit-reset': String(q.resetEpochSecs) };
}

function cacheHeaders(entry: CacheEntry, status: string): Record<string, string> {
  const left = Math.max(0, entry.expiresAt - Date.now());
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

function checkKey(req: HandlerRequest, deps: HandlerDeps): string {
  const key = header(req, 'x-api-key');
  if (deps.tier === 'free') {
    if (key !== undefined) throw new RefractError('EPRO', 'Do not send `x-api-key` to the free endpoint; use the pro endpoint');
    return `ip:${req.ip}`;
  }
  if (!key || !deps.apiKeys.includes(key)) throw new RefractError('EAUTH', 'A valid `x-api-key` header is required on the pro endpoint');
  return `key:${key}`;
}

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

/** Creates the request handler of one endpoint: (request) → response, never touching sockets. */
export function createHandler(deps: HandlerDeps) {
  const { engine, cache, quota } = deps;
  return async function handle(req: HandlerRequest): Promise<HandlerResponse> {
    const id = randomUUID();
    const base: Record<string, string> = {
      'x-request-id': id, 'x-pricing-plan': deps.tier, 'access-control-allow-origin': '*',
      'access-control-expose-headers': '*', vary: 'accept-encoding',
    };
    let rate: QuotaState | undefined;
    let caller = `ip:${req.ip}`;
    try {
      const target = new URL(req.url, 'http://refract.local');
      if (req.method === 'OPTIONS') {
        return { status: 204, headers: { ...base, 'access-control-allow-methods': 'GET, HEAD', 'access-control-allow-headers': '*' }, body: '' };
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new RefractError('EMETHOD', `Method ${req.method} is not allowed; use GET`);
      if (target.pathname !== '/') throw new RefractError('ENOTFOUND', `No such path ${target.pathname}; the API answers on /`);
      caller = checkKey(req, deps);
      const plan = engine.plan(parseQuery(target.searchParams), deps.tier);
      const key = cacheKeyOf(plan);
      let entry = plan.options.force ? undefined : await cache.get(key);
      let status = 'HIT';
      if (entry) rate = await quota.peek(caller);
      else {
        rate = await quota.consume(caller);
        if (rate.exceeded) throw new RefractError('ERATE', 'The request quota of this window is used up; wait for the reset');
        status = plan.options.force ? 'BYPASS' : 'MISS';
        if (plan.options.force) await cache.delete(key);
        entry = await cache.coalesce(key, async () => {
          const result = await engine.run(plan);
          const now = Date.now();
          const fresh: CacheEntry = { ...result, createdAt: now, expiresAt: now + (plan.options.ttl ?? engine.config.cacheTtlMs) };
          await cache.set(key, fresh);
          return fresh;
        });
      }
      const out = await render(plan, entry, deps);
      return { status: 200, headers: { ...base, ...rateHeaders(rate), ...cacheHeaders(entry, status), 'content-type': out.type }, body: out.body };
    } catch (err) {
      const { status, body, unexpected } = failure(err, id, deps.docsUrl);
      if (unexpected) engine.logger.error('unexpected failure', err);
      rate ??= await quota.peek(caller).catch(() => undefined);
      const extra: Record<string, string> = status === 429 && rate ? { 'retry-after': String(Math.max(1, rate.resetEpochSecs - Math.floor(Date.now() / 1000))) } : {};
      return {
        status,
        headers: { ...base, ...rateHeaders(rate), ...extra, 'x-cache-status': 'MISS', 'x-fetch-mode': 'none', 'x-fetch-time': '0ms', 'cache-control': 'no-store', 'content-type': JSON_TYPE },
        body: JSON.stringify(body),
      };
    }
  };
}
