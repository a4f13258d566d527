// GET /map (issue 43, item 2): a site's URLs from its sitemaps (nested, gzipped) and its start page's links.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, q } from '../util/refract.ts';
import { startCli } from '../util/cli.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let plain: Fixture;
let big: Fixture;
let app: App;
/** A sitemap of 150,000 pages (8 MB), as large sites have (the protocol allows 50,000 a file; many ignore it). */
const BIG = 150_000;

const send = (res: ServerResponse, type: string, body: string | Buffer) => {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
};
const urlset = (base: string, paths: string[]) =>
  `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${base}${p}</loc></url>`).join('')}</urlset>`;
const index = (base: string, paths: string[]) =>
  `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<sitemap><loc>${base}${p}</loc></sitemap>`).join('')}</sitemapindex>`;

test.before(async () => {
  fx = await serveFixtures({
    '/': (_, res) =>
      send(
        res,
        'text/html',
        `<html><body><a href="/linked-only">a</a> <a href="/both">b</a> <a href="/both#part">b again</a>
        <a href="/q?b=2&a=1">q</a> <a href="/q?a=1&b=2">q again</a> <a href="https://elsewhere.example/x">out</a>
        <a href="mailto:x@example.com">mail</a> <a href="javascript:void 0">js</a></body></html>`,
      ),
    '/robots.txt': (_, res) => send(res, 'text/plain', `User-agent: *\nDisallow:\nSitemap: ${fx.url}/maps/index.xml\n`),
    '/maps/index.xml': (_, res) =>
      send(res, 'application/xml', index(fx.url, ['/maps/pages.xml.gz', '/maps/nested-index.xml'])),
    '/maps/nested-index.xml': (_, res) => send(res, 'application/xml', index(fx.url, ['/maps/deep.xml'])),
    '/maps/deep.xml': (_, res) => send(res, 'application/xml', urlset(fx.url, ['/deep-only', '/both'])),
    // Served as a file (application/gzip, no content-encoding): its bytes are gzip.
    '/maps/pages.xml.gz': (_, res) =>
      send(
        res,
        'application/gzip',
        gzipSync(
          urlset(fx.url, ['/gz-only', '/gz-two']).replace(
            '</urlset>',
            `<url><loc>https://elsewhere.example/y</loc></url></urlset>`,
          ),
        ),
      ),
  });
  // A site whose robots.txt names no sitemap: /sitemap.xml is read.
  plain = await serveFixtures({
    '/': (_, res) => send(res, 'text/html', '<a href="/page">p</a>'),
    '/sitemap.xml': (_, res) => send(res, 'application/xml', urlset(plain.url, ['/from-conventional'])),
  });
  big = await serveFixtures({
    '/': (_, res) => send(res, 'text/html', '<a href="/p/linked">p</a>'),
    '/sitemap.xml': (_, res) =>
      send(
        res,
        'application/xml',
        urlset(
          big.url,
          Array.from({ length: BIG }, (_, i) => `/p/${i}`),
        ),
      ),
  });
  app = await startRefract();
});

test.after(async () => {
  await app.close();
  await fx.close();
  await plain.close();
  await big.close();
});

const map = async (extra = '', base = app.freeUrl, init: RequestInit = {}) => {
  const res = await fetch(`${base}/map?url=${q(`${fx.url}/`)}${extra}`, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
};
const paths = (urls: string[]) => urls.map((u) => u.replace(fx.url, '')).sort();

test('pages reachable only by nested or gzipped sitemaps, only by links, and by both: each once, canonical', async () => {
  const { status, body, headers } = await map();
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.status, 'success');
  assert.equal(paths(body.data.urls), [
    '/',
    '/both',
    '/deep-only',
    '/gz-only',
    '/gz-two',
    '/linked-only',
    '/q?b=2&a=1',
  ]);
  assert.is(headers.get('x-rate-limit-remaining') !== null, true, 'charged as a request');
  const plainSite = await fetch(`${app.freeUrl}/map?url=${q(`${plain.url}/`)}`).then((r) => r.json());
  assert.equal(plainSite.data.urls.map((u: string) => u.replace(plain.url, '')).sort(), [
    '/',
    '/from-conventional',
    '/page',
  ]);
});

