import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtureFile, serveFixtures, sendBytes, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;
let late: Buffer;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'refract-meta-'));

const page = (name: string) => q(`${fx.url}/sites/rules/${name}`);
const meta = async (name: string, extra = '') => (await call(app.free, `url=${page(name)}${extra}`)).body.data;

const challenge =
  (status: number, headers: Record<string, string>, html: string) =>
  (_: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(html);
  };

test.before(async () => {
  // A video larger than one probe read with its index (moov) at the end: the tail read must find the duration.
  const file = path.join(tmp, 'late.mp4');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=640x360:rate=25',
    '-t',
    '4',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-qp',
    '0',
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
  late = readFileSync(file);
  fx = await serveFixtures({
    '/late.mp4': (req, res) => sendBytes(req, res, late, 'video/mp4'),
    '/echo': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(new URL(req.url!, 'http://x').searchParams.get('html'));
    },
    '/shop/item.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<title>item</title><meta property="og:image" content="/shop/pic.png"><link rel="icon" href="/shop/icon.png">',
      );
    },
    '/shop/pic.png': fixtureFile('sites/article/images/hero.png'),
    '/shop/icon.png': fixtureFile('sites/article/images/favicon-32.png'),
    '/pick/item.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<title>pick</title><meta name="description" content="A pick"><meta property="og:image" content="/pick/pic.png"><link rel="icon" href="/pick/icon.png">',
      );
    },
    '/pick/pic.png': fixtureFile('sites/article/images/hero.png'),
    '/pick/icon.png': fixtureFile('sites/article/images/favicon-32.png'),
    '/late.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<meta property="og:video" content="/late.mp4"><title>late</title>');
    },
    '/cf': challenge(
      403,
      { server: 'cloudflare', 'cf-mitigated': 'challenge' },
      '<html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>',
    ),
    '/akamai': challenge(
      403,
      { server: 'AkamaiGHost' },
      "<html><head><title>Access Denied</title></head><body>You don't have permission. Reference #18.5c</body></html>",
    ),
    '/datadome': challenge(
      403,
      { 'x-datadome': 'protected', 'set-cookie': 'datadome=abc; Path=/' },
      '<html><body><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>',
    ),
    '/perimeterx': challenge(
      403,
      { 'set-cookie': '_pxhd=xyz; Path=/' },
      '<html><head><title>Access to this page has been denied</title></head><body><div id="px-captcha"></div></body></html>',
    ),
    '/hcaptcha': challenge(
      429,
      {},
      '<html><head><title>Verify</title><script src="https://hcaptcha.com/1/api.js"></script></head><body><div class="h-captcha"></div></body></html>',
    ),
    '/imperva': challenge(
      403,
      { 'x-iinfo': '1-2-3' },
      '<html><body>Request unsuccessful. Incapsula incident ID: 123</body></html>',
    ),
    '/cf-js': challenge(
      403,
      { server: 'cloudflare' },
      '<html><head><title>Attention Required! | Cloudflare</title></head><body><script>window._cf_chl_opt={cvId:"3"}</script></body></html>',
    ),
    '/aws-waf': challenge(
      405,
      { 'x-amzn-waf-action': 'captcha' },
      '<html><head><script src="https://x.token.awswaf.com/x/challenge.js"></script></head><body><div id="captcha-container"></div><script>AwsWafIntegration.saveReferrer();</script></body></html>',
    ),
    '/contact-form': challenge(
      200,
      {},
      '<html><head><title>Contact us</title><script src="https://hcaptcha.com/1/api.js"></script></head><body><form><div class="h-captcha"></div></form></body></html>',
    ),
  });
  app = await startHandlers();
});

