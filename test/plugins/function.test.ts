import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import LZString from 'lz-string';
import { serveFixtures, recordingServer, socketProbe, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;
let privateHost: Awaited<ReturnType<typeof recordingServer>>;

test.before(async () => {
  fx = await serveFixtures();
  app = await startHandlers();
  // 127.0.0.2 is loopback but not on the tests' allowlist: it stands for any host the sandbox must not reach.
  privateHost = await recordingServer('127.0.0.2');
});

test.after(async () => {
  await privateHost.close();
  await app.close();
  await fx.close();
});

const page = () => `${fx.url}/sites/function/index.html`;
const run = (source: string, extra = '') =>
  call(app.free, `url=${q(page())}&function=${encodeURIComponent(source)}${extra}`);

async function value(source: string, extra = '') {
  const res = await run(source, extra);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data.function;
}

async function healthy() {
  const res = await call(app.free, `url=${q(`${fx.url}/sites/article/index.html`)}&force`);
  assert.is(res.status, 200, 'the server still answers');
}

test('function returns values computed with the page; metadata is left out unless meta=true', async () => {
  const res = await run(`async ({ page }) => ({
    title: await page.title(),
    heading: await page.$eval('h1', (el) => el.textContent),
    items: await page.$$eval('li', (els) => els.map((e) => e.textContent)),
    version: await page.evaluate(() => window.appVersion),
    sum: await page.evaluate((a, b) => a + b, 2, 3),
  })`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.function, {
    isFulfilled: true,
    value: { title: 'Counter', heading: 'Clicks', items: ['one', 'two', 'three'], version: '2.5.0', sum: 5 },
  });
  assert.is(res.body.data.title, undefined);
  const withMeta = await run('({ page }) => page.url()', '&meta=true');
  assert.is(withMeta.body.data.title, 'Counter');
  assert.is(withMeta.body.data.function.value, page());
});

test('function drives the page (click, fill, waitForSelector, screenshot bytes) and receives the query parameters', async () => {
  const out = await value(
    `async ({ page, colorScheme }) => {
    await page.click('#inc');
    await page.click('#inc');
    await page.fill('#name', 'Ad');
    await page.type('#name', 'a');
    await page.waitForSelector('#count');
    const shot = await page.screenshot();
    return { count: await page.$eval('#count', (el) => el.textContent), name: await page.evaluate(() => document.getElementById('name').value), png: [shot[0], shot[1], shot[2], shot[3]], bytes: shot.length > 1000, colorScheme, html: (await page.content()).includes('<h1>Clicks</h1>'), at: await page.url() };
  }`,
    '&colorScheme=dark',
  );
  assert.equal(out.value, {
    count: '2',
    name: 'Ada',
    png: [0x89, 0x50, 0x4e, 0x47],
    bytes: true,
    colorScheme: 'dark',
    html: true,
    at: page(),
  });
});

test("the query's other parameters reach the function as given (not reported unknown), and each value is its own answer", async () => {
  const two = await run('({ page, n, greeting, deep }) => ({ n, greeting, deep })', '&n=2&greeting=hello&deep.a=1');
  assert.is(two.status, 200, JSON.stringify(two.body));
  assert.equal(two.body.data.function.value, { n: '2', greeting: 'hello', deep: { a: '1' } });
  assert.is(two.headers.get('x-refract-unknown-params'), null);
  const three = await run('({ page, n, greeting, deep }) => ({ n, greeting, deep })', '&n=3&greeting=hello&deep.a=1');
  assert.is(three.headers.get('x-cache-status'), 'MISS', 'another value is another answer');
  assert.equal(three.body.data.function.value, { n: '3', greeting: 'hello', deep: { a: '1' } });
  // Without a function, the same names are unknown and named.
  const none = await call(app.free, `url=${q(page())}&n=2`);
  assert.is(none.headers.get('x-refract-unknown-params'), 'n');
});

test('compressed forms as sent by Microlink clients: br#, gz#, lz#', async () => {
  const source = '({ page }) => page.title()';
  const b64 = (buf: Buffer) => buf.toString('base64');
  for (const encoded of [
    `br#${b64(zlib.brotliCompressSync(source))}`,
    `gz#${b64(zlib.gzipSync(source))}`,
    `lz#${LZString.compressToEncodedURIComponent(source)}`,
  ]) {
    assert.equal(await value(encoded), { isFulfilled: true, value: 'Counter' }, encoded.slice(0, 3));
  }
  const broken = await run('gz#bm90IGd6aXA=');
  assert.is(broken.body.code, 'EINVALFUNCTION');
});

test('a syntax error is EINVALFUNCTION; a thrown error is EINVALEVAL with its message', async () => {
  const syntax = await run('({ page }) => { return page.title( }');
  assert.is(syntax.status, 400);
  assert.is(syntax.body.code, 'EINVALFUNCTION');
  const thrown = await run("() => { throw new Error('nope, not today') }");
  assert.is(thrown.status, 400);
  assert.is(thrown.body.code, 'EINVALEVAL');
  assert.match(thrown.body.message, /nope, not today/);
});

test('escape suite: no process, require, modules, files, environment or child processes inside the sandbox', async () => {
  assert.equal(
    (
      await value(
        '() => [typeof process, typeof require, typeof module, typeof Buffer, typeof fetch, typeof setTimeout]',
      )
    ).value,
    ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
  );
  for (const attempt of [
    "() => require('fs').readFileSync('/etc/passwd', 'utf8')",
    "() => require('child_process').execSync('id').toString()",
    '() => process.env',
    "async () => (await import('node:fs')).readFileSync('/etc/hostname', 'utf8')",
    "() => Function('return process')().env",
  ]) {
    const res = await run(attempt);
    assert.is(res.status, 400, attempt);
    assert.is(res.body.code, 'EINVALEVAL', attempt);
    assert.not.match(JSON.stringify(res.body), /root:|PATH=|HOME/, attempt);
  }
  await healthy();
});

test('escape suite: the prototype chains of the page handle and the parameters lead only to the sandbox globals', async () => {
  const out = await value(`({ page, ...params }) => {
    const viaPage = page.constructor.constructor('return this')();
    const viaParams = params.constructor.constructor('return this')();
    const viaMethod = Object.getPrototypeOf(page.goto).constructor('return typeof process')();
    return [typeof viaPage.process, typeof viaParams.process, viaMethod, Object.isFrozen(page), typeof viaPage.__bridge];
  }`);
  assert.equal(out.value, ['undefined', 'undefined', 'undefined', true, 'undefined']);
  await healthy();
});

test('escape suite: the network is reached only through the page, behind the SSRF guard', async () => {
  const goto = await run(`({ page }) => page.goto('http://${privateHost.url}/from-goto')`);
  assert.is(goto.body.code, 'EINVALEVAL', JSON.stringify(goto.body));
  const fromPage = await value(
    `({ page }) => page.evaluate(() => fetch('http://${privateHost.url}/from-page').then(() => 'reached', () => 'refused'))`,
  );
  assert.is(fromPage.value, 'refused');
  const socket = await value(`({ page }) => page.evaluate(() => ${socketProbe(privateHost.url)})`);
  assert.is(socket.value, 'refused');
  assert.equal(privateHost.seen, [], 'nothing reached the private host');
  await healthy();
});

test("escape suite: the browser's own pages, files and other schemes cannot be opened; only http(s)", async () => {
  const targets = [
    'chrome://version',
    'chrome://gpu',
    'file:///etc/passwd',
    'view-source:http://example.com/',
    'devtools://devtools/bundled/inspector.html',
    'data:text/html,<p>x</p>',
    'javascript:1',
  ];
  // One page tries each (a request each cost a browser page and ~4 s): what each attempt answered.
  const tried = await value(
    `async ({ page }) => { const out = []; for (const t of ${JSON.stringify(targets)}) { try { await page.goto(t); out.push('opened ' + (await page.evaluate(() => document.body.innerText)).slice(0, 200)); } catch (e) { out.push(String(e.message)); } } return out; }`,
  );
  assert.is(tried.value.length, targets.length);
  for (const [i, said] of (tried.value as string[]).entries()) {
    assert.match(said, /only http and https/, `${targets[i]}: ${said}`);
    assert.not.match(said, /--proxy-server|user-data-dir|Command Line/i);
  }
  // The first refusal fails the whole function as its error: EINVALEVAL.
  const res = await run(`async ({ page }) => { await page.goto('chrome://version'); return 1 }`);
  assert.is(res.status, 400);
  assert.is(res.body.code, 'EINVALEVAL');
  // Relative addresses are the page's own site, as a browser reads them.
  const relative = await value(`async ({ page }) => (await page.goto('/sites/article/index.html')).url`);
  assert.is(relative.value, `${fx.url}/sites/article/index.html`);
  await healthy();
});

test('escape suite: endless loops (sync and after an await) and memory bombs are stopped and reported', async () => {
  const loop = await value('() => { while (true) {} }', '&timeout=5s');
  assert.is(loop.isFulfilled, false);
  assert.is(loop.value.name, 'TimeoutError');
  // The budget named is the one the sandbox got: under the 5 s timeout, less the step's reserve.
  const budget = Number(/ran past its (\d+) ms budget/.exec(loop.value.message)?.[1]);
  assert.ok(budget >= 500 && budget < 5000, loop.value.message);
  const later = await value('async ({ page }) => { await page.title(); for (;;) {} }', '&timeout=5s');
  assert.is(later.isFulfilled, false);
  assert.is(later.value.name, 'TimeoutError');
  const bomb = await value('() => { const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random())); }');
  assert.is(bomb.isFulfilled, false);
  assert.is(bomb.value.name, 'MemoryLimitError');
  await healthy();
});

test.run();
