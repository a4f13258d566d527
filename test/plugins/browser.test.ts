import { parse as parseDisposition } from 'content-disposition';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let other: Fixture;
let app: App;
const held: import('node:http').ServerResponse[] = [];

const site = (name: string) => q(`${fx.url}/sites/browser/${name}`);

async function asset(url: string): Promise<Buffer> {
  const res = await fetch(url);
  assert.is(res.status, 200, `asset ${url}`);
  return Buffer.from(await res.arrayBuffer());
}

async function shot(query: string) {
  const { status, body } = await call(app.freeUrl, `${query}&meta=false&force`);
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  const bytes = await asset(body.data.screenshot.url);
  return { media: body.data.screenshot, bytes, meta: await sharp(bytes).metadata() };
}

async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...data.subarray(i, i + 3)];
}

/** Rows (at x = 600) of the image whose pixel is `rgb`. */
async function rowsOf(bytes: Buffer, rgb: number[]): Promise<number> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  let rows = 0;
  for (let y = 0; y < info.height; y++) {
    const i = (y * info.width + 600) * info.channels;
    if (data[i] === rgb[0] && data[i + 1] === rgb[1] && data[i + 2] === rgb[2]) rows++;
  }
  return rows;
}

function pdfInfo(bytes: Buffer): Record<string, string> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'refract-pdf-')), 'x.pdf');
  writeFileSync(file, bytes);
  const out = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  return Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.split(':')[0]!.trim(), l.slice(l.indexOf(':') + 1).trim()]),
  );
}

test.before(async () => {
  other = await serveFixtures();
  await other.close();
  // A second host on another loopback address that the allowlist does not cover.
  const http = await import('node:http');
  const hits: string[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('x');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.3', r));
  const port = (srv.address() as import('node:net').AddressInfo).port;
  other = {
    url: `http://127.0.0.3:${port}`,
    port,
    hits,
    close: () =>
      new Promise((r) => {
        srv.close(() => r());
        srv.closeAllConnections();
      }),
  };
  fx = await serveFixtures({
    '/beacon.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>Beacon</title><img src="${other.url}/beacon.png"><script src="${other.url}/beacon.js"></script>`);
    },
    '/hang.png': (_, res) => {
      held.push(res);
    },
    // Data that takes a while: a page quiet while it is on its way is not read before it came.
    '/late-data.json': (_, res) => {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ title: 'Late data title' }));
      }, 1200);
      res.on('close', () => clearTimeout(timer));
    },
  });
  app = await startRefract();
});

test.after(async () => {
  for (const res of held) res.destroy();
  await app.close();
  await fx.close();
  await other.close();
});

test('a default screenshot is a 1280x800 PNG stored as an asset', async () => {
  const { media, bytes, meta } = await shot(`url=${site('tall.html')}&screenshot`);
  assert.equal([meta.width, meta.height, meta.format], [1280, 800, 'png']);
  assert.equal([media.width, media.height, media.type, media.size], [1280, 800, 'png', bytes.length]);
  assert.match(media.url, /\/assets\/[a-f0-9]{64}\.png$/);
});

