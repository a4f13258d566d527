import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
let slowHits = 0;

test.before(async () => {
  fx = await serveFixtures({
    '/redirect/1': (_, res) => {
      res.writeHead(301, { location: '/redirect/2' });
      res.end();
    },
    '/redirect/2': (_, res) => {
      res.writeHead(302, { location: `${fx.url}/sites/article/index.html` });
      res.end();
    },
    '/loop': (_, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
    '/latin1': async (_, res) => {
      const { readFile } = await import('node:fs/promises');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(await readFile(new URL('../../fixtures/sites/article/latin1.html', import.meta.url)));
    },
    '/slow': (_, res) => {
      slowHits++;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>late</title>');
      }, 3000).unref();
    },
    '/counted': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>counted ${Date.now()}</title>`);
    },
    '/clip.mp4': (_, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '2048' });
      res.end(Buffer.alloc(2048));
    },
    '/doc.pdf': (_, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end('%PDF-1.4\n%%EOF\n');
    },
    '/to-private': (_, res) => {
      res.writeHead(302, { location: `http://127.0.0.2:${fx.port}/` });
      res.end();
    },
  });
  app = await startRefract();
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('a static article yields every metadata field, the status, headers and redirects', async () => {
  const { status, body, headers } = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}`);
  assert.is(status, 200);
  assert.is(body.status, 'success');
  const d = body.data;
  assert.is(d.title, 'The man who built a & firm in his basement');
  assert.is(d.description, 'How an IT worker quit his day job and built a company.');
  assert.is(d.author, 'Jane Doe');
  assert.is(d.publisher, 'Daily Fixture Ltd', 'structured data names the publisher first');
  assert.is(d.date, '2017-07-14T20:28:07.000Z');
  assert.is(d.lang, 'en');
  assert.is(d.url, `${fx.url}/news/article`);
  assert.equal(d.image, {
    url: `${fx.url}/sites/article/images/hero.png`,
    type: 'png',
    size: 3161,
    size_pretty: '3.16 kB',
    width: 1200,
    height: 630,
  });
  assert.is(
    d.logo.url,
    `${fx.url}/sites/article/images/apple-touch-icon.png`,
    'the largest icon beats a logo of undeclared size',
  );
  assert.is(d.logo.width, 180);
  assert.is(d.video, null, 'video is detected only when asked');
  assert.is(d.audio, null, 'audio is detected only when asked');
  assert.is(d.statusCode, 200);
  assert.is(d.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(d.redirects, []);
  assert.is(headers.get('x-fetch-mode'), 'fetch');
  assert.match(headers.get('x-fetch-time') ?? '', /^\d+ms$/);
  assert.is(headers.get('x-pricing-plan'), 'free');
  assert.ok(headers.get('x-request-id'));
  assert.is(headers.get('access-control-allow-origin'), '*');
  for (const h of ['x-rate-limit-limit', 'x-rate-limit-remaining', 'x-rate-limit-reset'])
    assert.match(headers.get(h) ?? '', /^\d+$/);
});

test('audio and video are detected when asked', async () => {
  const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}&audio&video=true`);
  const { video, audio } = body.data;
  assert.is(video.url, `${fx.url}/sites/article/media/clip.mp4`);
  assert.is(video.type, 'mp4');
  assert.equal([video.width, video.height], [320, 240]);
  assert.ok(Math.abs(video.duration - 2) < 0.2, `video duration ${video.duration}`);
  assert.match(video.duration_pretty, /^2(\.\d)?s$/);
  assert.is(video.size, 10912);
  assert.is(audio.url, `${fx.url}/sites/article/media/episode.mp3`);
  assert.is(audio.type, 'mp3');
  assert.ok(Math.abs(audio.duration - 3) < 0.2, `audio duration ${audio.duration}`);
  assert.is(audio.size, 12348);
});

