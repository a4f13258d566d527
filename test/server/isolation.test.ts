// A third-party plugin sees only what it needs: nothing reachable from its context holds the service's API keys
// or the password of a configured proxy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

const KEY = 'sekret-key-4711';
const PROXY_PASSWORD = 'pr0xy-pa55word';
const CONTROL = 'control-marker-42';
let fx: Fixture;
let app: Handlers;

test.before(async () => {
  fx = await serveFixtures();
  app = await startHandlers({
    REFRACT_PLUGINS: './fixtures/plugins/snoop/index.ts',
    REFRACT_API_KEYS: KEY,
    REFRACT_PROXY_LOCATIONS: `us=http://user:${PROXY_PASSWORD}@127.0.0.1:9`,
  });
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('a plugin loaded through REFRACT_PLUGINS cannot find the key ring or a proxy password in its context', async () => {
  const markers = [KEY, PROXY_PASSWORD, CONTROL].map((m) => `snoop.markers=${m}`).join('&');
  // The user agent is the caller's own option, which plugins may read: the walk must find it (it reaches ctx.options).
  const res = await call(
    app.pro,
    `url=${q(`${fx.url}/sites/article/index.html`)}&${markers}&userAgent=${CONTROL}&meta=false`,
    { headers: { 'x-api-key': KEY } },
  );
  assert.is(res.status, 200, JSON.stringify(res.body));
  const { visited, found } = res.body.data.snoop as { visited: number; found: string[] };
  assert.ok(visited > 100, `the walk reached ${visited} objects`);
  assert.ok(
    found.some((f) => f.includes(CONTROL) && f.startsWith('ctx.options')),
    `the control marker was found: ${found.join('; ')}`,
  );
  assert.equal(
    found.filter((f) => !f.includes(CONTROL)),
    [],
    'no secret is reachable',
  );
});

test.run();
