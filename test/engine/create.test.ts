// createEngine as a library caller uses it: the built-in plugins by default, `builtins: false` or a list of one's
// choosing instead, one's own plugins added after them; a plugin module that does not load names the fix.
import { test } from 'uvu';
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine, crawl, loadConfig, isRefractError, type Engine } from '../../lib/index.ts';
import { definePlugin, loadPlugins, options } from '../../engine/index.ts';
import { defaultPlugins } from '../../plugins/index.ts';
import { createEngine as createBareEngine } from '../../engine/engine.ts';
import { createExecutor } from '../../engine/request/queue.ts';
import { createLocalStore } from '../../engine/store/assets-local.ts';
import wordCount from '../../fixtures/plugins/word-count/index.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';

let fx: Fixture;
const config = () =>
  loadConfig({
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_LOG_LEVEL: 'silent',
    REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-create-')),
  });

test.before(async () => {
  fx = await serveFixtures();
});
test.after(async () => {
  await fx.close();
});

async function using<T>(engine: Engine, fn: (e: Engine) => Promise<T>): Promise<T> {
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

test('the built-in plugins by default, yours after them', async () => {
  await using(await createEngine({ config: config(), plugins: [wordCount] }), async (engine) => {
    assert.equal(
      engine.registry.plugins.map((p) => p.name),
      [...defaultPlugins.map((p) => p.name), 'wordCount'],
    );
    const { data } = await engine.extract(`${fx.url}/sites/article/index.html`, 'wordCount.selector=h1');
    assert.is(data.title, 'The man who built a & firm in his basement');
    assert.equal(data.wordCount, { selector: 'h1', words: 6 });
  });
});

test('builtins: false leaves only yours; a list takes those built-ins alone', async () => {
  await using(await createEngine({ config: config(), builtins: false, plugins: [wordCount] }), async (engine) => {
    assert.equal(
      engine.registry.plugins.map((p) => p.name),
      ['wordCount'],
    );
    const { data } = await engine.extract(`${fx.url}/sites/article/index.html`, 'wordCount');
    assert.is(data.title, undefined, 'no metadata without the meta plugin');
    assert.is((data.wordCount as { words: number }).words > 6, true);
  });
  const meta = defaultPlugins.find((p) => p.name === 'meta')!;
  await using(await createEngine({ config: config(), builtins: [meta] }), async (engine) => {
    assert.equal(
      engine.registry.plugins.map((p) => p.name),
      ['meta'],
    );
  });
});

test('a merged plugin that fails leaves the keys it names as null, with a warning; one that answers spreads them', async () => {
  const make = (fail: boolean) =>
    definePlugin({
      name: 'twoKeys',
      description: 'answers two keys',
      needs: 'html',
      params: options({}),
      merge: true,
      outputs: ['first', 'second'],
      run: () => {
        if (fail) throw new Error('no keys today');
        return { first: 1, second: 2 };
      },
    });
  for (const fail of [true, false])
    await using(await createEngine({ config: config(), builtins: false, plugins: [make(fail)] }), async (engine) => {
      const { data, warnings } = await engine.extract(`${fx.url}/sites/article/index.html`, 'twoKeys');
      assert.equal([data.first, data.second], fail ? [null, null] : [1, 2]);
      assert.is('twoKeys' in data, false, 'a merged plugin has no key of its own');
      assert.is(warnings.length, fail ? 1 : 0);
    });
});

test('a plugin module that is not an ES module fails with EPLUGIN and says what to change', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-cjs-plugin-'));
  writeFileSync(path.join(dir, 'package.json'), '{"name":"cjs-plugin","type":"commonjs"}');
  writeFileSync(
    path.join(dir, 'index.js'),
    "import { definePlugin } from 'refract-api';\nexport default definePlugin({});\n",
  );
  const err = await loadPlugins([path.join(dir, 'index.js')]).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(isRefractError(err), String(err));
  assert.is((err as { code: string }).code, 'EPLUGIN');
  assert.match((err as Error).message, /"type": "module"/);
  const missing = await loadPlugins(['./no-such-plugin.js'], dir).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.is((missing as { code: string }).code, 'EPLUGIN');
  assert.match((missing as Error).message, /resolved from the working directory/);
});

