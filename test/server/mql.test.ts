// Microlink's own client library, unchanged, pointed at Refract with its `endpoint` option.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import mqlClient, { MicrolinkError } from '@microlink/mql';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

// The client's declared types cover the documented shapes only (not rule lists, say); at run time it flattens
// any options object, which is what these tests exercise, so the payload is read untyped.
type Payload = { status: string; data: Record<string, any>; response: { statusCode: number; headers: Headers } };
const mql = Object.assign(
  (url: string, opts: Record<string, unknown>) =>
    (mqlClient as unknown as (u: string, o: object) => Promise<Payload>)(url, opts),
  {
    buffer: (url: string, opts: Record<string, unknown>) =>
      (
        mqlClient.buffer as unknown as (
          u: string,
          o: object,
        ) => Promise<{ body: ArrayBuffer; headers: Headers; statusCode: number }>
      )(url, opts),
  },
);

let fx: Fixture;
let app: App;
let limited: App;
/** A pass-through in front of Refract's free endpoint that counts the requests the client really sends. */
let counter: { url: string; count: number; close(): Promise<void> };

function countingProxy(target: string): Promise<typeof counter> {
  const state = { count: 0 };
  const server = http.createServer((req, res) => {
    state.count++;
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        get count() {
          return state.count;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    ),
  );
}

test.before(async () => {
  fx = await serveFixtures();
  app = await startRefract();
  limited = await startRefract({ REFRACT_FREE_QUOTA: '1' });
  counter = await countingProxy(app.freeUrl);
});

test.after(async () => {
  await counter.close();
  await app.close();
  await limited.close();
  await fx.close();
});

const article = () => `${fx.url}/sites/article/index.html`;

test('success: the envelope, the data, and the response with its status and headers', async () => {
  const { status, data, response } = await mql(article(), { endpoint: app.freeUrl });
  assert.is(status, 'success');
  assert.is(typeof data.title, 'string');
  assert.ok(data.title.length > 0);
  assert.is(data.image.type, 'png');
  assert.is(response.statusCode, 200);
  assert.is(response.headers.get('x-pricing-plan'), 'free');
  assert.match(response.headers.get('x-cache-status') ?? '', /^(MISS|HIT)$/);
  assert.ok(response.headers.get('x-request-id'));
  assert.ok(response.headers.get('x-rate-limit-remaining'));
});

test('nested options and data rules round-trip exactly as mql encodes them', async () => {
  const { data } = await mql(`${fx.url}/sites/data/product.html`, {
    endpoint: app.freeUrl,
    meta: false,
    data: {
      price: [
        { selector: '.sale-price', attr: 'text', type: 'number' },
        { selector: '.price', attr: 'data-amount', type: 'number' },
      ],
      heading: { selector: ['.none', 'h1'], attr: 'text' },
      reviews: {
        selectorAll: '.review',
        attr: { title: { selector: 'h3', attr: 'text' }, stars: { selector: '.stars', attr: 'text', type: 'number' } },
      },
      photo: { selector: '.photo', attr: 'src', type: 'image' },
    },
    iframe: { maxWidth: 320 },
    filter: 'price,heading,reviews,photo,iframe',
  });
  assert.is(data.price, 1299.5);
  assert.is(data.heading, 'Trail Runner 3');
  assert.equal(data.reviews, [
    { title: 'Great grip', stars: 5 },
    { title: 'Runs small', stars: 3 },
    { title: 'No score', stars: null },
  ]);
  assert.is(data.photo.type, 'png');
  assert.ok(data.photo.width > 0);
  assert.is(data.iframe, null);
});

test('browser options nest as mql flattens them (screenshot object, viewport, waitUntil list)', async () => {
  const { data } = await mql(article(), {
    endpoint: app.freeUrl,
    meta: false,
    screenshot: { type: 'jpeg', fullPage: false },
    viewport: { width: 400, height: 300, deviceScaleFactor: 1 },
    waitUntil: ['load', 'domcontentloaded'],
  });
  assert.is(data.screenshot.type, 'jpg');
  assert.is(data.screenshot.width, 400);
  assert.is(data.screenshot.height, 300);
});

test('mql.buffer with embed returns the raw asset bytes', async () => {
  const { body, headers, statusCode } = await mql.buffer(article(), {
    endpoint: app.freeUrl,
    screenshot: true,
    embed: 'screenshot.url',
    meta: false,
  });
  const bytes = Buffer.from(body);
  assert.is(statusCode, 200);
  assert.is(headers.get('content-type'), 'image/png');
  assert.equal([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
});

async function failure(url: string, opts: Record<string, unknown>): Promise<MicrolinkError & Record<string, unknown>> {
  try {
    await mql(url, opts);
  } catch (err) {
    assert.instance(err, MicrolinkError);
    return err as MicrolinkError & Record<string, unknown>;
  }
  throw new Error('expected a MicrolinkError');
}

test('fail cases surface as MicrolinkError with status, code, message and statusCode, and are not retried', async () => {
  const cases: [string, Record<string, unknown>, string, number][] = [
    [article(), { screenshot: { type: 'gif' } }, 'EINVALQUERY', 400],
    [`${fx.url}/sites/data/product.html`, { data: { price: { selector: 'p[' } } }, 'EINVALDATA', 400],
    ['http://10.1.2.3/admin', {}, 'EFORBIDDENURL', 403],
    [article(), { apiKey: 'test-key' }, 'EPRO', 403],
  ];
  for (const [url, opts, code, statusCode] of cases) {
    const before = counter.count;
    const err = await failure(url, { endpoint: counter.url, ...opts });
    assert.is(err.status, 'fail', code);
    assert.is(err.code, code);
    assert.is(err.statusCode, statusCode);
    assert.is(typeof err.description, 'string');
    assert.is(err.message, `${code}, ${err.description}`);
    assert.match(String(err.more), /\/docs\/errors#/);
    assert.is(counter.count - before, 1, `${code} was sent once`);
  }
});

test('the pro endpoint with apiKey, and a wrong key is EAUTH', async () => {
  const ok = await mql(article(), { endpoint: app.proUrl, apiKey: 'test-key', meta: false });
  assert.is(ok.status, 'success');
  assert.is(ok.response.headers.get('x-pricing-plan'), 'pro');
  const err = await failure(article(), { endpoint: app.proUrl, apiKey: 'wrong' });
  assert.is(err.code, 'EAUTH');
  assert.is(err.statusCode, 401);
});

test('past the quota: ERATE 429, not retried by the client', async () => {
  await mql(article(), { endpoint: limited.freeUrl, meta: false });
  const err = await failure(article(), { endpoint: limited.freeUrl, meta: false, force: true });
  assert.is(err.code, 'ERATE');
  assert.is(err.statusCode, 429);
  assert.is((err.headers as Record<string, string>)['x-rate-limit-remaining'], '0');
});

test('a client-side invalid url never reaches the service', async () => {
  const before = counter.count;
  const err = await failure('not a url', { endpoint: counter.url });
  assert.is(err.code, 'EINVALURLCLIENT');
  assert.is(counter.count, before);
});

test.run();
