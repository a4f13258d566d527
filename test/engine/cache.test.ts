import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createCache } from '../../engine/store/cache.ts';
import type { CacheEntry } from '../../engine/request/extraction.ts';

const entry = (title: string, createdAt: number, ttl = 60_000): CacheEntry => ({
  data: { title, tags: ['a'] },
  fetchMode: 'fetch',
  fetchTimeMs: 1,
  warnings: [],
  createdAt,
  expiresAt: createdAt + ttl,
});

// Each kind of cache: in this process, and over an external store (a Keyv store that keeps JSON text, as Redis does).
for (const [kind, store] of [
  ['memory', undefined],
  ['external store', () => new Map()],
] as const) {
  test(`${kind}: an unchanged entry is read as the same frozen object; a new one replaces it; an expired one is gone`, async () => {
    let now = 1_000_000;
    const cache = createCache<CacheEntry>({ maxBytes: 1 << 20, store: store?.() as never, now: () => now });
    const written = entry('first', now);
    await cache.set('k', written);
    assert.not.ok(Object.isFrozen(written), 'what the caller stored stays its own');
    const a = (await cache.get('k'))!;
    const b = (await cache.get('k'))!;
    assert.is(a, b);
    assert.equal(a.data, { title: 'first', tags: ['a'] });
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.data) && Object.isFrozen(a.data.tags));
    assert.throws(() => {
      (a.data as { title: string }).title = 'changed';
    }, TypeError);
    await cache.set('k', entry('second', now + 1));
    const c = (await cache.get('k'))!;
    assert.is.not(c, a);
    assert.is(c.data.title, 'second');
    now += 61_000;
    assert.is(await cache.get('k'), undefined);
    await cache.set('k', entry('third', now));
    await cache.delete('k');
    assert.is(await cache.get('k'), undefined);
    await cache.close();
  });
}

test('memory: the cache holds at most its byte budget, dropping the least recently used', async () => {
  const cache = createCache<CacheEntry>({ maxBytes: 8 * 1024 });
  for (let i = 0; i < 50; i++) await cache.set(`k${i}`, { ...entry('x'.repeat(400), Date.now()) });
  let kept = 0;
  for (let i = 0; i < 50; i++) if (await cache.get(`k${i}`)) kept++;
  assert.ok(kept > 0 && kept < 50, `kept ${kept}`);
  assert.ok(await cache.get('k49'), 'the newest is kept');
});

test.run();
