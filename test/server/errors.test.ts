import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CODES } from '../../engine/kernel/errors.ts';
import { serveFixtures, freePort, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
let page: string;

test.before(async () => {
  fx = await serveFixtures();
  app = await startRefract();
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
  assertFail(await call(app.freeUrl, ''), 400, 'EINVALURL');
});

test('a host name the resolver cannot take (a label over 63 characters, a name over 253) is 400 EINVALURL, not a 500', async () => {
  for (const host of [`${'a'.repeat(64)}.example.com`, `${'abcdefghi.'.repeat(26)}com`, 'a..b.example.com']) {
    for (const extra of ['', '&prerender=true']) {
      assertFail(await call(app.freeUrl, `url=${q(`http://${host}/`)}${extra}`), 400, 'EINVALURL');
    }
  }
});

test('a malformed or non-http url is EINVALURL naming the parameter', async () => {
  const res = await call(app.freeUrl, 'url=not-a-url');
  assertFail(res, 400, 'EINVALURL');
  assert.equal(res.body.data, { param: 'url' });
  assertFail(await call(app.freeUrl, `url=${q('ftp://example.com/file')}`), 400, 'EINVALURL');
  assertFail(await call(app.freeUrl, `url=${q('file:///etc/passwd')}`), 400, 'EINVALURL');
});

test('an invalid parameter value is EINVALQUERY naming it and what is allowed', async () => {
  const bad = await call(app.freeUrl, `url=${page}&timeout=soon`);
  assertFail(bad, 400, 'EINVALQUERY');
  assert.match(String(bad.body.message), /timeout/);
  const prerender = await call(app.freeUrl, `url=${page}&prerender=maybe`);
  assertFail(prerender, 400, 'EINVALQUERY');
  assert.match(String(prerender.body.message), /auto, true or false/);
  assertFail(await call(app.freeUrl, `url=${page}&timeout=10m`), 400, 'EINVALQUERY');
  assertFail(await call(app.freeUrl, `url=${page}&html_url=${page}`), 400, 'EINVALQUERY');
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
  for (const target of targets) assertFail(await call(app.freeUrl, `url=${q(target)}`), 403, 'EFORBIDDENURL');
});

test('with a browser output too: a forbidden target is EFORBIDDENURL, an unreachable one EFATALCLIENT, an unresolvable host EINVALURL', async () => {
  // Found by the fuzz suite: these were 500 EFATAL when a screenshot or PDF was asked for.
  for (const output of ['screenshot', 'pdf']) {
    assertFail(await call(app.freeUrl, `url=${q('http://10.1.1.1/')}&${output}`), 403, 'EFORBIDDENURL');
    assertFail(await call(app.freeUrl, `url=${q('HTTP://[::1]/')}&${output}`), 403, 'EFORBIDDENURL');
    const refused = await call(app.freeUrl, `url=${q(`http://127.0.0.1:${await freePort()}/`)}&${output}`);
    assertFail(refused, 500, 'EFATALCLIENT');
    assert.match(String(refused.body.message), /ECONNREFUSED/);
    assertFail(await call(app.freeUrl, `url=${q('http://nowhere.invalid/')}&${output}`), 400, 'EINVALURL');
  }
});

test('embed and filter read own fields only: prototype names are not fields', async () => {
  const page = q(`${fx.url}/sites/article/index.html?own-fields`);
  for (const name of ['__proto__', 'constructor', 'toString', 'title.constructor']) {
    assertFail(await call(app.freeUrl, `url=${page}&embed=${name}`), 400, 'EINVALQUERY');
  }
  const { status, body } = await call(app.freeUrl, `url=${page}&filter=__proto__.toString,constructor.name,title`);
  assert.is(status, 200);
  assert.equal(Object.keys(body.data), ['title']);
  assert.equal(Object.keys(Object.prototype), []);
});

test('pro-only parameters on the free endpoint are refused with their own codes', async () => {
  const cases: [string, string][] = [
    ['cacheKey=abc', 'ECACHEKEY'],
    ['filename=shot', 'EFILENAME'],
    ['headers.user-agent=x', 'EHEADERS'],
    ['proxy=http://p:1', 'EPROXY'],
    ['ttl=1h', 'ETTL'],
    ['staleTtl=1m', 'ESTTL'],
  ];
  for (const [param, code] of cases) assertFail(await call(app.freeUrl, `url=${page}&${param}`), 400, code);
});

test('an API key sent to the free endpoint is EPRO; the pro endpoint needs a valid key (EAUTH)', async () => {
  assertFail(await call(app.freeUrl, `url=${page}`, { headers: { 'x-api-key': 'test-key' } }), 403, 'EPRO');
  assertFail(await call(app.proUrl, `url=${page}`), 401, 'EAUTH');
  assertFail(await call(app.proUrl, `url=${page}`, { headers: { 'x-api-key': 'wrong' } }), 401, 'EAUTH');
  const ok = await call(app.proUrl, `url=${page}&ttl=1h`, { headers: { 'x-api-key': 'test-key' } });
  assert.is(ok.status, 200);
  assert.is(ok.headers.get('x-pricing-plan'), 'pro');
  assert.is(ok.headers.get('x-cache-ttl'), '3600000');
  assertFail(
    await call(app.proUrl, `url=${page}&ttl=forever`, { headers: { 'x-api-key': 'test-key' } }),
    400,
    'EINVALTTL',
  );
});

test('methods other than GET and HEAD are 405; other paths 404', async () => {
  assertFail(await call(app.freeUrl, `url=${page}`, { method: 'POST' }), 405, 'EMETHOD');
  const res = await fetch(`${app.freeUrl}/elsewhere?url=${page}`);
  assertFail({ status: res.status, body: await res.json() }, 404, 'ENOTFOUND');
});

test('past the quota the answer is 429 ERATE with Retry-After; cache hits cost nothing', async () => {
  const small = await startRefract({ REFRACT_FREE_QUOTA: '2' });
  try {
    const first = await call(small.freeUrl, `url=${page}`);
    assert.is(first.headers.get('x-rate-limit-remaining'), '1');
    const hit = await call(small.freeUrl, `url=${page}`);
    assert.is(hit.headers.get('x-cache-status'), 'HIT');
    assert.is(hit.headers.get('x-rate-limit-remaining'), '1');
    await call(small.freeUrl, `url=${page}&force`);
    const over = await call(small.freeUrl, `url=${page}&force`);
    assertFail(over, 429, 'ERATE');
    assert.is(over.headers.get('x-rate-limit-remaining'), '0');
    assert.match(over.headers.get('retry-after') ?? '', /^\d+$/);
  } finally {
    await small.close();
  }
});

test('every code answered carries the documented page: HTML with an anchor per code, and a report link with the id', async () => {
  const doc = await fetch(`${app.freeUrl}/docs/errors`);
  assert.is(doc.status, 200);
  assert.match(doc.headers.get('content-type') ?? '', /^text\/html/);
  const html = await doc.text();
  for (const code of Object.keys(CODES))
    assert.ok(html.includes(`<h2 id="${code.toLowerCase()}">`), `no anchor for ${code}`);
  assert.ok(html.includes('id="reporting-a-request"'));
  const source = await fetch(`${app.freeUrl}/docs/errors.md`);
  assert.match(await source.text(), /## EFORBIDDENURL/);
  const refused = await call(app.freeUrl, `url=${q('http://127.0.0.2/')}`);
  assert.is(refused.body.more, `${app.freeUrl}/docs/errors#eforbiddenurl`);
  assert.is(
    refused.body.report,
    `${app.freeUrl}/docs/errors?id=${refused.body.id}&code=EFORBIDDENURL#reporting-a-request`,
  );
  assert.is(refused.body.id, refused.headers.get('x-request-id'));
});

test('REFRACT_REPORT_URL sets where error answers are reported, with the id and code filled in', async () => {
  const other = await startRefract({ REFRACT_REPORT_URL: 'https://tracker.example/new?title=Request%20{id}%20{code}' });
  try {
    const refused = await call(other.freeUrl, `url=${q('http://127.0.0.2/')}`);
    assert.is(refused.body.report, `https://tracker.example/new?title=Request%20${refused.body.id}%20EFORBIDDENURL`);
  } finally {
    await other.close();
  }
});

test.run();
