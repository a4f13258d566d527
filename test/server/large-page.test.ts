// refract-test: alone (it measures answers of small requests against a deadline while a large page is read)
// A 50 MB page read beside small requests: the page is read up to REFRACT_MAX_DOCUMENT, parsed in slices and its
// metadata taken from its lean source, so the small requests of the same process keep being answered meanwhile
// (a 50 MB page held the event loop ~10 s and every request beside it timed out).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type http from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import path from 'node:path';
import { call, q } from '../util/refract.ts';
import { startChild, type Child } from '../util/child.ts';

let fx: Fixture;
let app: Child;
let big: Buffer;

test.before(async () => {
  const filler = `<div class="row"><script>var a = "${'x'.repeat(200)}";</script><p>${'Words of a long list of items. '.repeat(20)}</p><style>.r{color:#123}</style></div>\n`;
  const head =
    '<html lang="en"><head><title>The Big Page | Site</title><meta property="og:title" content="The Big Page"><meta name="description" content="A page of fifty megabytes."></head><body><h1>The Big Page</h1>';
  big = Buffer.from(`${head}${filler.repeat(Math.ceil(50e6 / filler.length))}</body></html>`);
  fx = await serveFixtures({
    '/big': (_: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': big.length });
      res.end(big);
    },
  });
  // Its own process: what is measured is its event loop, not this one's (which serves the page).
  app = await startChild(path.resolve(import.meta.dirname, '../..'), {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '100000',
    REFRACT_MAX_BODY_BYTES: String(64 * 1024 * 1024),
  });
});

test.after(async () => {
  await app.stop();
  await fx.close();
});

test('a 50 MB page is answered (title, description) while small requests beside it each answer within 2 s', async () => {
  assert.ok(big.length > 50e6);
  const bigOne = call(app.url, `url=${q(`${fx.url}/big`)}&prerender=false&timeout=25s`);
  const small = async (i: number) => {
    const res = await call(app.url, `url=${q(`${fx.url}/sites/article/index.html?s=${i}`)}&prerender=false&timeout=2s`);
    return res.status;
  };
  const statuses: number[] = [];
  let done = false;
  void bigOne.finally(() => {
    done = true;
  });
  for (let i = 0; !done && i < 200; i++) statuses.push(await small(i));
  const answer = await bigOne;
  assert.is(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
  assert.is(answer.body.data.title, 'The Big Page');
  assert.is(answer.body.data.description, 'A page of fifty megabytes.');
  console.log(`  ${statuses.length} small requests answered while the 50 MB page was read`);
  assert.ok(statuses.length >= 3, `small requests asked while the page was read: ${statuses.length}`);
  assert.equal(
    statuses.filter((s) => s !== 200),
    [],
    `every small request answered in time: ${statuses.join(',')}`,
  );
});

test.run();