test('sitemap=only|skip, search as text or glob, limit', async () => {
  assert.equal(paths((await map('&sitemap=only')).body.data.urls), ['/both', '/deep-only', '/gz-only', '/gz-two']);
  assert.equal(paths((await map('&sitemap=skip')).body.data.urls), ['/', '/both', '/linked-only', '/q?b=2&a=1']);
  assert.equal(paths((await map('&search=DEEP')).body.data.urls), ['/deep-only']);
  assert.equal(paths((await map(`&search=${q('**/*-only')}`)).body.data.urls), [
    '/deep-only',
    '/gz-only',
    '/linked-only',
  ]);
  assert.is((await map('&limit=2')).body.data.urls.length, 2);
});

test('a sitemap of 150,000 pages is read as it streams: up to the limit, with the server answering meanwhile', async () => {
  const mapped = fetch(`${app.freeUrl}/map?url=${q(`${big.url}/`)}&sitemap=only&limit=5000`).then((r) => r.json());
  let settled = false;
  void mapped.then(() => {
    settled = true;
  });
  // The event loop is not held: other requests are answered while the sitemap is read.
  let answered = 0;
  while (!settled) {
    const health = await fetch(`${app.freeUrl}/healthz`);
    if (health.status === 200) answered++;
  }
  const body = (await mapped) as { status: string; data: { urls: string[] } };
  assert.is(body.status, 'success', JSON.stringify(body).slice(0, 300));
  assert.is(body.data.urls.length, 5000);
  assert.is(body.data.urls[0], `${big.url}/p/0`);
  assert.ok(answered > 1, `health answered ${answered} times while the map ran`);
});

test('bad input: a clear code; a refused host; the pro endpoint wants its key', async () => {
  const zero = await map('&limit=0');
  assert.is(zero.status, 400);
  assert.is(zero.body.code, 'EINVALQUERY');
  assert.match(zero.body.message, /limit/);
  const none = await fetch(`${app.freeUrl}/map`).then(async (r) => ({ status: r.status, body: await r.json() }));
  assert.is(none.status, 400);
  assert.is(none.body.code, 'EINVALURL');
  const refused = await fetch(`${app.freeUrl}/map?url=${q('http://10.0.0.1/')}`).then((r) => r.json());
  assert.is(refused.code, 'EFORBIDDENURL');
  const typo = await map('&limt=3');
  assert.is(typo.headers.get('x-refract-unknown-params'), 'limt');
  assert.is((await map('', app.proUrl)).status, 401);
  const pro = await map('&sitemap=skip', app.proUrl, { headers: { 'x-api-key': 'test-key' } });
  assert.is(pro.status, 200);
  assert.is(pro.headers.get('x-pricing-plan'), 'pro');
});

test('OpenAPI describes /map from the schema that checks it', async () => {
  const spec = await fetch(`${app.freeUrl}/openapi.json`).then((r) => r.json());
  const params = spec.paths['/map'].get.parameters;
  assert.equal(
    params.map((p: { name: string }) => p.name),
    ['url', 'limit', 'search', 'subdomains', 'sitemap'],
  );
  assert.is(params.find((p: { name: string }) => p.name === 'limit').schema.default, 5000);
  assert.equal(params.find((p: { name: string }) => p.name === 'sitemap').schema.enum, ['include', 'only', 'skip']);
});

test('refract map prints one URL a line', async () => {
  const cli = startCli(['map', `${fx.url}/`, '--sitemap', 'only', '--limit', '3']);
  const code = await cli.exited;
  assert.is(code, 0, cli.stderrText());
  const lines = cli.stdoutText().trim().split('\n');
  assert.is(lines.length, 3);
  for (const line of lines) assert.ok(line.startsWith(fx.url), line);
});

test.run();