test('the redirect chain is reported and the final page is described', async () => {
  const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/redirect/1`)}`);
  assert.equal(body.data.redirects, [
    { statusCode: 301, url: `${fx.url}/redirect/1` },
    { statusCode: 302, url: `${fx.url}/redirect/2` },
  ]);
  assert.is(body.data.title, 'The man who built a & firm in his basement');
});

test('a 404 target is still a success carrying its status code', async () => {
  const { status, body } = await call(app.freeUrl, `url=${q(`${fx.url}/nope`)}`);
  assert.is(status, 200);
  assert.is(body.status, 'success');
  assert.is(body.data.statusCode, 404);
  assert.is(body.data.title, 'Not found');
});

test('an image target is described as media with its dimensions', async () => {
  const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/sites/media/red-64x48.png`)}`);
  assert.is(body.data.image.type, 'png');
  assert.is(body.data.image.width, 64);
  assert.is(body.data.image.height, 48);
  // The file's exact byte count.
  assert.is(
    body.data.image.size,
    readFileSync(new URL('../../fixtures/sites/media/red-64x48.png', import.meta.url)).length,
  );
  assert.match(body.data.image.size_pretty, /B$/);
  assert.is(body.data.title, 'red-64x48.png');
});

test('video and PDF targets are described instead of failing', async () => {
  const video = await call(app.freeUrl, `url=${q(`${fx.url}/clip.mp4`)}`);
  assert.is(video.body.status, 'success');
  assert.equal(video.body.data.video, { url: `${fx.url}/clip.mp4`, type: 'mp4', size: 2048, size_pretty: '2.05 kB' });
  assert.is(video.body.data.title, 'clip.mp4');
  const pdf = await call(app.freeUrl, `url=${q(`${fx.url}/doc.pdf`)}`);
  assert.is(pdf.body.status, 'success');
  assert.is(pdf.body.data.title, 'doc.pdf');
  assert.is(pdf.body.data.headers['content-type'], 'application/pdf');
});

test('a legacy charset declared in the document is decoded', async () => {
  const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/latin1`)}`);
  assert.is(body.data.title, 'Café crème');
  assert.is(body.data.lang, 'fr');
});

test('a slow target answers ETIMEOUT (408) within the timeout', async () => {
  const { status, body } = await call(app.freeUrl, `url=${q(`${fx.url}/slow`)}&timeout=500ms`);
  assert.is(status, 408);
  assert.is(body.code, 'ETIMEOUT');
  assert.match(body.message, /reached its timeout of 500ms \(`timeout`, 500 ms from its arrival\)/, 'which limit');
  assert.equal(body.data, { timeout: 500 });
  assert.is(body.status, 'fail');
  assert.is(slowHits, 1);
});

test('more than 10 redirects gives EMAXREDIRECTS, fetched or in the browser', async () => {
  for (const extra of ['', '&screenshot&meta=false', '&prerender=true']) {
    const { status, body } = await call(app.freeUrl, `url=${q(`${fx.url}/loop`)}${extra}&force`);
    assert.is(status, 400, extra);
    assert.is(body.code, 'EMAXREDIRECTS', extra);
  }
});

test('a redirect to a private address is refused', async () => {
  const { status, body } = await call(app.freeUrl, `url=${q(`${fx.url}/to-private`)}`);
  assert.is(status, 403);
  assert.is(body.code, 'EFORBIDDENURL');
});

test('MISS then HIT, and force regenerates with BYPASS', async () => {
  const url = `url=${q(`${fx.url}/counted`)}`;
  const first = await call(app.freeUrl, url);
  const second = await call(app.freeUrl, `${url}&utm_source=x`.replace('utm_source=x', 'utm_source=newsletter'));
  assert.is(first.headers.get('x-cache-status'), 'MISS');
  assert.is(second.headers.get('x-cache-status'), 'HIT');
  assert.is(second.body.data.title, first.body.data.title);
  assert.match(second.headers.get('cache-control') ?? '', /max-age=\d+/);
  assert.match(second.headers.get('x-cache-expired-at') ?? '', /^\d+(h|m|s|ms)$/);
  const forced = await call(app.freeUrl, `${url}&force`);
  assert.is(forced.headers.get('x-cache-status'), 'BYPASS');
  assert.is.not(forced.body.data.title, first.body.data.title);
  const after = await call(app.freeUrl, url);
  assert.is(after.headers.get('x-cache-status'), 'HIT');
  assert.is(after.body.data.title, forced.body.data.title);
});

