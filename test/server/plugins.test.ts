import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';
import { definePlugin, options } from '../../engine/index.ts';

let fx: Fixture;
let app: Handlers;

const broken = definePlugin({
  name: 'broken',
  description: 'always throws',
  needs: 'html',
  params: options({}),
  run() {
    throw new Error('boom');
  },
});

const stalled = definePlugin({
  name: 'stalled',
  description: 'never settles and ignores its signal',
  needs: 'html',
  params: options({}),
  run: () => new Promise(() => undefined),
});

const odd = definePlugin({
  name: 'odd',
  description: 'returns a value JSON cannot carry',
  needs: 'http',
  params: options({}),
  run: () => ({ count: 10n }),
});

test.before(async () => {
  fx = await serveFixtures();
  app = await startHandlers({ REFRACT_PLUGINS: './fixtures/plugins/word-count/index.ts' }, [broken, stalled, odd]);
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('a third-party plugin loaded from configuration answers through the API', async () => {
  const { body } = await call(
    app.free,
    `url=${q(`${fx.url}/sites/article/index.html`)}&word_count.selector=article%20p&wordCount.min_length=4`,
  );
  assert.is(body.status, 'success');
  const words =
    'It was a cold morning when the first server arrived in the basement, and nobody expected it to matter this much.'
      .split(/\s+/)
      .filter((w) => w.length >= 4).length;
  assert.equal(body.data.wordCount, { selector: 'article p', words });
  assert.is(body.data.title, 'The man who built a & firm in his basement', 'metadata still present');
});

test('a third-party plugin option is validated like a built-in one', async () => {
  const { status, body } = await call(
    app.free,
    `url=${q(`${fx.url}/sites/article/index.html`)}&wordCount.minLength=500`,
  );
  assert.is(status, 400);
  assert.is(body.code, 'EINVALQUERY');
  assert.match(body.message, /wordCount\.minLength/);
});

test('a plugin that throws is contained: null output, a typed warning, the rest intact', async () => {
  const { status, body } = await call(app.free, `url=${q(`${fx.url}/sites/article/index.html`)}&broken`);
  assert.is(status, 200);
  assert.is(body.data.broken, null);
  assert.equal(body.warnings, [
    { plugin: 'broken', code: 'EPLUGIN', message: 'The broken output failed: boom', reason: 'threw' },
  ]);
  assert.is(body.data.author, 'Jane Doe');
});

test('a plugin that hangs or returns something that is not JSON is contained the same way', async () => {
  const { status, body } = await call(
    app.free,
    `url=${q(`${fx.url}/sites/article/index.html`)}&stalled&odd&wordCount&timeout=3s`,
  );
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.data.stalled, null);
  assert.is(body.data.odd, null);
  assert.ok(body.data.wordCount.words > 0, 'the plugins after them still ran');
  assert.equal(body.warnings, [
    { plugin: 'stalled', code: 'EPLUGIN', message: 'The stalled output did not finish in time', reason: 'timeout' },
    { plugin: 'odd', code: 'EPLUGIN', message: 'The odd output returned a value that is not JSON', reason: 'not-json' },
  ]);
  assert.is(body.data.author, 'Jane Doe');
});

test.run();
