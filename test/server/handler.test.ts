// The API handler through createHandler, with no socket of its own: a request in, a response out (the target pages
// are served by the test on loopback; no browser is needed). What the server adds around it (sockets, compression,
// draining) is tested in the server's own files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngine, loadConfig, systemClock, type ServiceEngine as Engine } from '../../engine/index.ts';
import { enginePlugins } from '../../lib/compose.ts';
import { createHandler, type HandlerRequest } from '../../server/handler.ts';
import { createQuota } from '../../server/quota.ts';
import { createKeyRing } from '../../server/keys.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';

let engine: Engine;
let fx: Fixture;
let free: ReturnType<typeof createHandler>;
let pro: ReturnType<typeof createHandler>;

test.before(async () => {
  fx = await serveFixtures();
  const config = loadConfig({
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '2',
    REFRACT_LOG_LEVEL: 'error',
  });
  engine = await createEngine({ config, plugins: await enginePlugins(config) });
  const quota = createQuota(engine.shared.counters, systemClock);
  const keys = createKeyRing(['pro-key']);
  const deps = { engine, quota, keys, docsUrl: 'http://refract.local/docs/errors', clock: systemClock };
  free = createHandler({ ...deps, tier: 'free' });
  pro = createHandler({ ...deps, tier: 'pro' });
});

test.after(async () => {
  await engine.close();
  await fx.close();
});

const get = (url: string, headers: HandlerRequest['headers'] = {}, ip = '203.0.113.7'): HandlerRequest => ({
  method: 'GET',
  url,
  headers,
  ip,
});
const json = (body: unknown) =>
  JSON.parse(String(body)) as { status: string; code?: string; data: Record<string, unknown> };

test('OPTIONS answers CORS; another method is EMETHOD; another path is ENOTFOUND, each in JSend', async () => {
  const options = await free({ method: 'OPTIONS', url: '/', headers: {}, ip: '203.0.113.1' });
  assert.is(options.status, 204);
  assert.is(options.headers['access-control-allow-origin'], '*');
  const post = await free({ method: 'POST', url: '/?url=https://example.com', headers: {}, ip: '203.0.113.1' });
  assert.is(post.status, 405);
  assert.is(json(post.body).code, 'EMETHOD');
  const path = await free(get('/elsewhere?url=https://example.com'));
  assert.is(path.status, 404);
  assert.is(json(path.body).code, 'ENOTFOUND');
  const bad = await free(get('/?url=not%20a%20url'));
  assert.is(bad.status, 400);
  assert.is(json(bad.body).code, 'EINVALURL');
});

test('a page is answered MISS, then HIT, with its metadata and the cache headers', async () => {
  const url = `/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html`)}`;
  const first = await free(get(url, {}, '203.0.113.20'));
  assert.is(first.status, 200);
  assert.is(first.headers['x-cache-status'], 'MISS');
  const body = json(first.body);
  assert.is(body.status, 'success');
  assert.is(body.data.title, 'The man who built a & firm in his basement');
  const again = await free(get(url, {}, '203.0.113.20'));
  assert.is(again.headers['x-cache-status'], 'HIT');
  assert.is(again.headers['x-request-id'] !== first.headers['x-request-id'], true);
});

test("the free quota counts the caller's work (MISSes, not HITs) and refuses past it with ERATE", async () => {
  const ip = '203.0.113.30';
  const page = (n: number) => get(`/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html?n=${n}`)}`, {}, ip);
  assert.is((await free(page(1))).status, 200);
  assert.is((await free(page(1))).headers['x-cache-status'], 'HIT', 'a HIT is free');
  const second = await free(page(2));
  assert.is(second.status, 200);
  assert.is(second.headers['x-rate-limit-remaining'], '0');
  const refused = await free(page(3));
  assert.is(refused.status, 429);
  assert.is(json(refused.body).code, 'ERATE');
});

test('the pro endpoint needs a known key', async () => {
  const url = `/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html`)}`;
  const none = await pro(get(url));
  assert.is(none.status, 401);
  assert.is(json(none.body).code, 'EAUTH');
  const known = await pro(get(url, { 'x-api-key': 'pro-key' }));
  assert.is(known.status, 200);
});

test.run();