test('the cache key ignores parameter order and case style', async () => {
  const target = q(`${fx.url}/sites/article/index.html`);
  await call(app.freeUrl, `url=${target}&prerender=false&userAgent=abc`);
  const again = await call(app.freeUrl, `user_agent=abc&prerender=false&url=${target}`);
  assert.is(again.headers.get('x-cache-status'), 'HIT');
});

test('identical concurrent requests share one computation', async () => {
  const before = fx.hits.filter((h) => h.startsWith('/counted?c')).length;
  const url = `url=${q(`${fx.url}/counted?c=1`)}`;
  const results = await Promise.all(Array.from({ length: 5 }, () => call(app.freeUrl, url)));
  assert.is(fx.hits.filter((h) => h.startsWith('/counted?c')).length - before, 1);
  assert.is(new Set(results.map((r) => r.body.data.title)).size, 1);
});

test('filter keeps only the listed paths', async () => {
  const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}&filter=title,image.url`);
  assert.equal(body.data, {
    title: 'The man who built a & firm in his basement',
    image: { url: `${fx.url}/sites/article/images/hero.png` },
  });
});

test('embed answers a text field raw and a media url with the asset bytes', async () => {
  const text = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}&embed=title`);
  assert.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.is(text.raw.toString(), 'The man who built a & firm in his basement');
  const image = await call(app.freeUrl, `url=${q(`${fx.url}/sites/media/red-64x48.png`)}&embed=image.url`);
  assert.is(image.headers.get('content-type'), 'image/png');
  assert.equal([...image.raw.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const missing = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html`)}&embed=nothing.here`);
  assert.is(missing.status, 400);
  assert.is(missing.body.code, 'EINVALQUERY');
});

test('HITs of one entry answer each variant its own bytes, made once: full, filtered, embedded, compressed', async () => {
  const url = `url=${q(`${fx.url}/counted?variants=1`)}`;
  const full = await call(app.freeUrl, url);
  const title = full.body.data.title as string;
  const variants = async () => {
    const [whole, onlyTitle, onlyUrl, embedded, br] = await Promise.all([
      call(app.freeUrl, url),
      call(app.freeUrl, `${url}&filter=title`),
      call(app.freeUrl, `${url}&filter=url`),
      call(app.freeUrl, `${url}&embed=title`),
      fetch(`${app.freeUrl}/?${url}`, { headers: { 'accept-encoding': 'br' } }).then(async (r) => ({
        enc: r.headers.get('content-encoding'),
        body: await r.text(),
      })),
    ]);
    for (const r of [whole, onlyTitle, onlyUrl, embedded]) assert.is(r.headers.get('x-cache-status'), 'HIT');
    assert.equal(onlyTitle.body.data, { title: whole.body.data.title });
    assert.equal(onlyUrl.body.data, { url: whole.body.data.url });
    assert.is(embedded.raw.toString(), whole.body.data.title);
    assert.is(br.body, whole.raw.toString(), 'fetch decodes the compressed body to the same bytes');
    assert.is.not(whole.headers.get('etag'), onlyTitle.headers.get('etag'));
    return { whole, onlyTitle };
  };
  const first = await variants();
  assert.is(first.whole.body.data.title, title);
  const again = await variants();
  assert.is(again.whole.headers.get('etag'), first.whole.headers.get('etag'));
  assert.is(again.onlyTitle.headers.get('etag'), first.onlyTitle.headers.get('etag'));
  // A new entry (forced) is answered by every variant at once, never a body rendered from the old one.
  const forced = await call(app.freeUrl, `${url}&force`);
  assert.is.not(forced.body.data.title, title);
  const after = await variants();
  assert.is(after.whole.body.data.title, forced.body.data.title);
  assert.is(after.onlyTitle.body.data.title, forced.body.data.title);
  assert.is.not(after.whole.headers.get('etag'), first.whole.headers.get('etag'));
});

