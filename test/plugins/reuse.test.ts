import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';

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
    '/plant': (_, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(PLANT); },
    '/read': (_, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(READ); },
  });
});

test.after(async () => {
  await fx.close();
});

// The report is read raw with a data rule (`meta` writes a title's quotes typographically, which JSON cannot parse).
const render = (base: string, path: string) => call(base, `url=${q(`${fx.url}${path}`)}&prerender=true&force&waitUntil=load&waitForTimeout=200&data.report.selector=title&data.report.attr=text`);

test('a page used again for the next request of its kind shows it nothing of the last one', async () => {
  // One browser slot: every request of this kind takes the page the previous one used.
  const app = await startRefract({ REFRACT_BROWSER_CONCURRENCY: '1' });
  try {
    assert.is((await render(app.freeUrl, '/read')).status, 200, 'a first page of the kind');
    const planted = await render(app.freeUrl, '/plant');
    assert.is(planted.body.data.title, 'planted');
    const before = app.engine.browsers.stats().reused;
    const read = await render(app.freeUrl, '/read');
    assert.is(app.engine.browsers.stats().reused, before + 1, 'the page was used again');
    assert.equal(JSON.parse(read.body.data.report), { cookie: '', local: null, session: null, name: '', idb: [], caches: [] });
    // A page sent with a caller's own headers is never kept for another request.
    const withHeaders = () => call(app.proUrl, `url=${q(`${fx.url}/read`)}&prerender=true&force&headers.x-secret=1`, { headers: { 'x-api-key': 'test-key' } });
    assert.is((await withHeaders()).status, 200);
    const kept = app.engine.browsers.stats().reused;
    assert.is((await withHeaders()).status, 200);
    assert.is(app.engine.browsers.stats().reused, kept);
  } finally {
    await app.close();
  }
});

test('REFRACT_BROWSER_WARM_PAGES=0: every request gets a page opened for it', async () => {
  const app = await startRefract({ REFRACT_BROWSER_CONCURRENCY: '1', REFRACT_BROWSER_WARM_PAGES: '0' });
  try {
    for (let i = 0; i < 3; i++) assert.is((await render(app.freeUrl, '/read')).status, 200);
    assert.is(app.engine.browsers.stats().reused, 0);
    assert.is(app.engine.browsers.stats().contexts, 0, 'no page is kept open');
  } finally {
    await app.close();
  }
});

test.run();
