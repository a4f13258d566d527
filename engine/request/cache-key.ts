import { createHash } from 'node:crypto';
import type { Plan } from '../plan/plan.ts';

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const NOT_IN_KEY = new Set(['force', 'filter', 'embed', 'timeout', 'ttl', 'staleTtl', 'cacheKey', 'retry']);

const keys = new WeakMap<Plan, string>();

/**
 * The cache identity of a plan: target, steps and options that change the output, in a canonical form. A
 * caller's own `cacheKey` names an entry within `scope` (the API key's owner): another key's entry of the same
 * name is another entry (it may have been fetched with that caller's secret headers).
 */
export function cacheKeyOf(plan: Plan, scope = ''): string {
  if (plan.options.cacheKey) return `key:${JSON.stringify([scope, plan.options.cacheKey])}`;
  let key = keys.get(plan);
  if (key === undefined) keys.set(plan, (key = keyOf(plan)));
  return key;
}

function keyOf(plan: Plan): string {
  const options = Object.fromEntries(Object.entries(plan.options).filter(([k]) => !NOT_IN_KEY.has(k)));
  // A crawl's answer also carries the page's links: it is not the same entry as the API's answer.
  const canonical = stable({
    url: plan.url,
    steps: plan.steps,
    options,
    tier: plan.tier,
    ...(plan.collectLinks ? { links: true } : {}),
  });
  return `plan:${createHash('sha256').update(canonical).digest('base64url')}`;
}