test('a request head over 64 KB, or one that is not HTTP, is answered in JSend with a code, never a reset', async () => {
  const net = await import('node:net');
  const { port } = new URL(app.freeUrl);
  const raw = (head: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
      });
      // Not half-closed: a client that stops sending before it reads gets no answer from node:http.
      socket.write(head);
    });
  const page = q(`${fx.url}/sites/article/index.html`);
  const get = (pad: number) =>
    `GET /?url=${page}&prerender=false&pad=${'a'.repeat(pad)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`;
  const within = await raw(get(40 * 1024));
  assert.is(within.status, 200);
  assert.is(JSON.parse(within.body).status, 'success');
  for (const pad of [100 * 1024, 1024 * 1024]) {
    const over = await raw(get(pad));
    assert.is(over.status, 431, `${pad}`);
    assert.equal([JSON.parse(over.body).status, JSON.parse(over.body).code], ['fail', 'ETOOLARGE']);
    assert.match(JSON.parse(over.body).more, /\/docs\/errors#etoolarge$/);
  }
  const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
  assert.is(garbage.status, 400);
  assert.is(JSON.parse(garbage.body).code, 'EINVALQUERY');
});

test('responses are compressed with brotli or gzip on request', async () => {
  const url = `${app.freeUrl}/?url=${q(`${fx.url}/sites/article/index.html`)}`;
  const http = await import('node:http');
  const raw = (encoding: string) =>
    new Promise<{ enc: string | undefined; body: Buffer }>((resolve, reject) => {
      http
        .get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
  const br = await raw('gzip, br');
  assert.is(br.enc, 'br');
  assert.is(JSON.parse(zlib.brotliDecompressSync(br.body).toString()).status, 'success');
  const gz = await raw('gzip');
  assert.is(gz.enc, 'gzip');
  assert.is(JSON.parse(zlib.gunzipSync(gz.body).toString()).status, 'success');
  const plain = await raw('identity');
  assert.is(plain.enc, undefined);
  assert.ok(plain.body.length > br.body.length);
  // q-values are honoured: an encoding refused with q=0 is never used, and the higher q wins.
  const notBr = await raw('br;q=0, gzip');
  assert.is(notBr.enc, 'gzip');
  assert.is(JSON.parse(zlib.gunzipSync(notBr.body).toString()).status, 'success');
  assert.is((await raw('gzip;q=0.9, br;q=0.5')).enc, 'gzip');
  assert.is((await raw('gzip;q=0, br;q=0')).enc, undefined);
});

test('unknown parameters are accepted and named in x-refract-unknown-params', async () => {
  const page = q(`${fx.url}/sites/article/index.html`);
  const typo = await call(app.freeUrl, `url=${page}&screenshoot=true&meta.foo=1&colour_scheme=dark&h%C3%A9%0A=1`);
  assert.is(typo.status, 200);
  assert.is(typo.headers.get('x-refract-unknown-params'), 'screenshoot, colourScheme, h%C3%A9%0A, meta.foo');
  // Nested typos are named too: an output's options and the general options' own keys.
  const nested = await call(
    app.freeUrl,
    `url=${page}&screenshot.fulPage=true&screenshot.duration=20s&viewport.widht=3&pdf.margin.top=1cm&pdf.margin.tpo=2cm&meta=false&screenshot=false&pdf=false`,
  );
  assert.is(nested.status, 200, JSON.stringify(nested.body).slice(0, 200));
  assert.is(
    nested.headers.get('x-refract-unknown-params'),
    'screenshot.fulPage, screenshot.duration, viewport.widht, pdf.margin.tpo',
  );
  // Without the typo nothing is named; known names in snake_case are known.
  const clean = await call(
    app.freeUrl,
    `url=${page}&color_scheme=dark&palette=false&screenshot.full_page=false&screenshot.overlay.browser=dark&screenshot=false&data.x.selector=h1`,
  );
  assert.is(clean.status, 200);
  assert.is(clean.headers.get('x-refract-unknown-params'), null);
});

test('a nested __proto__ key is a plain name: it pollutes nothing and the next browser request still answers', async () => {
  const page = `${fx.url}/sites/article/index.html`;
  const first = await call(app.freeUrl, `url=${q(page)}&a.__proto__.pp.0=x&constructor.prototype.qq=1`);
  assert.is(first.status, 200);
  assert.is(({} as Record<string, unknown>).pp, undefined);
  assert.is(({} as Record<string, unknown>).qq, undefined);
  // This request killed the process (Playwright's header code met the polluted prototype).
  const second = await call(app.freeUrl, `url=${q(`${page}?v=9`)}&screenshot&meta=false`);
  assert.is(second.status, 200, JSON.stringify(second.body));
  assert.match(second.body.data.screenshot.url, /\.png$/);
});

test('HEAD answers the headers without a body; OPTIONS allows CORS', async () => {
  const head = await fetch(`${app.freeUrl}/?url=${q(`${fx.url}/sites/article/index.html`)}`, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is((await head.arrayBuffer()).byteLength, 0);
  assert.ok(head.headers.get('x-cache-status'));
  const pre = await fetch(`${app.freeUrl}/`, { method: 'OPTIONS' });
  assert.is(pre.status, 204);
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET/);
});

/** The Server-Timing header as name → duration (ms). */
function timings(header: string | null): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([^;\s]+);dur=([\d.]+)\s*$/.exec(part);
    assert.ok(m, `a malformed Server-Timing metric: "${part}"`);
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

test('Server-Timing says where a MISS spent its time, a HIT only its lookup, a failure its total', async () => {
  const url = `url=${q(`${fx.url}/sites/article/index.html?timing=${Date.now()}`)}`;
  const miss = await call(app.freeUrl, url);
  assert.is(miss.headers.get('x-cache-status'), 'MISS');
  const m = timings(miss.headers.get('server-timing'));
  for (const name of ['cache', 'quota', 'queue', 'fetch', 'step.meta', 'store', 'body', 'total'])
    assert.ok(m.has(name), `MISS reports ${name}: ${miss.headers.get('server-timing')}`);
  assert.ok(m.get('total')! >= m.get('fetch')! + m.get('step.meta')!, 'the total covers the phases inside it');
  const hit = await call(app.freeUrl, url);
  assert.is(hit.headers.get('x-cache-status'), 'HIT');
  const h = timings(hit.headers.get('server-timing'));
  assert.equal(
    [...h.keys()].filter((k) => k !== 'compress'),
    ['cache', 'body', 'total'],
    'a HIT did no fetch, no steps and paid no quota',
  );
  const bad = await call(app.freeUrl, 'url=notaurl');
  assert.is(bad.status, 400);
  assert.ok(timings(bad.headers.get('server-timing')).has('total'));
  const shot = await call(
    app.freeUrl,
    `url=${q(`${fx.url}/sites/article/index.html?timing-shot=${Date.now()}`)}&screenshot&meta=false&adblock=false`,
  );
  assert.is(shot.status, 200);
  const s = timings(shot.headers.get('server-timing'));
  for (const name of ['page', 'navigate', 'content', 'step.screenshot'])
    assert.ok(s.has(name), `a browser request reports ${name}: ${shot.headers.get('server-timing')}`);
  assert.not.ok(s.has('consent'), 'no banner handling was asked for');
});

test.run();
