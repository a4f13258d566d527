// What a bad request is answered: its code, status and JSend shape, through the API's handler (no socket: what the
// server adds around it is tested in handler.test.ts, plans.test.ts and web.test.ts). Endpoints, keys, pro-only
// parameters, methods, paths and quotas are plans.test.ts's and handler.test.ts's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveFixtures, freePort, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;
let page: string;

test.before(async () => {
  fx = await serveFixtures();
  app = await startHandlers({ REFRACT_REPORT_URL: 'https://tracker.example/new?title=Request%20{id}%20{code}' });
  page = q(`${fx.url}/sites/article/index.html`);
});

test.after(async () => {
  await app.close();
  await fx.close();
});

function assertFail(res: { status: number; body: Record<string, unknown> }, status: number, code: string) {
  assert.is(res.status, status, `${code} status`);
  assert.is(res.body.status, status < 500 ? 'fail' : 'error');
  assert.is(res.body.code, code);
  assert.type(res.body.message, 'string');
  assert.match(String(res.body.more), new RegExp(`#${code.toLowerCase()}$`));
  assert.type(res.body.id, 'string');
  assert.not.ok('name' in res.body, 'no name key');
  assert.not.ok('stack' in res.body, 'no stack');
}

test('a missing url is EINVALURL', async () => {
  assertFail(await call(app.free, ''), 400, 'EINVALURL');
});

test('a host name the resolver cannot take (a label over 63 characters, a name over 253) is 400 EINVALURL, not a 500', async () => {
  for (const host of [`${'a'.repeat(64)}.example.com`, `${'abcdefghi.'.repeat(26)}com`, 'a..b.example.com']) {
    for (const extra of ['', '&prerender=true']) {
      assertFail(await call(app.free, `url=${q(`http://${host}/`)}${extra}`), 400, 'EINVALURL');
    }
  }
});

test('a malformed or non-http url is EINVALURL naming the parameter', async () => {
  const res = await call(app.free, 'url=not-a-url');
  assertFail(res, 400, 'EINVALURL');
  assert.equal(res.body.data, { param: 'url' });
  assertFail(await call(app.free, `url=${q('ftp://example.com/file')}`), 400, 'EINVALURL');
  assertFail(await call(app.free, `url=${q('file:///etc/passwd')}`), 400, 'EINVALURL');
});

test('an invalid parameter value is EINVALQUERY naming it and what is allowed', async () => {
  const bad = await call(app.free, `url=${page}&timeout=soon`);
  assertFail(bad, 400, 'EINVALQUERY');
  assert.match(String(bad.body.message), /timeout/);
  const prerender = await call(app.free, `url=${page}&prerender=maybe`);
  assertFail(prerender, 400, 'EINVALQUERY');
  assert.match(String(prerender.body.message), /auto, true or false/);
  assertFail(await call(app.free, `url=${page}&timeout=10m`), 400, 'EINVALQUERY');
  assertFail(await call(app.free, `url=${page}&html_url=${page}`), 400, 'EINVALQUERY');
});

test('private, loopback and reserved targets are EFORBIDDENURL in every spelling', async () => {
  const targets = [
    `http://127.0.0.2:${fx.port}/`,
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.2]/',
    'http://0x7f000002/',
    'http://2130706434/',
    'http://0177.0.0.2/',
    'http://0.0.0.0/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
  ];
  for (const target of targets) assertFail(await call(app.free, `url=${q(target)}`), 403, 'EFORBIDDENURL');
});

test('with a browser output too: a forbidden target is EFORBIDDENURL, an unreachable one EFATALCLIENT, an unresolvable host EINVALURL', async () => {
  // Found by the fuzz suite: these were 500 EFATAL when a screenshot or PDF was asked for.
  for (const output of ['screenshot', 'pdf']) {
    assertFail(await call(app.free, `url=${q('http://10.1.1.1/')}&${output}`), 403, 'EFORBIDDENURL');
    assertFail(await call(app.free, `url=${q('HTTP://[::1]/')}&${output}`), 403, 'EFORBIDDENURL');
    const refused = await call(app.free, `url=${q(`http://127.0.0.1:${await freePort()}/`)}&${output}`);
    assertFail(refused, 500, 'EFATALCLIENT');
    assert.match(String(refused.body.message), /ECONNREFUSED/);
    assertFail(await call(app.free, `url=${q('http://nowhere.invalid/')}&${output}`), 400, 'EINVALURL');
  }
});

test('embed and filter read own fields only: prototype names are not fields', async () => {
  const page = q(`${fx.url}/sites/article/index.html?own-fields`);
  for (const name of ['__proto__', 'constructor', 'toString', 'title.constructor']) {
    assertFail(await call(app.free, `url=${page}&embed=${name}`), 400, 'EINVALQUERY');
  }
  const { status, body } = await call(app.free, `url=${page}&filter=__proto__.toString,constructor.name,title`);
  assert.is(status, 200);
  assert.equal(Object.keys(body.data), ['title']);
  assert.equal(Object.keys(Object.prototype), []);
});

test("an error answer links its code's documentation and, with REFRACT_REPORT_URL, where to report it (id and code filled in)", async () => {
  const refused = await call(app.free, `url=${q('http://127.0.0.2/')}`);
  assert.is(refused.body.more, 'http://refract.test/docs/errors#eforbiddenurl');
  assert.is(refused.body.report, `https://tracker.example/new?title=Request%20${refused.body.id}%20EFORBIDDENURL`);
  assert.is(refused.body.id, refused.headers.get('x-request-id'));
});

test.run();
