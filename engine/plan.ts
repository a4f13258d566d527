import { RefractError, type Code } from './errors.ts';
import { NEED_RANK, needOf, type Need } from './plugin.ts';
import type { Registry } from './registry.ts';
import type { RawObject, Raw } from './params.ts';
import { coreSchema, INVALID_CODES, PRO_ONLY, type CoreOptions } from './options.ts';
import { describeIssue, toBoolean } from './schema.ts';
import { checkTargetUrl } from './fetch/url.ts';

/** The plan tier a request is served under. */
export type Tier = 'free' | 'pro';

/** One plugin to run, with its validated options. */
export interface Step { name: string; opts: Record<string, unknown> }

/** Everything a request will do, as plain data, decided before any I/O. */
export interface Plan {
  url: string;
  needs: Need;
  steps: Step[];
  options: CoreOptions;
  tier: Tier;
  /** Set by crawls (never from a query): also return the page's links. */
  collectLinks?: boolean;
  /**
   * Set by crawls (never from a query): pages of plans with the same key share one browser context (cookies and
   * storage, like one crawler session) instead of a fresh incognito context each, which costs 100-300 ms a page.
   */
  shareContext?: string;
}

/** Limits the plan builder enforces that come from configuration. */
export interface PlanLimits { defaultTimeoutMs: number; maxTimeoutMs: number; testHooks: boolean; defaultTtlMs?: number }

const UTM = /^utm_/i;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function fail(code: Code, message: string, param?: string): never {
  throw new RefractError(code, message, param ? { data: { param } } : undefined);
}

function stepValue(raw: Raw | undefined): { on: boolean | undefined; value: Raw | undefined } {
  if (raw === undefined) return { on: undefined, value: undefined };
  if (typeof raw === 'string') {
    const flag = toBoolean(raw);
    return typeof flag === 'boolean' ? { on: flag, value: undefined } : { on: true, value: raw };
  }
  if (Array.isArray(raw)) return { on: true, value: raw };
  const { $value, ...rest } = raw;
  const flag = typeof $value === 'string' ? toBoolean($value) : undefined;
  return { on: flag === false ? false : true, value: rest };
}

function pluginSteps(query: RawObject, registry: Registry): Step[] {
  const chosen: Step[] = [];
  for (const plugin of registry.plugins) {
    const { on, value } = stepValue(query[plugin.name]);
    if (on === false || (on === undefined && !plugin.defaultOn)) continue;
    let input: unknown = value ?? {};
    if (typeof value === 'string') {
      if (!plugin.shorthand) fail('EINVALQUERY', `Invalid \`${plugin.name}\`: expected true, false or dotted options`, plugin.name);
      input = plugin.shorthand(value);
    }
    const parsed = plugin.params.safeParse(input);
    if (!parsed.success) {
      const { param, message } = describeIssue(plugin.name, parsed.error);
      fail(plugin.invalid ?? 'EINVALQUERY', message, param);
    }
    chosen.push({ name: plugin.name, opts: (parsed.data ?? {}) as Record<string, unknown> });
  }
  return chosen;
}

/** Removes tracking parameters from the target so that they do not split the cache. */
export function canonicalTarget(url: URL): string {
  for (const key of [...url.searchParams.keys()]) if (UTM.test(key)) url.searchParams.delete(key);
  url.hash = '';
  return url.href;
}

/**
 * Builds the plan of a request from its parsed query: validates every parameter, checks the plan tier, and
 * orders steps as the registry does. Pure and synchronous: a bad query never opens a socket.
 */
export function buildPlan(query: RawObject, registry: Registry, tier: Tier, limits: PlanLimits): Plan {
  if (query.url === undefined || query.url === '') fail('EINVALURL', 'The `url` parameter is required, e.g. ?url=https://example.com', 'url');
  const parsed = coreSchema.safeParse(query);
  if (!parsed.success) {
    const { param, message } = describeIssue('', parsed.error);
    const top = param.split('.')[0] as keyof typeof INVALID_CODES;
    fail(INVALID_CODES[top] ?? 'EINVALQUERY', message, param);
  }
  const options = parsed.data as CoreOptions;
  if (tier === 'free') {
    for (const [name, code] of Object.entries(PRO_ONLY)) {
      if (query[name] !== undefined) fail(code, `\`${name}\` is available on the pro plan only`, name);
    }
  }
  if (options.htmlUrl !== undefined) {
    if (!limits.testHooks) fail('EINVALQUERY', '`html_url` is a test hook and is disabled', 'htmlUrl');
    if (!LOOPBACK.has(checkTargetUrl(options.htmlUrl).hostname)) fail('EINVALQUERY', '`html_url` must be a loopback address', 'htmlUrl');
  }
  const timeout = options.timeout ?? limits.defaultTimeoutMs;
  if (timeout > limits.maxTimeoutMs) fail('EINVALQUERY', `Invalid \`timeout\`: expected at most ${limits.maxTimeoutMs} ms`, 'timeout');
  const ttl = options.ttl ?? limits.defaultTtlMs;
  if (options.staleTtl !== undefined && ttl !== undefined && options.staleTtl > ttl) {
    fail('EINVALSTTL', `Invalid \`staleTtl\`: expected at most the cache lifetime (${ttl} ms)`, 'staleTtl');
  }
  const url = canonicalTarget(checkTargetUrl(options.url));
  const steps = pluginSteps(query, registry);
  const onlyFunction = steps.length > 0 && steps.every((s) => s.name === 'function' || s.name === 'meta');
  const metaAsked = stepValue(query.meta).on === true;
  const finalSteps = onlyFunction && steps.some((s) => s.name === 'function') && !metaAsked
    ? steps.filter((s) => s.name !== 'meta') : steps;
  const needs = finalSteps.reduce<Need>((max, s) => {
    const need = needOf(registry.get(s.name)!, s.opts);
    return NEED_RANK[need] > NEED_RANK[max] ? need : max;
  }, 'http');
  return { url, needs, steps: finalSteps, options: { ...options, url, timeout }, tier };
}