test('REFRACT_ASSETS_URL sets the base of asset links (a CDN in front of the assets folder); the server still serves them', async () => {
  const cdn = await startRefract({ REFRACT_ASSETS_URL: 'https://cdn.example.test/shots/' });
  try {
    const { status, body } = await call(cdn.freeUrl, `url=${site('clear.html')}&screenshot&meta=false`);
    assert.is(status, 200, JSON.stringify(body));
    const m = /^https:\/\/cdn\.example\.test\/shots\/([a-f0-9]{64}\.png)$/.exec(body.data.screenshot.url);
    assert.ok(m, body.data.screenshot.url);
    const served = await fetch(`${cdn.freeUrl}/assets/${m![1]}`);
    assert.is(served.status, 200);
    assert.is(served.headers.get('content-type'), 'image/png');
    assert.is((await served.arrayBuffer()).byteLength, body.data.screenshot.size);
    // A query string (a cache buster) names the same file; a missing file is a JSend 404 with its id and docs link.
    const busted = await fetch(`${cdn.freeUrl}/assets/${m![1]}?x=1`);
    assert.is(busted.status, 200);
    assert.is((await busted.arrayBuffer()).byteLength, body.data.screenshot.size);
    const missing = await fetch(`${cdn.freeUrl}/assets/${'0'.repeat(64)}.png?x=1`);
    assert.is(missing.status, 404);
    const fail = (await missing.json()) as { status: string; code: string; id: string; more: string };
    assert.equal([fail.status, fail.code], ['fail', 'ENOTFOUND']);
    assert.match(fail.id, /^[0-9a-f-]{36}$/);
    assert.match(fail.more, /\/docs\/errors#enotfound$/);
  } finally {
    await cdn.close();
  }
});

test('pro `filename` names the generated files: the link ends with it, the file is served with it; a name with nothing usable is EFILENAME', async () => {
  const pro = { headers: { 'x-api-key': 'test-key' } };
  const { status, body } = await call(
    app.proUrl,
    `url=${site('clear.html')}&screenshot&pdf&meta=false&filename=${encodeURIComponent('My shot.png')}`,
    pro,
  );
  assert.is(status, 200, JSON.stringify(body));
  assert.match(body.data.screenshot.url, /\/assets\/[a-f0-9]{64}\/My-shot\.png$/);
  assert.match(body.data.pdf.url, /\/assets\/[a-f0-9]{64}\/My-shot\.pdf$/);
  const served = await fetch(body.data.screenshot.url);
  assert.is(served.status, 200);
  const disposition = parseDisposition(served.headers.get('content-disposition')!);
  assert.equal([disposition.type, { ...disposition.parameters }], ['inline', { filename: 'My-shot.png' }]);
  assert.is((await served.arrayBuffer()).byteLength, body.data.screenshot.size);
  // The same bytes under their plain name.
  assert.is((await fetch(body.data.screenshot.url.replace('/My-shot.png', '.png'))).status, 200);
  const bad = await call(
    app.proUrl,
    `url=${site('clear.html')}&screenshot&filename=${encodeURIComponent('../..')}`,
    pro,
  );
  assert.equal([bad.status, bad.body.code, bad.body.data?.param], [400, 'EFILENAME', 'filename']);
  assert.is((await fetch(`${app.freeUrl}/assets/${'0'.repeat(64)}/..%2F..%2Fetc.png`)).status, 404);
});

test('device presets and viewport options set the decoded image size', async () => {
  const phone = await shot(`url=${site('tall.html')}&screenshot=iPhone 12`);
  assert.is(phone.meta.width, 390 * 3);
  assert.ok(Math.abs(phone.meta.height! - 664 * 3) <= 1, `phone height ${phone.meta.height}`);
  const landscape = await shot(`url=${site('tall.html')}&screenshot&device=${q('pixel 5 landscape')}`);
  assert.ok(landscape.meta.width! > landscape.meta.height!, 'landscape is wider than tall');
  const desktop = await shot(`url=${site('tall.html')}&screenshot&device=${q('macbook pro 15')}`);
  assert.equal([desktop.meta.width, desktop.meta.height], [1440, 900]);
  const custom = await shot(
    `url=${site('tall.html')}&screenshot&viewport.width=800&viewport.height=600&viewport.device_scale_factor=2`,
  );
  assert.equal([custom.meta.width, custom.meta.height], [1600, 1200]);
  const legacy = await shot(`url=${site('tall.html')}&screenshot.width=640&screenshot.height=480`);
  assert.equal([legacy.meta.width, legacy.meta.height], [640, 480]);
  const bad = await call(app.freeUrl, `url=${site('tall.html')}&screenshot&device=${q('iphone 99')}`);
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /did you mean "iphone/);
});

test('element, full page, JPEG and PNG, quality and transparency', async () => {
  const card = await shot(`url=${site('tall.html')}&screenshot.element=${q('#card')}`);
  assert.equal([card.meta.width, card.meta.height], [300, 200]);
  assert.equal(await pixel(card.bytes, 150, 100), [200, 30, 30]);
  const full = await shot(`url=${site('tall.html')}&screenshot.full_page`);
  assert.ok(full.meta.height! >= 2840 + 315, `full page height ${full.meta.height}`);
  const jpeg = await shot(`url=${site('tall.html')}&screenshot.type=jpeg&screenshot.quality=90`);
  const small = await shot(`url=${site('tall.html')}&screenshot.type=jpeg&screenshot.quality=10`);
  assert.equal([...jpeg.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.is(jpeg.media.type, 'jpg');
  assert.ok(small.bytes.length < jpeg.bytes.length, 'lower quality, fewer bytes');
  const clear = await shot(`url=${site('clear.html')}&screenshot`);
  const stats = await sharp(clear.bytes).stats();
  assert.is(clear.meta.channels, 4);
  assert.is(stats.channels[3]!.min, 0, 'the page background is transparent');
  assert.is(stats.channels[3]!.max, 255, 'the blue box is opaque');
  const opaque = await shot(`url=${site('clear.html')}&screenshot.omit_background=false`);
  assert.is((await sharp(opaque.bytes).stats()).channels[3]?.min ?? 255, 255);
  const quality = await call(app.freeUrl, `url=${site('tall.html')}&screenshot.quality=50`);
  assert.is(quality.status, 400);
});

test('PDF: page count and paper size, landscape, page ranges, margins and scale', async () => {
  const get = async (query: string) => {
    const { status, body } = await call(app.freeUrl, `url=${site('tall.html')}&meta=false&${query}`);
    assert.is(status, 200, JSON.stringify(body).slice(0, 200));
    return { media: body.data.pdf, info: pdfInfo(await asset(body.data.pdf.url)) };
  };
  const a4 = await get('pdf');
  assert.match(a4.info['Page size'] ?? '', /^59[56](\.\d+)? x 84[12](\.\d+)? pts/);
  assert.ok(Number(a4.info.Pages) >= 3, `pages ${a4.info.Pages}`);
  assert.is(a4.media.pages, Number(a4.info.Pages), 'the answer counts the pages as pdfinfo does');
  assert.is(a4.media.type, 'pdf');
  // Its Creator is the browser's own agent (the Chromium that printed it, as a headed Chrome says it), not Crawlee's
  // fixed one of 2022 (Chrome/107) nor HeadlessChrome; pages see the same agent.
  const major = /(\d+)\.\d+\.\d+\.\d+/.exec(execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8' }))![1];
  assert.match(
    a4.info.Creator!,
    new RegExp(
      `^Mozilla/5\\.0 \\(.+\\) AppleWebKit/537\\.36 \\(KHTML, like Gecko\\) Chrome/${major}\\.0\\.0\\.0 Safari/537\\.36$`,
    ),
  );
  const fn = q('({ page }) => page.evaluate(() => navigator.userAgent)');
  const seen = await call(app.freeUrl, `url=${site('tall.html')}&function=${fn}&meta=false&force`);
  assert.is(seen.body.data.function.value, a4.info.Creator);
  const letter = await get('pdf.format=Letter&pdf.landscape');
  assert.match(letter.info['Page size']!, /^792 x 612 pts/);
  const one = await get('pdf.pageRanges=1');
  assert.is(one.info.Pages, '1');
  const sized = await get('pdf.width=400px&pdf.height=300px&pdf.margin=10mm&pdf.scale=0.5');
  const [w, h] = sized.info['Page size']!.split(' ')
    .filter((t) => /^[\d.]+$/.test(t))
    .map(Number);
  assert.ok(Math.abs(w! - 300) <= 1 && Math.abs(h! - 225) <= 1, `400x300 px is 300x225 pt: ${sized.info['Page size']}`);
  const beyond = await call(app.freeUrl, `url=${site('tall.html')}&pdf.pageRanges=90-99`);
  assert.is(beyond.status, 400);
  assert.is(beyond.body.code, 'EPAGERANGE');
  assert.match(beyond.body.message, new RegExp(`the document has ${a4.info.Pages} pages$`));
  const malformed = await call(app.freeUrl, `url=${site('tall.html')}&pdf.pageRanges=first`);
  assert.is(malformed.body.code, 'EPAGERANGE');
});

test('page controls: colour scheme, media type, JavaScript, click, scroll, waits, styles, scripts, modules, user agent', async () => {
  const white = await shot(`url=${site('controls.html')}&screenshot`);
  assert.equal(await pixel(white.bytes, 600, 400), [255, 255, 255]);
  const dark = await shot(`url=${site('controls.html')}&screenshot&colorScheme=dark`);
  assert.equal(await pixel(dark.bytes, 600, 400), [0, 0, 0]);
  const print = await shot(`url=${site('controls.html')}&screenshot&mediaType=print`);
  assert.equal(await pixel(print.bytes, 600, 400), [0, 255, 0]);
  const styled = await shot(
    `url=${site('controls.html')}&screenshot&styles=${q('body{background:rgb(1,2,3)!important}')}`,
  );
  assert.equal(await pixel(styled.bytes, 600, 400), [1, 2, 3]);
  const title = async (query: string) =>
    (await call(app.freeUrl, `url=${site('controls.html')}&prerender=true&force&${query}`)).body.data.title;
  assert.is(await title('userAgent=RefractTestAgent/1.0'), 'js:RefractTestAgent/1.0');
  assert.is(await title('javascript=false'), 'Controls', 'no script ran to retitle the page');
  assert.is(await title(`click=${q('#go')}`), 'clicked');
  assert.is(await title(`scripts=${q("document.title='from a script'")}`), 'from a script');
  assert.is(await title(`modules=${q("document.title='from a module'")}`), 'from a module');
  const waited = await call(
    app.freeUrl,
    `url=${site('controls.html?late=1')}&prerender=true&force&waitForSelector=${q('#late')}`,
  );
  assert.is(waited.body.data.title, 'late arrived', 'the page is read after the awaited element appeared');
  // #far is a 50 px blue band 3000 px down: out of the first view, in view once scrolled to.
  assert.is(await rowsOf(white.bytes, [0, 0, 255]), 0);
  const scrolled = await shot(`url=${site('controls.html')}&screenshot&scroll=${q('#far')}`);
  assert.is(await rowsOf(scrolled.bytes, [0, 0, 255]), 50);
  const missing = await call(app.freeUrl, `url=${site('controls.html')}&screenshot&click=${q('#nothing')}`);
  assert.is(missing.status, 400);
  assert.match(missing.body.message, /click/);
});

test('animations are stopped in captures unless asked for; waitUntil, waitForTimeout and touch emulation apply', async () => {
  const still = await shot(`url=${site('animated.html')}&screenshot`);
  assert.equal(await pixel(still.bytes, 100, 100), [0, 255, 0], 'an infinite animation is cancelled to the base style');
  const frozen = await shot(`url=${site('animated.html')}&screenshot&animations=false`);
  assert.equal(await pixel(frozen.bytes, 100, 100), [0, 255, 0]);
  const moving = await shot(`url=${site('animated.html')}&screenshot&animations=true`);
  const [r, g] = await pixel(moving.bytes, 100, 100);
  assert.ok(r! > 200 && g! < 50, `mid-animation red, got ${r},${g}`);
  const early = await call(
    app.freeUrl,
    `url=${site('slow.html')}&screenshot&waitUntil=domcontentloaded&timeout=8s&force`,
  );
  assert.is(early.status, 200, 'domcontentloaded does not wait for the hanging image');
  const waited = await call(app.freeUrl, `url=${site('tall.html')}&prerender=true&waitForTimeout=700&force`);
  assert.ok(
    Number.parseInt(waited.headers.get('x-fetch-time') ?? '0', 10) >= 700,
    `fetch time ${waited.headers.get('x-fetch-time')}`,
  );
  const touch = async (extra: string) =>
    (
      await call(
        app.freeUrl,
        `url=${site('tall.html')}&prerender=true&force&scripts=${q("document.title=String('ontouchstart' in window)")}${extra}`,
      )
    ).body.data.title;
  assert.is(await touch(''), 'false');
  assert.is(await touch('&viewport.has_touch=true&viewport.is_mobile=true'), 'true');
});

test('prerender=auto renders pages built in the browser and fetches static ones', async () => {
  const plain = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}&force`);
  assert.is(plain.headers.get('x-fetch-mode'), 'fetch');
  assert.match(plain.headers.get('x-prerender-reason') ?? '', /^static/);
  for (const [page, expected] of [
    ['csr-root.html', 'Rendered by script'],
    ['csr-fetch.html', 'Fetched title'],
    ['csr-custom.html', 'Custom element title'],
  ] as [string, string][]) {
    const { body, headers } = await call(app.freeUrl, `url=${site(page)}`);
    assert.is(headers.get('x-fetch-mode'), 'prerender', page);
    assert.ok(headers.get('x-prerender-reason'), `${page} says why`);
    assert.is(body.data.title, expected, page);
  }
  const fetched = await call(app.freeUrl, `url=${site('csr-fetch.html')}`);
  assert.is(fetched.body.data.description, 'Fetched description from JSON');
  const learned = await call(app.freeUrl, `url=${site('csr-root.html')}&force&v=2`);
  assert.is(learned.headers.get('x-prerender-reason'), 'host learned to need a browser');
  assert.is(learned.body.data.title, 'Rendered by script');
  const off = await call(app.freeUrl, `url=${site('csr-root.html')}&prerender=false&force`);
  assert.is(off.headers.get('x-fetch-mode'), 'fetch');
  assert.is(off.body.data.title, null);
});

test('a page read once built: a short page with scripts is read once quiet with its network idle, not held to the cap; without JavaScript, at once', async () => {
  const read = (page: string, extra = '') => call(app.freeUrl, `url=${site(page)}&prerender=true&force${extra}`);
  // Its DOM is still from load on, with nothing in flight: read then, well before its timer at 2.8 s (the cap is 3 s).
  const still = await read('short-timer.html');
  assert.is(still.headers.get('x-fetch-mode'), 'prerender');
  assert.is(still.body.data.title, 'Short');
  // Quiet too, but a request of its own is on its way (1.2 s): what it brings is read.
  const waiting = await read('short-fetch.html');
  assert.is(waiting.body.data.title, 'Late data title');
  // Without JavaScript nothing builds and no timer fires: read in the browser, not by the fallback after a hang.
  const off = await read('controls.html', '&javascript=false');
  assert.is(off.headers.get('x-fetch-mode'), 'prerender');
  assert.is(off.body.data.title, 'Controls');
  assert.not.ok(off.body.warnings?.length, JSON.stringify(off.body.warnings));
});

test('screenshot.animated records an H.264 MP4 of the requested duration', async () => {
  const { status, body } = await call(
    app.freeUrl,
    `url=${site('tall.html')}&meta=false&screenshot.animated.duration=2s&screenshot.animated.fps=10`,
  );
  assert.is(status, 200, JSON.stringify(body).slice(0, 200));
  const clip = body.data.screenshot;
  assert.equal([clip.type, clip.width, clip.height], ['mp4', 1280, 800]);
  assert.ok(Math.abs(clip.duration - 2) < 0.25, `duration ${clip.duration}`);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'refract-mp4-')), 'c.mp4');
  writeFileSync(file, await asset(clip.url));
  const probe = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], {
      encoding: 'utf8',
    }),
  );
  assert.is(probe.streams[0].codec_name, 'h264');
  assert.is(probe.streams[0].r_frame_rate, '10/1');
  assert.ok(Math.abs(Number(probe.format.duration) - 2) < 0.25);
  const combined = await call(app.freeUrl, `url=${site('tall.html')}&screenshot.animated&pdf`);
  assert.is(combined.status, 400);
});

test('screenshot.overlay composes a browser frame over a colour, gradient or image background', async () => {
  const framed = await shot(
    `url=${site('clear.html')}&screenshot.overlay.browser=dark&screenshot.overlay.background=${q('rgb(255,200,0)')}`,
  );
  const pad = Math.round(1280 * 0.08);
  assert.equal([framed.meta.width, framed.meta.height], [1280 + 2 * pad, 800 + 40 + 2 * pad]);
  assert.equal(await pixel(framed.bytes, 5, 5), [255, 200, 0]);
  assert.equal(await pixel(framed.bytes, pad + 200, pad + 30), [43, 43, 46], 'dark title bar');
  const gradient = await shot(
    `url=${site('clear.html')}&screenshot.overlay.background=${q('linear-gradient(90deg, #ff0000, #0000ff)')}`,
  );
  const [left, right] = [
    await pixel(gradient.bytes, 2, 300),
    await pixel(gradient.bytes, gradient.meta.width! - 3, 300),
  ];
  assert.ok(left[0]! > 200 && left[2]! < 50 && right[2]! > 200 && right[0]! < 50, `red to blue: ${left} ${right}`);
  const image = await shot(
    `url=${site('clear.html')}&screenshot.overlay.background=${q(`${fx.url}/sites/article/images/hero.png`)}`,
  );
  assert.equal(await pixel(image.bytes, 5, 5), [30, 90, 200]);
  const bad = await call(app.freeUrl, `url=${site('clear.html')}&screenshot.overlay.background=${q('not-a-colour')}`);
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'EINVALOVERLAYBG');
  // A device given as the screenshot's value is kept beside the dotted overlay (it was dropped: a 1484x1044 desktop frame).
  const phone = await shot(`url=${site('clear.html')}&screenshot=${q('iphone 12')}&screenshot.overlay.browser=dark`);
  assert.is(
    phone.meta.width,
    390 * 3,
    'the iPhone 12 viewport (390 CSS px at 3x) in its frame (no background: no padding)',
  );
  assert.ok(phone.meta.height! > phone.meta.width!, `portrait: ${phone.meta.width}x${phone.meta.height}`);
});

test('the page area of an overlay is opaque: white where the page sets no background, never the backdrop showing through', async () => {
  const pad = Math.round(1280 * 0.08);
  const red = await shot(`url=${site('clear.html')}&screenshot.overlay.background=${q('#ff0000')}`);
  assert.equal(await pixel(red.bytes, 5, 5), [255, 0, 0], 'the backdrop');
  assert.equal(await pixel(red.bytes, pad + 50, pad + 50), [0, 0, 255], "the page's own blue box");
  assert.equal(await pixel(red.bytes, pad + 600, pad + 400), [255, 255, 255], 'white page, not the red backdrop');
  const dark = await shot(`url=${site('clear.html')}&screenshot.overlay.browser=dark`);
  assert.equal(await pixel(dark.bytes, 600, 40 + 400), [255, 255, 255], 'a white page under a dark frame');
  const gradient = await shot(
    `url=${site('clear.html')}&screenshot.overlay.background=${q('linear-gradient(to right, rgb(255,0,0) 0%, rgba(0,0,255,1) 100%)')}`,
  );
  const [left, right] = [
    await pixel(gradient.bytes, 2, 300),
    await pixel(gradient.bytes, gradient.meta.width! - 3, 300),
  ];
  assert.ok(
    left[0]! > 200 && left[2]! < 50 && right[2]! > 200 && right[0]! < 50,
    `a side keyword and stop positions render: ${left} ${right}`,
  );
});

test('adblock drops trackers and dismisses cookie banners; on by default on the free endpoint', async () => {
  const before = fx.hits.filter((h) => h.includes('addthis_widget')).length;
  const on = await call(app.freeUrl, `url=${site('ads.html')}&screenshot&force`);
  assert.is(on.status, 200);
  assert.is(
    fx.hits.filter((h) => h.includes('addthis_widget')).length,
    before,
    'the tracker script was never requested',
  );
  assert.is(on.body.data.title, 'declined', 'the cookie banner was answered with an opt-out');
  const shotOn = await sharp(await asset(on.body.data.screenshot.url))
    .raw()
    .toBuffer({ resolveWithObject: true });
  const bottom = (shotOn.info.height - 40) * shotOn.info.width * shotOn.info.channels;
  assert.is.not([...shotOn.data.subarray(bottom, bottom + 3)].join(), '255,0,255', 'no banner in the capture');
  const off = await call(app.freeUrl, `url=${site('ads.html')}&screenshot&adblock=false&force`);
  assert.is(off.body.data.title, 'Ads and consent');
  assert.is(fx.hits.filter((h) => h.includes('addthis_widget')).length, before + 1, 'without adblock the script loads');
});

test('a JSON target is captured highlighted with codeScheme', async () => {
  const dark = await shot(`url=${site('data.json')}&screenshot`);
  assert.equal(await pixel(dark.bytes, 3, 3), [40, 44, 52], 'atom-one-dark by default');
  const light = await shot(`url=${site('data.json')}&screenshot.codeScheme=github`);
  assert.equal(await pixel(light.bytes, 3, 3), [255, 255, 255]);
  const stats = await sharp(light.bytes).stats();
  assert.ok(stats.channels[0]!.min < 100, 'there is dark text on it');
  const bad = await call(app.freeUrl, `url=${site('data.json')}&screenshot.code_scheme=neon-nights`);
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /unknown theme/);
});

test('WebP and AVIF: encoded from the capture with quality honoured, transparency kept, framed, embedded', async () => {
  const webp = await shot(`url=${site('tall.html')}&screenshot.type=webp&screenshot.quality=90`);
  const smallWebp = await shot(`url=${site('tall.html')}&screenshot.type=webp&screenshot.quality=10`);
  assert.is(webp.bytes.subarray(0, 4).toString(), 'RIFF');
  assert.is(webp.bytes.subarray(8, 12).toString(), 'WEBP');
  assert.equal([webp.media.type, webp.meta.format], ['webp', 'webp']);
  assert.match(webp.media.url, /\.webp$/);
  assert.ok(smallWebp.bytes.length < webp.bytes.length, 'lower quality, fewer bytes');
  assert.equal([webp.meta.width, webp.meta.height], [1280, 800]);
  const avif = await shot(`url=${site('tall.html')}&screenshot.type=avif&screenshot.quality=80`);
  const smallAvif = await shot(`url=${site('tall.html')}&screenshot.type=avif&screenshot.quality=5`);
  assert.is(avif.bytes.subarray(4, 12).toString(), 'ftypavif');
  assert.equal([avif.media.type, avif.meta.format, avif.meta.compression], ['avif', 'heif', 'av1']);
  assert.ok(smallAvif.bytes.length < avif.bytes.length, 'lower quality, fewer bytes');
  // The red card of the page survives lossy encoding within a few levels.
  const [r, g, b] = await pixel(webp.bytes, 150, 120);
  assert.ok(r! > 185 && g! < 50 && b! < 50, `red card in the WebP: ${[r, g, b]}`);
  // A page with no background of its own stays transparent, as in a PNG.
  const clear = await shot(`url=${site('clear.html')}&screenshot.type=webp`);
  assert.is(clear.meta.hasAlpha, true);
  assert.is((await sharp(clear.bytes).stats()).channels[3]!.min, 0, 'transparent background');
  // Composed over an overlay, then encoded: the answer is still the format asked for.
  const framed = await shot(
    `url=${site('clear.html')}&screenshot.type=avif&screenshot.overlay.browser=dark&screenshot.overlay.background=${q('rgb(255,200,0)')}`,
  );
  assert.is(framed.media.type, 'avif');
  const [fr, fg, fb] = await pixel(framed.bytes, 5, 5);
  assert.ok(Math.abs(fr! - 255) < 8 && Math.abs(fg! - 200) < 8 && fb! < 8, `backdrop ${[fr, fg, fb]}`);
  const embedded = await call(app.freeUrl, `url=${site('clear.html')}&screenshot.type=avif&embed=screenshot.url`);
  assert.is(embedded.headers.get('content-type'), 'image/avif');
  assert.is(embedded.raw.subarray(4, 12).toString(), 'ftypavif');
  const png = await call(app.freeUrl, `url=${site('tall.html')}&screenshot.type=png&screenshot.quality=50`);
  assert.is(png.status, 400, 'quality is for the lossy formats');
  assert.match(png.body.message, /jpeg, webp and avif/);
});

test('embed answers a screenshot or a PDF with its bytes', async () => {
  const png = await call(app.freeUrl, `url=${site('clear.html')}&screenshot&embed=screenshot.url`);
  assert.is(png.status, 200);
  assert.is(png.headers.get('content-type'), 'image/png');
  assert.equal([...png.raw.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const pdf = await call(app.freeUrl, `url=${site('clear.html')}&pdf&embed=pdf.url`);
  assert.is(pdf.headers.get('content-type'), 'application/pdf');
  assert.is(pdf.raw.subarray(0, 5).toString(), '%PDF-');
});

test('a prerender past its budget falls back to the plain fetch', async () => {
  const slow = await startRefract({ REFRACT_PRERENDER_BUDGET: '800ms' });
  try {
    const { status, body, headers } = await call(slow.freeUrl, `url=${q(`${fx.url}/sites/browser/csr-hang.html`)}`);
    assert.is(status, 200);
    assert.is(headers.get('x-fetch-mode'), 'fetch');
    assert.match(headers.get('x-prerender-reason') ?? '', /^prerender failed/);
    assert.is(body.data.title, 'Static title of a hanging app');
  } finally {
    await slow.close();
  }
});

test('browser subrequests pass the SSRF guard', async () => {
  const { status, body } = await call(app.freeUrl, `url=${q(`${fx.url}/beacon.html`)}&screenshot&force`);
  assert.is(status, 200);
  assert.is(body.data.title, 'Beacon');
  assert.equal(other.hits, [], 'nothing reached the private host');
});

test('navigation past its share: a page that arrived is captured as rendered (with a warning); one that never arrives is EBRWSRTIMEOUT', async () => {
  const partial = await call(app.freeUrl, `url=${site('slow.html')}&screenshot&timeout=1500`);
  assert.is(partial.status, 200, JSON.stringify(partial.body).slice(0, 300));
  assert.is(partial.body.warnings[0].plugin, 'navigation');
  const { status, body } = await call(
    app.freeUrl,
    `url=${q(`${fx.url}/hang.png?as-document`)}&screenshot&timeout=1500`,
  );
  assert.is(status, 408);
  assert.ok(['EBRWSRTIMEOUT', 'ETIMEOUT'].includes(body.code), body.code);
});

test.run();
