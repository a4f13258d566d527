// Fuzzing both endpoints through the real server with generated queries (fast-check): real and mutated parameter
// names, `__proto__`/`constructor`/`prototype` at every depth, unicode, long values, duplicated keys, deep dotted and
// numbered nesting, bad percent-encoding, hostile `url` schemes and address spellings. Every answer must be JSend
// (or the bytes an `embed` asked for), no 5xx but EFATALCLIENT for a target that cannot be reached, each within its
// timeout + 10%, and the server must be healthy after. No query reaches beyond loopback: hosts are fixtures, private
// or reserved addresses (refused by the guard), or names under `.invalid`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
const RUNS = Number(process.env.REFRACT_FUZZ_RUNS ?? 1200);

test.before(async () => {
  fx = await serveFixtures();
  app = await startRefract({
    REFRACT_FREE_QUOTA: '1000000',
    REFRACT_API_KEYS: 'fuzz-key',
    REFRACT_TIMEOUT: '8s',
    REFRACT_MAX_TIMEOUT: '10s',
  });
});

test.after(async () => {
  await app.close();
  await fx.close();
});

const PARAMS = [
  'url',
  'meta',
  'screenshot',
  'pdf',
  'palette',
  'data',
  'iframe',
  'insights',
  'function',
  'video',
  'audio',
  'embed',
  'filter',
  'force',
  'ttl',
  'staleTtl',
  'timeout',
  'waitUntil',
  'waitForTimeout',
  'waitForSelector',
  'prerender',
  'adblock',
  'device',
  'viewport',
  'headers',
  'proxy',
  'cacheKey',
  'click',
  'scroll',
  'styles',
  'scripts',
  'modules',
  'javascript',
  'mediaType',
  'animations',
  'colorScheme',
  'ping',
  'retry',
  'filename',
  'wait_until',
  'stale_ttl',
  'cache_key',
];
const SUBKEYS = [
  'type',
  'fullPage',
  'element',
  'width',
  'height',
  'deviceScaleFactor',
  'format',
  'scale',
  'selector',
  'attr',
  'type',
  'lighthouse',
  'technologies',
  'overlay',
  'browser',
  'background',
  'maxWidth',
  'title',
  'x-custom',
  'location',
  'quality',
  'omitBackground',
  'margin',
  'landscape',
];
const PROTO = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__'];

/** Query names: real ones, mutated ones, and dotted or numbered paths with prototype names at every depth. */
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PARAMS) },
  { weight: 3, arbitrary: fc.constantFrom(...SUBKEYS) },
  { weight: 3, arbitrary: fc.constantFrom(...PROTO) },
  { weight: 1, arbitrary: fc.nat({ max: 12 }).map(String) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom(...PARAMS).map((p) => p.toUpperCase()) },
);
const name = fc.array(segment, { minLength: 1, maxLength: 8 }).map((parts) => parts.join('.'));

/** Target URLs: the fixtures, hostile schemes, private and loopback addresses in many spellings, unreachable hosts. */
const target = (base: string) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(
          '/sites/article/index.html',
          '/sites/article/index.html?x=1',
          '/missing',
          '/sites/consent/onetrust.html',
        )
        .map((p) => `${base}${p}`),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'javascript:alert(1)',
        'file:///etc/passwd',
        'data:text/html,<h1>x</h1>',
        'ftp://127.0.0.1/',
        'gopher://127.0.0.1:6379/_INFO',
        'ws://127.0.0.1/',
        'http://0x7f.1/',
        'http://2130706433/',
        'http://[::1]/',
        'http://0177.0.0.1/',
        'http://localhost./',
        'http://169.254.169.254/latest/meta-data/',
        'http://[::ffff:127.0.0.1]/',
        'http://10.0.0.1/',
        'http://192.168.1.1:8080/',
        'http://[fd00::1]/',
        'http://0/',
        'http://100.64.0.1/',
        'http://metadata.google.internal/',
        'http://a.invalid/',
        'https://nowhere.invalid:9/x',
        '//a.invalid/',
        'http://%00/',
        'http://a b.invalid/',
        'http://user:pass@10.0.0.1/',
        'HTTP://10.1.1.1',
        'http://ｅｘａｍｐｌｅ.invalid/',
        'http://xn--e1afmkfd.invalid/',
        `http://${'a'.repeat(300)}.invalid/`,
        'http://127.0.0.1:1/',
        'https://127.0.0.1:1/',
        'about:blank',
        'chrome://settings',
        'view-source:http://a.invalid/',
        'blob:http://a.invalid/x',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.webUrl().map((u) => u.replace(/^(https?:\/\/)[^/:?#]+/, '$1fuzz.invalid')) },
  );

/** Values: empty, booleans, numbers, durations, short and unicode text, prototype names, JSON, and long ones. */
const value = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      'true',
      'false',
      '0',
      '1',
      '-1',
      'NaN',
      '1e309',
      '10s',
      '2ms',
      'null',
      'undefined',
      '[]',
      '{}',
      'png',
      'jpeg',
      'A4',
      'load',
      'networkidle0',
      'iPhone 15',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(100_000), 'é'.repeat(20_000), '%'.repeat(5000)) },
);