test.after(async () => {
  await app.close();
  await fx.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('Open Graph rules', async () => {
  const d = await meta('opengraph.html');
  assert.is(d.title, 'OG title');
  assert.is(d.description, 'OG description');
  assert.is(d.publisher, 'OG Site');
  assert.is(d.lang, 'de');
  assert.is(d.author, 'Olga Graph');
  // The instant in the zone the page wrote it in: the calendar day its readers saw.
  assert.is(d.date, '2020-03-04T05:06:07.000+02:00');
  assert.is(Date.parse(d.date), Date.parse('2020-03-04T03:06:07.000Z'));
  assert.is(d.url, 'https://og.example/canonical');
  assert.is(d.image.url, `${fx.url}/sites/article/images/hero.png`);
  assert.is(d.image.width, 1200);
});

test('Twitter card rules', async () => {
  const d = await meta('twitter.html');
  assert.is(d.title, 'Tweet title');
  assert.is(d.description, 'Tweet description');
  assert.is(d.url, 'https://tw.example/post');
  assert.is(d.image.height, 630);
});

test('JSON-LD rules, @graph included, with a broken block repaired or skipped', async () => {
  const d = await meta('jsonld.html');
  assert.is(d.title, 'LD headline');
  assert.is(d.description, 'LD description');
  // Both authors the JSON-LD names (each cleaned of its "By"), where the first alone was kept before.
  assert.is(d.author, 'Ada Lovelace; Charles Babbage');
  assert.is(d.date, '2019-01-02T03:04:05.000Z');
  assert.is(d.publisher, 'LD Publisher');
  assert.is(d.lang, 'pt');
  assert.is(d.logo.url, `${fx.url}/sites/article/images/apple-touch-icon.png`);
  assert.is(d.image.url, `${fx.url}/sites/article/images/hero.png`);
});

test('microdata rules', async () => {
  const d = await meta('microdata.html');
  assert.is(d.author, 'Grace Hopper');
  assert.is(d.date, '2018-05-06T00:00:00.000Z');
  assert.is(d.lang, 'es');
  assert.is(d.logo.width, 180);
});

test('HTML fallbacks: title, lang, byline, human date, first paragraph, content image, icon', async () => {
  const d = await meta('fallbacks.html');
  assert.is(d.title, 'Fallback title — Le Site');
  assert.is(d.lang, 'fr');
  assert.is(d.author, 'Marie Curie');
  assert.is(d.date, '2016-01-12T17:04:00.000Z');
  assert.match(d.description, /^This first paragraph/);
  assert.is(d.publisher, 'Le Site');
  assert.is(d.image.url, `${fx.url}/sites/article/images/hero.png`, 'tracking pixel and data-URI stub are passed over');
  assert.is(
    d.logo.url,
    `${fx.url}/sites/article/images/favicon-32.png`,
    'an icon that answers 404 gives way to the next',
  );
});

test('placeholder images are rejected: a 1x1 pixel and a missing file give way to a real image', async () => {
  const d = await meta('placeholders.html');
  assert.is(d.image.url, `${fx.url}/sites/article/images/hero.png`);
  assert.equal([d.image.width, d.image.height], [1200, 630]);
});

test('without any declared icon the logo falls back to a probed /favicon.ico', async () => {
  const d = await meta('bare.html');
  assert.is(d.logo.url, `${fx.url}/favicon.ico`);
  assert.is(d.logo.type, 'ico');
  assert.is(d.logo.width, 16);
});

test('every Media field carries size, type and dimensions or duration', async () => {
  const d = await meta('../article/index.html', '&audio&video');
  for (const key of ['image', 'logo', 'video', 'audio']) {
    assert.type(d[key].size, 'number', `${key}.size`);
    assert.match(d[key].size_pretty, /\d (B|kB|MB)$/, `${key}.size_pretty`);
    assert.type(d[key].type, 'string', `${key}.type`);
  }
  for (const key of ['image', 'logo', 'video']) assert.ok(d[key].width > 0 && d[key].height > 0, `${key} dimensions`);
  for (const key of ['video', 'audio']) assert.ok(d[key].duration > 0 && d[key].duration_pretty, `${key} duration`);
});

test("a site's image and icon are probed once for its pages (the engine remembers media facts), again under force", async () => {
  const probes = () => fx.hits.filter((h) => h === '/shop/pic.png' || h === '/shop/icon.png').length;
  const item = async (n: number, extra = '') =>
    (await call(app.free, `url=${q(`${fx.url}/shop/item.html?n=${n}`)}${extra}`)).body.data;
  const first = await item(1);
  assert.is(probes(), 2, 'the first page probes its image and its icon');
  const second = await item(2);
  assert.is(probes(), 2, 'no probe for the second page');
  assert.equal([second.image, second.logo], [first.image, first.logo]);
  assert.equal([second.image.width, second.logo.width], [1200, 32]);
  await item(3, '&force');
  assert.is(probes(), 4, 'a forced request probes again');
});

const META_KEYS = [
  'lang',
  'author',
  'title',
  'publisher',
  'image',
  'date',
  'url',
  'description',
  'logo',
  'video',
  'audio',
];
const metaKeys = (d: Record<string, unknown>) => Object.keys(d).filter((k) => META_KEYS.includes(k));

test('meta as an object selects fields: true answers only those (and url), false leaves one out', async () => {
  const only = await meta('opengraph.html', '&meta.title=true&meta.author');
  assert.equal(metaKeys(only), ['author', 'title', 'url']);
  assert.equal([only.title, only.author, only.url], ['OG title', 'Olga Graph', 'https://og.example/canonical']);
  const without = await meta('opengraph.html', '&meta.logo=false&meta.image=false');
  assert.equal(metaKeys(without), [
    'lang',
    'author',
    'title',
    'publisher',
    'date',
    'url',
    'description',
    'video',
    'audio',
  ]);
  assert.is(without.description, 'OG description');
  const all = await meta('opengraph.html');
  assert.equal(metaKeys(all), META_KEYS, 'no selection: every field, as before');
  // A selection with the top-level video: the video is answered beside the selected field.
  const clip = (await call(app.free, `url=${q(`${fx.url}/late.html`)}&video&meta.title`)).body.data;
  assert.equal(metaKeys(clip), ['title', 'url', 'video']);
  assert.is(clip.video.type, 'mp4');
  // A file target answers the same selection.
  const file = (await call(app.free, `url=${q(`${fx.url}/late.mp4`)}&meta.date=false&meta.title`)).body.data;
  assert.equal(metaKeys(file), ['title', 'url']);
  assert.is(file.title, 'late.mp4');
});

test('an unselected media field is never probed; a misspelt field is refused', async () => {
  const probes = (path: string) => fx.hits.filter((h) => h === path).length;
  const d = (await call(app.free, `url=${q(`${fx.url}/pick/item.html`)}&meta.title&meta.description`)).body.data;
  assert.equal([d.title, d.description], ['pick', 'A pick']);
  assert.equal([probes('/pick/pic.png'), probes('/pick/icon.png')], [0, 0], 'neither image nor logo probed');
  const noImage = (await call(app.free, `url=${q(`${fx.url}/pick/item.html?n=2`)}&meta.image=false`)).body.data;
  assert.is(noImage.image, undefined);
  assert.is(noImage.logo.width, 32);
  assert.equal([probes('/pick/pic.png'), probes('/pick/icon.png')], [0, 1], 'only the logo probed');
  const typo = await call(app.free, `url=${q(`${fx.url}/pick/item.html`)}&meta.titel=true`);
  assert.is(typo.status, 200);
  assert.is(typo.headers.get('x-refract-unknown-params'), 'meta.titel', 'named, as every unknown option is');
  const bad = await call(app.free, `url=${q(`${fx.url}/pick/item.html`)}&meta.title=maybe`);
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /meta\.title/);
});

test('a video whose index sits at its end gets its duration from a ranged tail read', async () => {
  assert.ok(late.length > 2 * 256 * 1024, `fixture video (${late.length} bytes) is larger than a head and a tail read`);
  const d = (await call(app.free, `url=${q(`${fx.url}/late.html`)}&video`)).body.data;
  assert.is(d.video.size, late.length);
  assert.equal([d.video.width, d.video.height], [640, 360]);
  assert.ok(Math.abs(d.video.duration - 4) < 0.2, `duration ${d.video.duration}`);
  const ranged = fx.hits.filter((h) => h === '/late.mp4').length;
  assert.ok(ranged >= 2 && ranged <= 3, `head and tail reads only (${ranged})`);
});

test('a video target is described with its duration', async () => {
  const d = (await call(app.free, `url=${q(`${fx.url}/late.mp4`)}`)).body.data;
  assert.is(d.video.type, 'mp4');
  assert.ok(Math.abs(d.video.duration - 4) < 0.2);
});

test('bot challenges never come back as metadata: EPROXYNEEDED names the provider', async () => {
  const cases: [string, string][] = [
    ['/cf', 'Cloudflare'],
    ['/akamai', 'Akamai'],
    ['/datadome', 'DataDome'],
    ['/perimeterx', 'PerimeterX'],
    ['/hcaptcha', 'hCaptcha'],
    ['/imperva', 'Imperva'],
    ['/cf-js', 'Cloudflare'],
    ['/aws-waf', 'AWS WAF'],
  ];
  // Through the fetch path and through the browser, every provider; the other outputs on two of them.
  const runs = [
    ...['prerender=false', 'prerender=true'].flatMap((mode) => cases.map((c) => [mode, c] as const)),
    ...['screenshot&meta=false', 'markdown&meta=false&prerender=false'].flatMap((mode) =>
      [cases[0]!, cases[3]!].map((c) => [mode, c] as const),
    ),
  ];
  for (const [mode, [route, provider]] of runs) {
    const { status, body } = await call(app.free, `url=${q(fx.url + route)}&${mode}&force`);
    assert.is(status, 403, `${route} ${mode}: ${JSON.stringify(body).slice(0, 200)}`);
    assert.is(body.code, 'EPROXYNEEDED', `${route} ${mode}`);
    assert.is(body.data.provider, provider, `${route} ${mode}`);
    assert.match(body.message, new RegExp(provider));
  }
  const form = await call(app.free, `url=${q(`${fx.url}/contact-form`)}`);
  assert.is(form.status, 200, 'a page that merely embeds a captcha is not a challenge');
  assert.is(form.body.data.title, 'Contact us');
});

test('a media host that never answers costs one request its probe budget, then is remembered: the requests after it do not wait', async () => {
  // Accepts connections and never answers (a host whose packets go nowhere behaves the same to a probe).
  const sockets: import('node:net').Socket[] = [];
  const silent = (await import('node:net')).createServer((socket) => sockets.push(socket));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.2', r));
  const port = (silent.address() as import('node:net').AddressInfo).port;
  const probed = await startHandlers({
    REFRACT_PROBE_TIMEOUT: '1500ms',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1,127.0.0.2',
  });
  try {
    const page = (n: number) =>
      q(
        `${fx.url}/echo?html=${encodeURIComponent(`<html><head><title>P${n}</title><meta property="og:image" content="http://127.0.0.2:${port}/img/${n}.jpg"></head><body><p>x</p></body></html>`)}`,
      );
    const first = await call(probed.free, `url=${page(0)}&prerender=false`);
    assert.is(first.status, 200);
    assert.is(first.body.data.image.url, `http://127.0.0.2:${port}/img/0.jpg`, 'the URL is kept');
    const reached = sockets.length;
    assert.ok(reached >= 1, 'the first request tried the host');
    // Eight more pages of the same host at once: answered from what the first learned, no new connection.
    const rest = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(probed.free, `url=${page(i + 1)}&prerender=false`)),
    );
    for (const [i, r] of rest.entries()) {
      assert.is(r.status, 200);
      assert.is(r.body.data.image.url, `http://127.0.0.2:${port}/img/${i + 1}.jpg`);
    }
    assert.is(sockets.length, reached, 'the silent host was not tried again while remembered');
  } finally {
    await probed.close();
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

test.run();
