// Plans kept for the queries that come again: a plan is pure (the same query on the same tier always builds the
// same one), so a server answering many requests plans each query once, and a query that differs from an earlier
// one only in its target takes that plan retargeted (`retarget`). What `engine.planQuery` answers from.
import { LRUCache } from 'lru-cache';
import { camelCase, parseQuery, type RawObject } from './params.ts';
import { retarget, type Plan, type Tier } from './plan.ts';

/** Most plans kept by query, and by query without its target. */
const MAX_PLANS = 2000;

/**
 * A query split into its target (one plain `url`) and the rest, as a key: undefined when the target is missing,
 * repeated or dotted (such a query is planned whole, and refused there).
 */
function splitTarget(search: URLSearchParams): { url: string; rest: string } | undefined {
  let url: string | undefined;
  let rest = '';
  for (const [key, value] of search) {
    if (camelCase(key.split('.', 1)[0]!) === 'url') {
      if (url !== undefined || key !== 'url') return undefined;
      url = value;
    } else {
      rest += `${key.length}:${key}=${value.length}:${value}&`;
    }
  }
  return url === undefined ? undefined : { url, rest };
}

/** Plans of query strings (`url=…&screenshot`), kept as above; `make` plans a query the first time. */
export function createPlans(make: (query: RawObject, tier: Tier) => Plan): (search: string, tier: Tier) => Plan {
  const byQuery = new LRUCache<string, Plan>({ max: MAX_PLANS });
  const byOptions = new LRUCache<string, Plan>({ max: MAX_PLANS });
  return (search, tier) => {
    const key = `${tier}?${search}`;
    const kept = byQuery.get(key);
    if (kept) return kept;
    const params = new URLSearchParams(search);
    const split = splitTarget(params);
    const known = split && byOptions.get(`${tier}?${split.rest}`);
    const plan = Object.freeze(known ? retarget(known, split.url) : make(parseQuery(params), tier));
    if (split && !known) byOptions.set(`${tier}?${split.rest}`, plan);
    byQuery.set(key, plan);
    return plan;
  };
}
