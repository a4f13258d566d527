// The plans the engine keeps for queries that come again (engine/plan/plans.ts): the same query answers the same plan,
// a query that differs only in its target answers the kept plan retargeted (equal to a fresh one), tiers apart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildPlan, type Plan, type Tier } from '../../engine/plan/plan.ts';
import { createPlans } from '../../engine/plan/plans.ts';
import { createRegistry } from '../../engine/plan/registry.ts';
import { parseQuery, type RawObject } from '../../engine/plan/params.ts';
import { defaultPlugins } from '../../plugins/index.ts';

const registry = createRegistry(defaultPlugins);
const limits = { defaultTimeoutMs: 28000, maxTimeoutMs: 60000, testHooks: false };
const fresh = (search: string, tier: Tier) =>
  buildPlan(parseQuery(new URLSearchParams(search)), registry, tier, limits);

function counted() {
  let made = 0;
  const plans = createPlans((query: RawObject, tier: Tier): Plan => {
    made++;
    return buildPlan(query, registry, tier, limits);
  });
  return { plans, made: () => made };
}

test('the same query on the same tier is planned once; another tier plans its own', () => {
  const { plans, made } = counted();
  const a = plans('url=https://example.com/&screenshot', 'free');
  assert.is(plans('url=https://example.com/&screenshot', 'free'), a);
  assert.is(made(), 1);
  const pro = plans('url=https://example.com/&screenshot', 'pro');
  assert.is.not(pro, a);
  assert.is(pro.tier, 'pro');
  assert.is(made(), 2);
});

test('a query that differs only in its target takes the kept plan, retargeted, equal to a fresh plan', () => {
  const { plans, made } = counted();
  plans('url=https://example.com/a&palette&screenshot.type=png', 'free');
  const b = plans('url=https://example.org/b?utm_source=x&palette&screenshot.type=png', 'free');
  assert.is(made(), 1, 'planned once');
  assert.equal(
    JSON.parse(JSON.stringify(b)),
    JSON.parse(JSON.stringify(fresh('url=https://example.org/b?utm_source=x&palette&screenshot.type=png', 'free'))),
  );
  assert.ok(Object.isFrozen(b));
});

test('a refused query is refused every time and kept nowhere', () => {
  const { plans, made } = counted();
  for (let i = 0; i < 2; i++)
    assert.throws(
      () => plans('url=notaurl&screenshot', 'free'),
      (err: Error & { code?: string }) => err.code === 'EINVALURL',
    );
  assert.is(made(), 2);
  assert.throws(() => plans('url=https://a.example/&url=https://b.example/', 'free'));
});

test.run();
