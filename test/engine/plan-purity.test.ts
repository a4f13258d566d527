// The plan layer is pure: checking a query into a plan loads no browser library, no crawler and no Redis client
// (Playwright's device registry is read when a request first names a device).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The heavy packages a fresh process has loaded after running `script` (an ES module body). */
function loadedAfter(script: string): string[] {
  const probe = `
    import { createRequire } from 'node:module';
    const require = createRequire(${JSON.stringify(path.join(ROOT, 'x.js'))});
    ${script}
    const heavy = Object.keys(require.cache).filter((k) => /node_modules\\/(playwright-core|@crawlee\\/[^/]+|ioredis|sharp)\\//.test(k));
    console.log(JSON.stringify([...new Set(heavy.map((k) => k.split('node_modules/').pop().split('/').slice(0, k.includes('@crawlee') ? 2 : 1).join('/')))]));`;
  const out = execFileSync(process.execPath, ['--conditions=refract-source', '--input-type=module', '-e', probe], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

test('planning a query loads no browser library, crawler or Redis client', () => {
  const loaded = loadedAfter(`
    const { buildPlan } = await import('./engine/plan/plan.ts');
    const { createRegistry } = await import('./engine/plan/registry.ts');
    const registry = createRegistry([]);
    const plan = buildPlan({ url: 'https://example.com/', viewport: { width: '800' } }, registry, 'free', { defaultTimeoutMs: 28000, maxTimeoutMs: 60000, testHooks: false });
    if (plan.url !== 'https://example.com/') throw new Error('no plan');`);
  assert.equal(loaded, []);
});

test('a device named in a query is checked against the registry of Playwright, read then', () => {
  const loaded = loadedAfter(`
    const { buildPlan } = await import('./engine/plan/plan.ts');
    const { createRegistry } = await import('./engine/plan/registry.ts');
    const limits = { defaultTimeoutMs: 28000, maxTimeoutMs: 60000, testHooks: false };
    buildPlan({ url: 'https://example.com/', device: 'iPhone 12' }, createRegistry([]), 'free', limits);
    let refused = '';
    try { buildPlan({ url: 'https://example.com/', device: 'iPhone 1000' }, createRegistry([]), 'free', limits); } catch (e) { refused = e.code; }
    if (refused !== 'EINVALQUERY') throw new Error('an unknown device was not refused: ' + refused);`);
  assert.ok(loaded.includes('playwright-core'));
});

test.run();
