import { RefractError, type Code } from '../kernel/errors.ts';
import { NEED_RANK, needOf, type Need, type Plugin } from './plugin.ts';
import type { Registry } from './registry.ts';
import type { RawObject, Raw } from './params.ts';
import { coreSchema, CORE_PARAMS, INVALID_CODES, PRO_ONLY, type CoreOptions } from './options.ts';
import { describeIssue, toBoolean, unknownKeys, z } from './schema.ts';
import { checkTargetUrl } from './url.ts';

/** The plan tier a request is served under. */
export type Tier = 'free' | 'pro';

/** One plugin to run, with its validated options. */
export interface Step {
  name: string;
  opts: Record<string, unknown>;
}

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
  /** Top-level parameters that no part of the service reads (typos such as `screenshoot`): accepted, and named. */
  unknownParams: string[];
}

/** Limits the plan builder enforces that come from configuration. */
export interface PlanLimits {
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  testHooks: boolean;
  defaultTtlMs?: number;
}

const UTM = /^utm_/i;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function fail(code: Code, message: string, param?: string): never {
  throw new RefractError(code, message, param ? { data: { param } } : undefined);
}

/**
 * Whether a step is asked for, and with what: a flag (`screenshot`, `screenshot=false`), a plain word for the
 * plugin's shorthand (`screenshot=iphone 12`), dotted options, or a word beside dotted options (both kept).
 */
function stepValue(raw: Raw | undefined): { on: boolean | undefined; value: Raw | undefined; word?: string } {
  if (raw === undefined) return { on: undefined, value: undefined };
  if (typeof raw === 'string') {
    const flag = toBoolean(raw);
    return typeof flag === 'boolean' ? { on: flag, value: undefined } : { on: true, value: raw };
  }
  if (Array.isArray(raw)) return { on: true, value: raw };
  const { $value, ...rest } = raw;
  const flag = typeof $value === 'string' ? toBoolean($value) : undefined;
  const word = typeof $value === 'string' && typeof flag !== 'boolean' && $value !== '' ? $value : undefined;
  return { on: flag !== false, value: rest, word };
}

/** The code a refused option of this plugin answers with: its own per option, its one code, or EINVALQUERY. */
function invalidCode(plugin: Plugin, param: string): Code {
  const { invalid } = plugin;
  if (typeof invalid === 'string') return invalid;
  return invalid?.[param.split('.')[1] ?? ''] ?? 'EINVALQUERY';
}

/** Each plugin's top-level options as one schema, made once: building a zod object took ~0.15 ms a request. */
const topLevelSchemas = new WeakMap<Plugin, z.ZodObject>();

/** A plugin's top-level options (`video` for meta), validated whether or not the plugin runs. */
function topLevelOf(query: RawObject, plugin: Plugin): Record<string, unknown> {
  if (!plugin.topLevel) return {};
  let schema = topLevelSchemas.get(plugin);
  if (!schema) topLevelSchemas.set(plugin, (schema = z.object(plugin.topLevel)));
  const parsed = schema.safeParse(Object.fromEntries(Object.keys(plugin.topLevel).map((k) => [k, query[k]])));
  if (!parsed.success) {
    const { param, message } = describeIssue('', parsed.error);
    fail(typeof plugin.invalid === 'object' ? (plugin.invalid[param] ?? 'EINVALQUERY') : 'EINVALQUERY', message, param);
  }
  return parsed.data;
}

function pluginSteps(query: RawObject, registry: Registry): Step[] {
  const chosen: Step[] = [];
  for (const plugin of registry.plugins) {
    const topLevel = topLevelOf(query, plugin);
    const { on, value, word } = stepValue(query[plugin.name]);
    if (on === false || (on === undefined && !plugin.defaultOn)) continue;
    let input: unknown = value ?? {};
    const plain = typeof value === 'string' ? value : word;
    if (plain !== undefined) {
      if (!plugin.shorthand)
        fail('EINVALQUERY', `Invalid \`${plugin.name}\`: expected true, false or dotted options`, plugin.name);
      // The dotted options win over what the word stands for (`screenshot=iphone 12&screenshot.overlay.browser=dark`).
      input = { ...plugin.shorthand(plain), ...(typeof value === 'object' ? value : {}) };
    }
    const parsed = plugin.params.safeParse(input);
    if (!parsed.success) {
      const { param, message } = describeIssue(plugin.name, parsed.error);
      fail(invalidCode(plugin, param), message, param);
    }
    chosen.push({ name: plugin.name, opts: { ...topLevel, ...((parsed.data ?? {}) as Record<string, unknown>) } });
  }
  // Enrichers of the payload's Media run after every producer (registry order within each group).
  return [
    ...chosen.filter((s) => !registry.get(s.name)!.enriches),
    ...chosen.filter((s) => registry.get(s.name)!.enriches),
  ];
}

