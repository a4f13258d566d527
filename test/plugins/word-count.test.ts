// The example third-party plugin, tested the way its author would: with the package's testing helper.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestbed, type Testbed } from 'refract-api/testing';
import wordCount from '../../fixtures/plugins/word-count/index.ts';

let bed: Testbed;
let counted = 0;
const ARTICLE =
  '<html><head><title>Short</title></head><body><nav>Home About</nav><main><p>Three small words here</p></main></body></html>';

test.before(async () => {
  bed = await startTestbed({
    plugins: [wordCount],
    pages: {
      '/article': ARTICLE,
      // The same page, counting how often it is asked for.
      '/counted': (_req, res) => {
        counted++;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(ARTICLE);
      },
    },
  });
});

test.after(async () => {
  await bed.close();
});

test('counts the words of an element through the HTTP API, beside the metadata', async () => {
  const { status, body } = await bed.call('/article', 'wordCount.selector=main&wordCount.minLength=5');
  assert.is(status, 200);
  assert.equal(body.data.wordCount, { selector: 'main', words: 3 });
  assert.is(body.data.title, 'Short');
});

test('its options are validated before any fetch', async () => {
  const { status, body } = await bed.call('/counted', { 'wordCount.minLength': 0 });
  assert.is(status, 400);
  assert.is(body.code, 'EINVALQUERY');
  assert.is(body.data.param, 'wordCount.minLength');
  assert.is(counted, 0, 'the page was never fetched');
  // A valid query does fetch it: the counter counts.
  assert.is((await bed.call('/counted', { 'wordCount.minLength': 1 })).status, 200);
  assert.is(counted, 1);
});

test.run();
