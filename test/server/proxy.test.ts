import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server } from 'proxy-chain';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
const proxies: { server: Server; seen: string[] }[] = [];

test.before(async () => {
  fx = await serveFixtures();
  for (let i = 0; i < 2; i++) {
    const seen: string[] = [];
    const server = new Server({
      port: 0, host: '127.0.0.1', verbose: false,
      prepareRequestFunction: ({ request }) => { seen.push(request.url ?? ''); return {}; },
    });
    await server.listen();
    proxies.push({ server, seen });
  }
  app = await startRefract({ PROXY_URLS: proxies.map((p) => `http://127.0.0.1:${p.server.port}`).join(',') });
});

test.after(async () => {
  await app.close();
  for (const p of proxies) await p.server.close(true);
  await fx.close();
});

test('requests rotate over the configured proxies through the session pool', async () => {
  const n = 10;
  for (let i = 0; i < n; i++) {
    const { body } = await call(app.freeUrl, `url=${q(`${fx.url}/sites/article/index.html?i=${i}`)}`);
    assert.is(body.status, 'success');
    assert.is(body.data.title, 'The man who built a & firm in his basement');
  }
  const counts = proxies.map((p) => p.seen.filter((u) => u.includes('/sites/article/index.html')).length);
  assert.is(counts[0]! + counts[1]!, n, `every fetch went through a proxy: ${counts}`);
  assert.ok(counts[0]! >= 2 && counts[1]! >= 2, `both proxies used: ${counts}`);
});

test.run();