/**
 * A standalone plugin asked for alone answers alone: the plugins that are on by default and were not named
 * (metadata) are left out. `function=...` gives the function's result; `function=...&meta` adds metadata.
 */
function standaloneSteps(steps: Step[], query: RawObject, registry: Registry): Step[] {
  const named = (s: Step) => stepValue(query[s.name]).on === true;
  const implicit = (s: Step) => registry.get(s.name)!.defaultOn && !named(s);
  const asked = steps.filter((s) => !implicit(s));
  if (!asked.length || !asked.every((s) => registry.get(s.name)!.standalone)) return steps;
  return asked;
}

/** No browser step may follow one that closes the page (a video recording ends with the page). */
function checkPageUse(steps: readonly Step[], registry: Registry): void {
  const closer = steps.find((s) => registry.get(s.name)!.closesPage?.(s.opts));
  if (!closer) return;
  for (const step of steps.slice(steps.indexOf(closer) + 1)) {
    if (needOf(registry.get(step.name)!, step.opts) === 'browser') {
      fail(
        'EINVALQUERY',
        `\`${step.name}\` cannot be combined with \`${closer.name}\` with these options: ${closer.name} closes the page it records`,
        step.name,
      );
    }
  }
}

/** Removes tracking parameters from the target so that they do not split the cache. */
export function canonicalTarget(url: URL): string {
  for (const key of [...url.searchParams.keys()]) if (UTM.test(key)) url.searchParams.delete(key);
  url.hash = '';
  return url.href;
}

function missingUrl(): never {
  fail('EINVALURL', 'The `url` parameter is required, e.g. ?url=https://example.com', 'url');
}

/**
 * The plan of the same query for another target (`url`, as the query gives it). A plan takes nothing else from
 * its target: its options, steps and every check of them come from the rest of the query, so a server keeps one
 * plan per query-without-url and retargets it instead of validating the whole query again for each new target.
 */
export function retarget(plan: Plan, target: string): Plan {
  if (target === '') missingUrl();
  const url = canonicalTarget(checkTargetUrl(target));
  return { ...plan, url, options: { ...plan.options, url } };
}

/**
 * Builds the plan of a request from its parsed query: validates every parameter, checks the plan tier, and
 * orders steps as the registry does. Pure and synchronous: a bad query never opens a socket.
 */
export function buildPlan(query: RawObject, registry: Registry, tier: Tier, limits: PlanLimits): Plan {
  if (query.url === undefined || query.url === '') missingUrl();
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
    if (!LOOPBACK.has(checkTargetUrl(options.htmlUrl).hostname))
      fail('EINVALQUERY', '`html_url` must be a loopback address', 'htmlUrl');
  }
  const timeout = options.timeout ?? limits.defaultTimeoutMs;
  if (timeout > limits.maxTimeoutMs)
    fail('EINVALQUERY', `Invalid \`timeout\`: expected at most ${limits.maxTimeoutMs} ms`, 'timeout');
  const ttl = options.ttl ?? limits.defaultTtlMs;
  if (options.staleTtl !== undefined && ttl !== undefined && options.staleTtl > ttl) {
    fail('EINVALSTTL', `Invalid \`staleTtl\`: expected at most the cache lifetime (${ttl} ms)`, 'staleTtl');
  }
  const url = canonicalTarget(checkTargetUrl(options.url));
  const finalSteps = standaloneSteps(pluginSteps(query, registry), query, registry);
  checkPageUse(finalSteps, registry);
  const needs = finalSteps.reduce<Need>((max, s) => {
    const need = needOf(registry.get(s.name)!, s.opts);
    return NEED_RANK[need] > NEED_RANK[max] ? need : max;
  }, 'http');
  let unknownParams = Object.keys(query).filter((k) => !CORE_PARAMS.has(k) && !registry.get(k) && !registry.ownerOf(k));
  // A step that takes the query's other parameters (user code) gets them; they are then known.
  const taker = finalSteps.find((s) => registry.get(s.name)!.takesQuery);
  if (taker && unknownParams.length) {
    taker.opts = { ...taker.opts, query: Object.fromEntries(unknownParams.map((k) => [k, query[k]])) };
    unknownParams = [];
  }
  // Nested typos too (`screenshot.fulPage`): named, never silently dropped.
  for (const [key, value] of Object.entries(query)) {
    const plugin = registry.get(key);
    const schema = plugin
      ? plugin.params
      : CORE_PARAMS.has(key)
        ? coreSchema.shape[key as keyof typeof coreSchema.shape]
        : registry.ownerOf(key)?.topLevel?.[key];
    if (schema) unknownParams.push(...unknownKeys(schema, value, key));
  }
  return { url, needs, steps: finalSteps, options: { ...options, url, timeout }, tier, unknownParams };
}
