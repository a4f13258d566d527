import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server } from 'proxy-chain';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;
const proxies: { server: Server; seen: string[] }[] = [];

test.before(async () => {
  fx = await serveFixtures();
  for (let i = 0; i < 2; i++) {
    const seen: string[] = [];
    const server = new Server({
      port: 0,
      host: '127.0.0.1',
      verbose: false,
      prepareRequestFunction: ({ request }) => {
        seen.push(request.url ?? '');
        return {};
      },
    });
    await server.listen();
    proxies.push({ server, seen });
  }
  app = await startHandlers({ PROXY_URLS: proxies.map((p) => `http://127.0.0.1:${p.server.port}`).join(',') });
});

test.after(async () => {
  await app.close();
  for (const p of proxies) await p.server.close(true);
  await fx.close();
});

test('requests rotate over the configured proxies through the session pool', async () => {
  const n = 10;
  for (let i = 0; i < n; i++) {
    const { body } = await call(app.free, `url=${q(`${fx.url}/sites/article/index.html?i=${i}`)}`);
    assert.is(body.status, 'success');
    assert.is(body.data.title, 'The man who built a & firm in his basement');
  }
  const counts = proxies.map((p) => p.seen.filter((u) => u.includes('/sites/article/index.html')).length);
  assert.is(counts[0]! + counts[1]!, n, `every fetch went through a proxy: ${counts}`);
  assert.ok(counts[0]! >= 2 && counts[1]! >= 2, `both proxies used: ${counts}`);
});

const seenVia = (i: number, path: string) => proxies[i]!.seen.filter((u) => u.includes(path)).length;
const proxyUrl = (i: number) => `http://127.0.0.1:${proxies[i]!.server.port}`;

test("proxy: the caller's own proxy for the fetch and for the browser; proxy.location from the country pool", async () => {
  const pro = await startHandlers({ REFRACT_API_KEYS: 'k1', REFRACT_PROXY_LOCATIONS: `de=${proxyUrl(1)}` });
  try {
    const key = { headers: { 'x-api-key': 'k1' } };
    const own = await call(pro.pro, `url=${q(`${fx.url}/sites/article/index.html?own`)}&proxy=${q(proxyUrl(0))}`, key);
    assert.is(own.status, 200, JSON.stringify(own.body));
    assert.is(seenVia(0, '?own'), 1);
    assert.is(seenVia(1, '?own'), 0);
    const shot = await call(
      pro.pro,
      `url=${q(`${fx.url}/sites/browser/clear.html?shot`)}&proxy.url=${q(proxyUrl(0))}&screenshot&meta=false`,
      key,
    );
    assert.is(shot.status, 200, JSON.stringify(shot.body));
    assert.ok(seenVia(0, 'clear.html?shot') >= 1, 'the browser navigated through the proxy');
    const located = await call(pro.pro, `url=${q(`${fx.url}/sites/article/index.html?de`)}&proxy.location=DE`, key);
    assert.is(located.status, 200);
    assert.is(seenVia(1, '?de'), 1);
  } finally {
    await pro.close();
  }
});

test('proxy errors: EINVALPROXY for a malformed one or an unserved location, EPROXY when it fails, the guard for private ones', async () => {
  const pro = await startHandlers({ REFRACT_API_KEYS: 'k1', REFRACT_PROXY_LOCATIONS: `de=${proxyUrl(1)}` });
  try {
    const key = { headers: { 'x-api-key': 'k1' } };
    const target = `url=${q(`${fx.url}/sites/article/index.html?err`)}`;
    for (const [param, code, status] of [
      ['proxy=not%20a%20proxy', 'EINVALPROXY', 400],
      ['proxy=ftp%3A%2F%2F127.0.0.1%3A21', 'EINVALPROXY', 400],
      ['proxy.location=zz', 'EINVALPROXY', 400],
      ['proxy.location=germany', 'EINVALPROXY', 400],
      ['proxy=http%3A%2F%2F127.0.0.2%3A8080', 'EFORBIDDENURL', 403],
    ] as const) {
      const res = await call(pro.pro, `${target}&${param}`, key);
      assert.is(res.body.code, code, param);
      assert.is(res.status, status, param);
    }
    const dead = await call(pro.pro, `${target}&proxy=${q('http://127.0.0.1:1')}`, key);
    assert.is(dead.body.code, 'EPROXY', JSON.stringify(dead.body));
  } finally {
    await pro.close();
  }
});

test('on pro a challenge page is retried through the pool; on free it is EPROXYNEEDED', async () => {
  const visits = new Map<string, number>();
  const guarded = await serveFixtures({
    // Challenges the first visit of each address, as a bot wall does for a flagged client; the retry passes.
    '/guarded': (req, res) => {
      const n = (visits.get(req.url!) ?? 0) + 1;
      visits.set(req.url!, n);
      if (n === 1) {
        res.writeHead(403, { 'content-type': 'text/html', server: 'cloudflare', 'cf-mitigated': 'challenge' });
        res.end('<html><head><title>Just a moment...</title></head><body></body></html>');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          '<html><head><title>Behind the wall</title></head><body><p>Content behind a bot wall.</p></body></html>',
        );
      }
    },
  });
  const app2 = await startHandlers({ REFRACT_API_KEYS: 'k1', REFRACT_PROXY_LOCATIONS: `us=${proxyUrl(0)}` });
  try {
    const free = await call(app2.free, `url=${q(`${guarded.url}/guarded?free`)}`);
    assert.is(free.body.code, 'EPROXYNEEDED');
    const before = seenVia(0, '/guarded');
    const pro = await call(app2.pro, `url=${q(`${guarded.url}/guarded?pro`)}`, { headers: { 'x-api-key': 'k1' } });
    assert.is(pro.status, 200, JSON.stringify(pro.body));
    assert.is(pro.body.data.title, 'Behind the wall');
    assert.is(seenVia(0, '/guarded') - before, 1, 'the retry went through the pool proxy');
  } finally {
    await app2.close();
    await guarded.close();
  }
});

test.run();