/** One query-string pair, percent-encoded, or raw with broken escapes now and then. */
const pair = (base: string) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(name, value).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
    },
    { weight: 2, arbitrary: target(base).map((u) => `url=${encodeURIComponent(u)}`) },
    { weight: 1, arbitrary: name.map((k) => encodeURIComponent(k)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%',
        '%ZZ',
        'url=%E0%A4%A',
        '%00=%00',
        'a=%uFFFF',
        '=',
        '&&',
        'url=http%3A%2F%2F127.0.0.1%3A1%2F%ZZ',
        '%C0%AE%C0%AE=1',
      ),
    },
  );

/** Whole queries: a URL usually first, then pairs (keys may repeat). */
const query = (base: string) =>
  fc
    .tuple(fc.option(target(base), { freq: 3 }), fc.array(pair(base), { maxLength: 8 }))
    .map(([url, pairs]) => [...(url === null ? [] : [`url=${encodeURIComponent(url)}`]), ...pairs].join('&'));

/** Checks one answer: JSend (or embedded bytes), no 5xx but EFATALCLIENT, within its time. */
async function check(base: string, qs: string, headers: Record<string, string>): Promise<void> {
  const started = performance.now();
  const res = await fetch(`${base}/?${qs}`, { headers, signal: AbortSignal.timeout(15_000) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const took = performance.now() - started;
  // REFRACT_TIMEOUT 8s, at most 10s when asked: the answer comes within 10 s + 10%.
  assert.ok(took <= 11_000, `answered in ${Math.round(took)} ms: ${qs.slice(0, 300)}`);
  if (res.status === 304) return;
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) {
    assert.is(res.status, 200, `a non-JSON answer is a success: ${qs.slice(0, 300)}`);
    assert.ok(
      /embed/i.test(decodeURIComponent(qs.replace(/%(?![\da-f]{2})/gi, '%25'))),
      `only embed answers bytes: ${qs.slice(0, 300)}`,
    );
    return;
  }
  const body = JSON.parse(bytes.toString('utf8')) as {
    status: string;
    code?: string;
    message?: string;
    data?: unknown;
  };
  assert.ok(
    ['success', 'fail', 'error'].includes(body.status),
    `JSend status: ${bytes.toString('utf8').slice(0, 200)}`,
  );
  if (body.status === 'success') {
    assert.is(res.status, 200);
    assert.ok('data' in body);
  } else {
    assert.type(body.code, 'string');
    assert.type(body.message, 'string');
    assert.ok(res.status >= 400, `a failure has an error status: ${res.status}`);
  }
  if (res.status >= 500)
    assert.ok(
      body.code === 'EFATALCLIENT',
      `no 5xx but EFATALCLIENT: ${res.status} ${body.code} ${body.message} for ${qs.slice(0, 300)}`,
    );
}

test(`fuzz: ${RUNS} generated queries on each endpoint, every answer JSend, typed and in time, and the server healthy after`, async () => {
  for (const [base, headers] of [
    [app.freeUrl, {}],
    [app.proUrl, { 'x-api-key': 'fuzz-key' }],
  ] as const) {
    await fc.assert(
      fc.asyncProperty(query(fx.url), (qs) => check(base, qs, headers)),
      { numRuns: RUNS, endOnFailure: true },
    );
  }
  const health = await fetch(`${app.freeUrl}/healthz`);
  assert.is(health.status, 200);
  const again = await fetch(
    `${app.freeUrl}/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html?after-fuzz`)}`,
  );
  assert.is(again.status, 200, 'the server still extracts after the fuzz');
  // Nothing was written to Object.prototype by any query.
  assert.equal(Object.keys(Object.prototype), []);
});

test.run();
