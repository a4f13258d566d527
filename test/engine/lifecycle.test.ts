// The request lifecycle through its injected parts (a cache, a runner, a clock): what is stored, for how long, and
// how it is answered (HIT, MISS, STALE, BYPASS), with no server, socket or browser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter, once } from 'node:events';
import { createLifecycle, cacheStatusOf } from '../../engine/request/lifecycle.ts';
import { createCache } from '../../engine/store/cache.ts';
import { RefractError, isRefractError } from '../../engine/kernel/errors.ts';
import type { CacheEntry, Extraction, Warning } from '../../engine/request/extraction.ts';
import type { Plan } from '../../engine/plan/plan.ts';

const HOUR = 3_600_000;
const FAILURE_TTL = 30_000;

function planOf(url: string, options: Record<string, unknown> = {}): Plan {
  return {
    url,
    needs: 'http',
    steps: [{ name: 'meta', opts: {} }],
    options: { url, timeout: 10_000, ...options },
    tier: 'free',
    unknownParams: [],
  } as unknown as Plan;
}

/** A lifecycle whose runner answers what `outcome` says for each call, on a clock the test moves. */
function setup(outcome: (call: number) => Extraction | Error | Promise<Extraction | Error>) {
  const clock = {
    t: 1_000_000,
    now() {
      return this.t;
    },
  };
  const cache = createCache<CacheEntry>({ maxBytes: 1 << 20, now: () => clock.t });
  let calls = 0;
  const events = new EventEmitter();
  const life = createLifecycle({
    cache,
    clock,
    cacheTtlMs: 24 * HOUR,
    failureTtlMs: FAILURE_TTL,
    events,
    logger: { warn() {}, error() {}, info() {}, debug() {} } as never,
    async run() {
      const out = await outcome(++calls);
      if (out instanceof Error) throw out;
      return out;
    },
  });
  return { life, clock, events, runs: () => calls };
}

const ok = (title: string, warnings: Warning[] = []): Extraction => ({
  data: { title },
  fetchMode: 'fetch',
  fetchTimeMs: 1,
  warnings,
});
const timedOut: Warning = {
  plugin: 'screenshot',
  code: 'ETIMEOUT',
  message: 'The screenshot step did not finish in time',
  reason: 'timeout',
};

async function failureOf(p: Promise<unknown>): Promise<RefractError> {
  try {
    await p;
  } catch (err) {
    if (isRefractError(err)) return err;
    throw err;
  }
  throw new Error('expected a failure');
}

test('a complete answer is stored for the cache TTL and answered again as a HIT; past it, made again', async () => {
  const { life, clock, runs } = setup((n) => ok(`v${n}`));
  const plan = planOf('https://example.com/');
  const first = await life.extract(plan);
  assert.is(first.cache, 'MISS');
  assert.is(first.expiresAt - first.createdAt, 24 * HOUR);
  const again = await life.extract(plan);
  assert.is(again.cache, 'HIT');
  assert.is(again.data.title, 'v1');
  clock.t += 24 * HOUR + 1;
  const later = await life.extract(plan);
  assert.is(later.cache, 'MISS');
  assert.is(later.data.title, 'v2');
  assert.is(runs(), 2);
});

test('an answer missing an output that was asked for (a step warning) is never stored: each repeat is a new try', async () => {
  const { life, runs } = setup((n) => (n < 3 ? ok('partial', [timedOut]) : ok('whole')));
  const plan = planOf('https://example.com/shot');
  const first = await life.extract(plan);
  assert.is(first.cache, 'MISS');
  assert.equal(first.warnings, [timedOut]);
  assert.is(first.expiresAt, first.createdAt, 'no lifetime is promised for it');
  const second = await life.extract(plan);
  assert.is(second.cache, 'MISS', 'a repeat is never a HIT carrying the old warning');
  assert.is(runs(), 2);
  const third = await life.extract(plan);
  assert.is(third.cache, 'MISS');
  assert.equal(third.warnings, []);
  const fourth = await life.extract(plan);
  assert.is(fourth.cache, 'HIT', 'the complete answer is kept');
  assert.is(fourth.data.title, 'whole');
  assert.is(runs(), 3);
});

test('callers sharing a degraded computation are each told MISS, not HIT', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const clock = {
    t: 5,
    now() {
      return this.t;
    },
  };
  let calls = 0;
  const life = createLifecycle({
    cache: createCache<CacheEntry>({ maxBytes: 1 << 20, now: () => clock.t }),
    clock,
    cacheTtlMs: HOUR,
    failureTtlMs: FAILURE_TTL,
    events: new EventEmitter(),
    logger: { warn() {}, error() {} } as never,
    async run() {
      calls++;
      await held;
      return ok('partial', [timedOut]);
    },
  });
  const plan = planOf('https://example.com/together');
  const both = Promise.all([life.extract(plan), life.extract(plan)]);
  release();
  const [a, b] = await both;
  assert.is(calls, 1, 'one computation for both');
  assert.equal([a.cache, b.cache], ['MISS', 'MISS']);
});

test('a remembered failure is a HIT within the failure TTL; past it, the target is tried again and its answer given', async () => {
  let up = false;
  const { life, clock, runs } = setup(() =>
    up ? ok('back') : new RefractError('EFATALCLIENT', 'The target refused the connection (ECONNREFUSED)'),
  );
  const plan = planOf('https://example.com/down');
  const first = await failureOf(life.extract(plan));
  assert.is(first.code, 'EFATALCLIENT');
  assert.is(cacheStatusOf(first), 'MISS');
  up = true;
  clock.t += FAILURE_TTL - 1;
  const remembered = await failureOf(life.extract(plan));
  assert.is(cacheStatusOf(remembered), 'HIT');
  assert.is(runs(), 1);
  clock.t += 2;
  const back = await life.extract(plan);
  assert.is(back.cache, 'MISS');
  assert.is(back.data.title, 'back');
  assert.is(runs(), 2);
});

