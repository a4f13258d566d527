import { test } from 'uvu';
import sharp from 'sharp';
import * as assert from 'uvu/assert';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handle, type Handlers } from '../util/refract.ts';

// A page that leaves everything a later request on the same site could read: cookies, local and session storage,
// IndexedDB, Cache Storage, the window's name, a granted permission is not possible headless (none to grant).
const PLANT = `<title>planting</title><script>
  document.cookie = 'planted=1; max-age=3600';
  localStorage.setItem('planted', '1');
  sessionStorage.setItem('planted', '1');
  window.name = 'planted';
  (async () => {
    await new Promise((resolve) => { const r = indexedDB.open('planted', 1); r.onupgradeneeded = () => r.result.createObjectStore('o'); r.onsuccess = () => { r.result.close(); resolve(); }; });
    await (await caches.open('planted')).put('/x', new Response('1'));
    document.title = 'planted';
  })();
</script>`;
// A page that reports what it finds, as its title.
const READ = `<title>reading</title><script>
  (async () => {
    const found = {
      cookie: document.cookie, local: localStorage.getItem('planted'), session: sessionStorage.getItem('planted'), name: window.name,
      idb: (await indexedDB.databases()).map((d) => d.name), caches: await caches.keys(),
    };
    document.title = JSON.stringify(found);
  })();
</script>`;

let fx: Fixture;

test.before(async () => {
  fx = await serveFixtures({
    '/plant': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PLANT);
    },
    '/read': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(READ);
    },
    '/probe': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<title>probe</title><body style="margin:0"><div style="width:100px;height:100px;background:rgb(0,0,255)"></div><p style="height:2000px">tall</p></body>',
      );
    },
  });
});

test.after(async () => {
  await fx.close();
});

// The report is read raw with a data rule (`meta` writes a title's quotes typographically, which JSON cannot parse).
const render = (base: Handle, path: string) =>
  call(
    base,
    `url=${q(`${fx.url}${path}`)}&prerender=true&force&waitUntil=load&waitForTimeout=200&data.report.selector=title&data.report.attr=text`,
  );

test('a page used again for the next request of its kind shows it nothing of the last one', async () => {
  // One browser slot: every request of this kind takes the page the previous one used.
  const app = await startHandlers({ REFRACT_BROWSER_CONCURRENCY: '1' });
  try {
    assert.is((await render(app.free, '/read')).status, 200, 'a first page of the kind');
    const planted = await render(app.free, '/plant');
    assert.is(planted.body.data.title, 'planted');
    const before = app.engine.browsers.stats().reused;
    const read = await render(app.free, '/read');
    assert.is(app.engine.browsers.stats().reused, before + 1, 'the page was used again');
    assert.equal(JSON.parse(read.body.data.report), {
      cookie: '',
      local: null,
      session: null,
      name: '',
      idb: [],
      caches: [],
    });
    // A page sent with a caller's own headers is never kept for another request.
    const withHeaders = () =>
      call(app.pro, `url=${q(`${fx.url}/read`)}&prerender=true&force&headers.x-secret=1`, {
        headers: { 'x-api-key': 'test-key' },
      });
    assert.is((await withHeaders()).status, 200);
    const kept = app.engine.browsers.stats().reused;
    assert.is((await withHeaders()).status, 200);
    assert.is(app.engine.browsers.stats().reused, kept);
  } finally {
    await app.close();
  }
});

/** The lowest alpha of a PNG asset (255 when it has no alpha channel). */
async function minAlpha(app: Handlers, url: string): Promise<number> {
  const bytes = (await app.file(url)).body;
  return (await sharp(bytes).stats()).channels[3]?.min ?? 255;
}

test('opposite per-request settings alternated many times on warm pages: each answer has its own', async () => {
  const app = await startHandlers({ REFRACT_BROWSER_CONCURRENCY: '1' });
  try {
    const probe = `url=${q(`${fx.url}/probe`)}&meta=false&force`;
    const state = `data.s.evaluate=${q("JSON.stringify({ print: matchMedia('print').matches, injected: window.injected ?? null, styled: getComputedStyle(document.body).color, cookie: document.cookie })")}`;
    for (let round = 0; round < 3; round++) {
      // Transparent captures of every kind (full page, element, viewport), with a print medium, a script, a style and a cookie.
      const clear = await call(
        app.free,
        `${probe}&screenshot.full_page&mediaType=print&scripts=${q("window.injected = 1; document.cookie = 'left=1'")}&styles=${q('body{color:rgb(1,2,3)}')}&${state}`,
      );
      assert.is(clear.status, 200, JSON.stringify(clear.body).slice(0, 200));
      assert.equal(
        JSON.parse(clear.body.data.s),
        { print: true, injected: 1, styled: 'rgb(1, 2, 3)', cookie: 'left=1' },
        `round ${round}: the settings took effect`,
      );
      assert.is(await minAlpha(app, clear.body.data.screenshot.url), 0, `round ${round}: transparent full page`);
      const element = await call(app.free, `${probe}&screenshot.element=${q('p')}`);
      assert.is(await minAlpha(app, element.body.data.screenshot.url), 0, `round ${round}: transparent element`);
      // The opposite of each, on a warm page of the same kind of context.
      const opaque = await call(app.free, `${probe}&screenshot.omit_background=false&${state}`);
      assert.is(opaque.status, 200);
      assert.equal(
        JSON.parse(opaque.body.data.s),
        { print: false, injected: null, styled: 'rgb(0, 0, 0)', cookie: '' },
        `round ${round}: nothing of the last request`,
      );
      assert.is(await minAlpha(app, opaque.body.data.screenshot.url), 255, `round ${round}: opaque`);
      const jpeg = await call(app.free, `${probe}&screenshot.type=jpeg`);
      const [r, g, b] = await sharp((await app.file(jpeg.body.data.screenshot.url)).body)
        .extract({ left: 600, top: 400, width: 1, height: 1 })
        .raw()
        .toBuffer();
      assert.ok(r! > 240 && g! > 240 && b! > 240, `round ${round}: a JPEG's page area is white (${r},${g},${b})`);
    }
    assert.ok(
      app.engine.browsers.stats().reused >= 6,
      `warm pages were used again: ${app.engine.browsers.stats().reused}`,
    );
  } finally {
    await app.close();
  }
});

test('REFRACT_BROWSER_WARM_PAGES=0: every request gets a page opened for it', async () => {
  const app = await startHandlers({ REFRACT_BROWSER_CONCURRENCY: '1', REFRACT_BROWSER_WARM_PAGES: '0' });
  try {
    for (let i = 0; i < 3; i++) assert.is((await render(app.free, '/read')).status, 200);
    assert.is(app.engine.browsers.stats().reused, 0);
    assert.is(app.engine.browsers.stats().contexts, 0, 'no page is kept open');
  } finally {
    await app.close();
  }
});

test.run();
