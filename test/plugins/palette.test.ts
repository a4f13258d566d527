import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { serveFixtures, sendBytes, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';
import { contrast } from '../../plugins/palette/contrast.ts';
import { definePlugin, options } from '../../engine/index.ts';

let fx: Fixture;
let app: Handlers;

/** A PNG of horizontal bands: [hex colour, height in pixels] from top to bottom. */
async function bands(width: number, rows: [string, number][]): Promise<Buffer> {
  const height = rows.reduce((a, [, h]) => a + h, 0);
  const raw = Buffer.alloc(width * height * 3);
  let y = 0;
  for (const [hex, h] of rows) {
    const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    for (let row = y; row < y + h; row++) for (let x = 0; x < width; x++) raw.set(rgb, (row * width + x) * 3);
    y += h;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A smooth two-axis gradient as JPEG: thousands of colours, so the palette is quantized. */
async function gradient(): Promise<Buffer> {
  const width = 200;
  const height = 120;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      raw.set([Math.round((x / width) * 255), Math.round((y / height) * 255), 96], (y * width + x) * 3);
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

test.before(async () => {
  const hero = await bands(100, [
    ['#ffffff', 70],
    ['#111111', 20],
    ['#ff0000', 10],
  ]);
  const logo = await bands(32, [['#ffcc00', 32]]);
  const photo = await gradient();
  const image =
    (bytes: Buffer, type: string) =>
    (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) =>
      sendBytes(req, res, bytes, type);
  const html = (body: string) => (_: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };
  fx = await serveFixtures({
    '/hero.png': image(hero, 'image/png'),
    '/logo.png': image(logo, 'image/png'),
    '/photo.jpg': image(photo, 'image/jpeg'),
    '/page': html(
      '<html><head><title>Colours</title><meta property="og:image" content="/hero.png"><link rel="icon" href="/logo.png"></head><body><p>A page about colours with enough words to be static.</p></body></html>',
    ),
    '/photo': html(
      '<html><head><title>Photo</title><meta property="og:image" content="/photo.jpg"></head><body><p>A photo page.</p></body></html>',
    ),
    '/white': html(
      '<html><head><title>White</title></head><body><h1>A white page</h1><p>With a paragraph of dark text, a <a href="/x">link</a> and nothing else to see, as most articles are.</p></body></html>',
    ),
    '/blue': html(
      '<html><head><title>Blue</title><style>html,body{margin:0;background:#1e90ff}</style></head><body></body></html>',
    ),
  });
  app = await startHandlers();
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('palette of the image and logo: exact colours by dominance, WCAG-chosen background and text colours', async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/page`)}&palette`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const { image, logo } = res.body.data;
  assert.equal(image.palette, ['#ffffff', '#111111', '#ff0000']);
  assert.is(image.background_color, '#ffffff');
  assert.is(image.color, '#111111');
  assert.is(image.alternative_color, '#ff0000');
  assert.ok(contrast(image.background_color, image.color) >= 4.5);
  // One colour: paired with black or white, whichever reads better on it (black on yellow).
  assert.equal(logo.palette, ['#ffcc00']);
  assert.is(logo.background_color, '#ffcc00');
  assert.is(logo.color, '#000000');
  // Without palette=true the Media objects carry none of it.
  const plain = await call(app.free, `url=${q(`${fx.url}/page`)}`);
  assert.is(plain.body.data.image.palette, undefined);
  assert.is(plain.body.data.palette, undefined);
});

test('a photo is quantized: a few hex colours, most dominant first, the same on every run', async () => {
  const first = await call(app.free, `url=${q(`${fx.url}/photo`)}&palette=true`);
  const again = await call(app.free, `url=${q(`${fx.url}/photo`)}&palette=true&force=true`);
  const { palette, background_color: bg, color, alternative_color: alt } = first.body.data.image;
  assert.ok(palette.length >= 3 && palette.length <= 6, JSON.stringify(palette));
  for (const c of palette) assert.match(c, /^#[0-9a-f]{6}$/);
  assert.equal(again.body.data.image.palette, palette);
  assert.ok(palette.includes(bg) && palette.includes(color) && palette.includes(alt));
  assert.is.not(bg, color);
  // The text colour is the best the palette offers over that background.
  for (const c of palette) if (c !== bg) assert.ok(contrast(bg, color) >= contrast(bg, c));
});

test('the screenshot gets a palette too (its dominant colour is the page background)', async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/blue`)}&screenshot=true&palette=true&meta=false`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const shot = res.body.data.screenshot;
  assert.is(shot.palette[0], '#1e90ff');
  assert.is(shot.background_color, '#1e90ff');
});

test('a WebP or AVIF screenshot gets its palette too', async () => {
  for (const type of ['webp', 'avif']) {
    const res = await call(app.free, `url=${q(`${fx.url}/blue`)}&screenshot.type=${type}&palette=true&meta=false`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    const shot = res.body.data.screenshot;
    assert.is(shot.type, type);
    // Lossy encoding moves a flat colour by a level or two at most.
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(shot.background_color.slice(i, i + 2), 16));
    assert.ok(Math.abs(r! - 0x1e) <= 4 && Math.abs(g! - 0x90) <= 4 && Math.abs(b! - 0xff) <= 4, shot.background_color);
  }
});

test("a white page: white is its palette's first colour and its background, the text dark over it", async () => {
  const res = await call(app.free, `url=${q(`${fx.url}/white`)}&screenshot=true&palette=true&meta=false`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const shot = res.body.data.screenshot;
  assert.is(shot.palette[0], '#ffffff', JSON.stringify(shot.palette));
  assert.is(shot.background_color, '#ffffff');
  assert.ok(contrast(shot.background_color, shot.color) >= 4.5, `${shot.color} over ${shot.background_color}`);
});

test("enrichers compose: a third-party plugin's image gets a palette and is pinged, and no producer's object is changed", async () => {
  const seen: unknown[] = [];
  const thumbs = definePlugin({
    name: 'thumbs',
    description: 'A third-party output of two images (registered after the built-in enrichers).',
    needs: 'http',
    params: options({}),
    run: () => {
      const out = { url: `${fx.url}/logo.png`, type: 'png' };
      seen.push(out);
      return out;
    },
  });
  const gone = definePlugin({
    name: 'gone',
    description: 'An image that does not answer.',
    needs: 'http',
    params: options({}),
    run: () => ({ url: `${fx.url}/missing.png`, type: 'png' }),
  });
  const other = await startHandlers({}, [thumbs, gone]);
  try {
    const res = await call(other.free, `url=${q(`${fx.url}/page`)}&thumbs&gone&palette&ping`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.thumbs.palette, ['#ffcc00'], 'a plugin registered after palette still gets one');
    assert.is(res.body.data.gone, null, 'ping ran after it too');
    assert.equal(res.body.data.image.palette, ['#ffffff', '#111111', '#ff0000']);
    assert.equal(seen[0], { url: `${fx.url}/logo.png`, type: 'png' }, "the producer's own object was not changed");
  } finally {
    await other.close();
  }
});

test("libvips' operation cache is off once the plugins are loaded (a service meets each image once; the cache held up to 50 MB)", async () => {
  assert.is((await call(app.free, `url=${q(`${fx.url}/photo`)}&palette`)).status, 200);
  const { memory, items } = sharp.cache() as { memory: { max: number }; items: { max: number } };
  assert.is(memory.max, 0);
  assert.is(items.max, 0);
});

test.run();