test('capacity failures (EBUSY, ERATE, EFATAL) are never remembered', async () => {
  for (const code of ['EBUSY', 'ERATE', 'EFATAL'] as const) {
    const { life, runs } = setup(() => new RefractError(code, 'no'));
    const plan = planOf(`https://example.com/${code}`);
    await failureOf(life.extract(plan));
    const again = await failureOf(life.extract(plan));
    assert.is(cacheStatusOf(again), 'MISS', code);
    assert.is(runs(), 2, code);
  }
});

test('force is a BYPASS that replaces the stored answer; a stale answer is given once while it is made again', async () => {
  const { life, clock, events, runs } = setup((n) => ok(`v${n}`));
  const plan = planOf('https://example.com/f', { staleTtl: 1000 });
  await life.extract(plan);
  const forced = await life.extract(planOf('https://example.com/f', { staleTtl: 1000, force: true }));
  assert.is(forced.cache, 'BYPASS');
  assert.is(forced.data.title, 'v2');
  clock.t += 1500;
  const refreshed = once(events, 'refresh');
  const stale = await life.extract(plan);
  assert.is(stale.cache, 'STALE');
  assert.is(stale.data.title, 'v2');
  assert.equal(await refreshed, [{ url: 'https://example.com/f', ok: true }]);
  const fresh = await life.extract(plan);
  assert.is(fresh.cache, 'HIT');
  assert.is(fresh.data.title, 'v3');
  assert.is(runs(), 3);
});

/** A lifecycle whose runner waits for the test to release it, so that callers can be made to overlap. */
function gated() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const { life, runs } = setup(async (n) => {
    started();
    await gate;
    return ok(`v${n}`);
  });
  return { life, release, running, runs };
}

test('concurrent identical requests share one computation: one MISS (charged once), the others HITs', async () => {
  const { life, release, running, runs } = gated();
  let charged = 0;
  const admit = async () => {
    charged++;
  };
  const plan = planOf('https://example.com/shared');
  const all = [life.extract(plan, { admit }), life.extract(plan, { admit }), life.extract(plan, { admit })];
  await running;
  release();
  const answers = await Promise.all(all);
  assert.is(runs(), 1, 'computed once');
  assert.equal(answers.map((a) => a.cache).sort(), ['HIT', 'HIT', 'MISS']);
  assert.is(charged, 1, 'only the request that did the work was charged');
  assert.ok(answers.every((a) => a.data.title === 'v1'));
});

test('a follower whose leader was refused its quota tries itself: charged and answered', async () => {
  const clock = {
    t: 1_000_000,
    now() {
      return this.t;
    },
  };
  const inner = createCache<CacheEntry>({ maxBytes: 1 << 20, now: () => clock.t });
  // The leader is refused once the follower has joined its computation (the second call to coalesce).
  let joined!: () => void;
  const followerJoined = new Promise<void>((resolve) => {
    joined = resolve;
  });
  let coalesces = 0;
  const cache = Object.assign(Object.create(inner) as typeof inner, {
    coalesce: (...args: Parameters<typeof inner.coalesce>) => {
      if (++coalesces === 2) joined();
      return inner.coalesce(...args);
    },
  });
  let runs = 0;
  const life = createLifecycle({
    cache,
    clock,
    cacheTtlMs: 24 * HOUR,
    failureTtlMs: FAILURE_TTL,
    events: new EventEmitter(),
    logger: { warn() {}, error() {}, info() {}, debug() {} } as never,
    async run() {
      runs++;
      return ok(`v${runs}`);
    },
  });
  const plan = planOf('https://example.com/quota');
  const leader = life.extract(plan, {
    admit: async () => {
      await followerJoined;
      throw new RefractError('ERATE', 'quota');
    },
  });
  let followerCharged = 0;
  const follower = life.extract(plan, {
    admit: async () => {
      followerCharged++;
    },
  });
  const [lead, follow] = await Promise.allSettled([leader, follower]);
  assert.is(lead.status, 'rejected');
  assert.is((lead as PromiseRejectedResult).reason.code, 'ERATE');
  assert.is(follow.status, 'fulfilled', "the follower was not refused for the leader's quota");
  assert.is(
    (follow as PromiseFulfilledResult<{ cache: string }>).value.cache,
    'MISS',
    'the follower computed for itself',
  );
  assert.is(followerCharged, 1, 'and was charged for it');
  assert.is(runs, 1);
});

test("a cacheKey names an entry within its caller's scope: another key's entry of the same name is another entry", async () => {
  const { life, runs } = setup((n) => ok(`v${n}`));
  const plan = planOf('https://example.com/private', { cacheKey: 'mine' });
  assert.is((await life.extract(plan, { scope: 'owner-a' })).cache, 'MISS');
  assert.is((await life.extract(plan, { scope: 'owner-a' })).cache, 'HIT');
  const other = await life.extract(plan, { scope: 'owner-b' });
  assert.is(other.cache, 'MISS');
  assert.is(other.data.title, 'v2');
  assert.is(runs(), 2);
  const otherTarget = await life.extract(planOf('https://example.com/elsewhere', { cacheKey: 'mine' }), {
    scope: 'owner-a',
  });
  assert.is(
    otherTarget.cache,
    'HIT',
    "the name is the entry: the same caller's cacheKey answers another target with it",
  );
});

test.run();