test('a plugin in a folder of its own imports refract-api (answered with this package); a server whose plugin does not load says so in one line', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-own-plugin-'));
  writeFileSync(
    path.join(dir, 'hello.js'),
    "import { definePlugin, options } from 'refract-api';\nexport default definePlugin({ name: 'hello', description: 'says hello', needs: 'http', params: options({}), async run(ctx) { return { at: ctx.url }; } });\n",
  );
  writeFileSync(path.join(dir, 'broken.js'), "import { nothing } from 'no-such-package';\nexport default nothing;\n");
  const [hello] = await loadPlugins([path.join(dir, 'hello.js')]);
  await using(await createEngine({ config: config(), builtins: false, plugins: [hello!] }), async (engine) => {
    const { data } = await engine.extract(`${fx.url}/sites/article/index.html`, 'hello');
    assert.equal(data.hello, { at: `${fx.url}/sites/article/index.html` });
  });
  const server = spawnSync(
    process.execPath,
    ['--conditions=refract-source', path.resolve(import.meta.dirname, '../../server/main.ts')],
    {
      env: {
        ...process.env,
        PORT: '0',
        PRO_PORT: '0',
        HOST: '127.0.0.1',
        REFRACT_PLUGINS: path.join(dir, 'broken.js'),
      },
      encoding: 'utf8',
    },
  );
  assert.is(server.status, 1);
  assert.equal(server.stderr.trim().split('\n'), [
    `refract: EPLUGIN: Plugin module "${path.join(dir, 'broken.js')}" does not load: Cannot find package 'no-such-package' imported from ${path.join(dir, 'broken.js')} (a path is resolved from the working directory; a package name must be installed where Refract is)`,
  ]);
});

test('a .ts plugin in a CommonJS project is told to be .mts', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-cjs-ts-'));
  writeFileSync(path.join(dir, 'package.json'), '{"name":"cjs-ts","type":"commonjs"}');
  writeFileSync(
    path.join(dir, 'plugin.ts'),
    "import { definePlugin } from 'refract-api';\nexport default definePlugin({} as never);\n",
  );
  const err = await loadPlugins([path.join(dir, 'plugin.ts')]).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.is((err as { code?: string }).code, 'EPLUGIN');
  assert.match((err as Error).message, /\.mts/);
});

test('extract, run and crawl after close are refused at once with EBUSY (they would wait forever)', async () => {
  const engine = await createEngine({ config: config(), builtins: false, plugins: [wordCount] });
  await engine.close();
  await engine.close();
  for (const call of [
    () => engine.extract(`${fx.url}/sites/article/index.html`),
    () => engine.run(engine.plan({ url: `${fx.url}/` })),
  ]) {
    const err = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isRefractError(err) && err.code === 'EBUSY', String(err));
  }
  assert.throws(
    () => crawl(engine, { urls: [`${fx.url}/`] }),
    (e: unknown) => isRefractError(e) && e.code === 'EBUSY',
  );
  assert.is(engine.alive(), false);
});

test('a start that fails after some parts started (the browsers) closes them: the executor, the assets, the shared state', async () => {
  const closed: string[] = [];
  const err = await createBareEngine({
    config: loadConfig({
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: mkdtempSync(path.join(os.tmpdir(), 'refract-create-')),
      ...(process.env.REFRACT_TEST_REDIS_URL ? { REDIS_URL: process.env.REFRACT_TEST_REDIS_URL } : {}),
    }),
    plugins: [wordCount],
    makeAssets: async () => {
      const store = createLocalStore({
        dir: mkdtempSync(path.join(os.tmpdir(), 'refract-create-')),
        publicUrl: 'http://x',
      });
      return {
        ...store,
        close: async () => {
          closed.push('assets');
          await store.close();
        },
      };
    },
    makeExecutor: async (o) => {
      const made = await createExecutor(o);
      return {
        ...made,
        close: async () => {
          closed.push('executor');
          await made.close();
        },
      };
    },
    makeBrowsers: () => {
      throw new Error('no browser today');
    },
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.match(String(err), /no browser today/);
  // In the reverse order of their start.
  assert.equal(closed, ['executor', 'assets']);
});

test.run();
