import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, freePort, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;
let dead: string;

test.before(async () => {
  dead = `http://127.0.0.1:${await freePort()}/gone.png`;
  fx = await serveFixtures({
    '/page': (_: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<html><head><title>Ping</title><meta property="og:image" content="${dead}"><link rel="icon" href="/sites/article/images/apple-touch-icon.png"></head><body><p>Some text for a static page.</p></body></html>`,
      );
    },
  });
  app = await startHandlers();
});

test.after(async () => {
  await app.close();
  await fx.close();
});

const data = async (extra: string) => {
  const res = await call(app.free, `url=${q(`${fx.url}/page`)}${extra}`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
};

test('without ping, a media URL that cannot be checked is kept as the page declares it', async () => {
  const d = await data('');
  assert.is(d.image.url, dead);
  assert.is(d.ping, undefined);
});

test('ping drops the unreachable URL and keeps the reachable one', async () => {
  const d = await data('&ping');
  assert.is(d.image, null);
  assert.is(d.logo.url, `${fx.url}/sites/article/images/apple-touch-icon.png`);
  assert.ok(d.logo.width > 0);
});

test('ping per field: a field turned off is not checked, naming fields checks only those', async () => {
  assert.is((await data('&ping.image=false')).image.url, dead);
  const onlyLogo = await data('&ping.logo=true');
  assert.is(onlyLogo.image.url, dead);
  assert.ok(onlyLogo.logo);
  assert.is((await data('&ping.image=true')).image, null);
  const bad = await call(app.free, `url=${q(`${fx.url}/page`)}&ping.image=maybe`);
  assert.is(bad.status, 400);
  assert.is(bad.body.data.param, 'ping.image');
});

test.run();
