import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildPlan, retarget } from '../../engine/plan/plan.ts';
import { createRegistry } from '../../engine/plan/registry.ts';
import { definePlugin } from '../../engine/plan/plugin.ts';
import { parseQuery } from '../../engine/plan/params.ts';
import { options } from '../../engine/plan/schema.ts';
import { RefractError } from '../../engine/kernel/errors.ts';
import { defaultPlugins } from '../../plugins/index.ts';
import { parseDuration } from '../../engine/kernel/duration.ts';
import fc from '../util/fc.ts';

const registry = createRegistry(defaultPlugins);
const limits = { defaultTimeoutMs: 28000, maxTimeoutMs: 60000, testHooks: false };
const plan = (qs: string, tier: 'free' | 'pro' = 'free') => buildPlan(parseQuery(qs), registry, tier, limits);

test('meta is on by default, steps follow registry order, needs is the highest', () => {
  const p = plan(`screenshot.full_page&url=${encodeURIComponent('https://a.com/x?utm_source=y&b=1#top')}`);
  assert.equal(
    p.steps.map((s) => s.name),
    ['meta', 'screenshot'],
  );
  assert.equal(p.steps[1]!.opts, { type: 'png', fullPage: true, omitBackground: true, codeScheme: 'atom-one-dark' });
  assert.is(p.needs, 'browser');
  assert.is(p.url, 'https://a.com/x?b=1');
  assert.is(p.options.timeout, 28000);
});

test('meta=false skips metadata; function alone drops it unless meta=true', () => {
  assert.equal(
    plan('url=https://a.com&meta=false&screenshot').steps.map((s) => s.name),
    ['screenshot'],
  );
  assert.equal(
    plan('url=https://a.com&function=x').steps.map((s) => s.name),
    ['function'],
  );
  assert.equal(
    plan('url=https://a.com&function=x&meta').steps.map((s) => s.name),
    ['meta', 'function'],
  );
  assert.equal(
    plan('url=https://a.com&function=x&screenshot').steps.map((s) => s.name),
    ['meta', 'screenshot', 'function'],
  );
  assert.equal(
    plan('url=https://a.com&pdf&screenshot').steps.map((s) => s.name),
    ['meta', 'screenshot', 'pdf'],
  );
});

test('a disabled plugin stays off even with dotted options; a plain word needs a shorthand', () => {
  assert.equal(
    plan('url=https://a.com&screenshot=false&screenshot.type=jpeg').steps.map((s) => s.name),
    ['meta'],
  );
  assert.equal(plan('url=https://a.com&screenshot=iphone 12').steps[1]!.opts.device, 'iphone 12');
  assert.throws(
    () => plan('url=https://a.com&screenshot=iphone 99'),
    (e: RefractError) => e.code === 'EINVALQUERY' && /did you mean/.test(e.message) && /iphone/.test(e.message),
  );
  assert.throws(
    () => plan('url=https://a.com&device=pixle 5'),
    (e: RefractError) => e.code === 'EINVALQUERY' && /"pixel 5"/.test(e.message),
  );
});

test('a device word beside dotted options keeps both (screenshot=iphone 12&screenshot.overlay.browser=dark)', () => {
  const opts = plan('url=https://a.com&screenshot=iphone 12&screenshot.overlay.browser=dark').steps[1]!.opts as Record<
    string,
    any
  >;
  assert.is(opts.device, 'iphone 12');
  assert.is(opts.overlay?.browser, 'dark');
  // A flag beside dotted options is still a flag, not a device.
  assert.is(
    (plan('url=https://a.com&screenshot=true&screenshot.type=jpeg').steps[1]!.opts as Record<string, any>).device,
    undefined,
  );
  assert.throws(
    () => plan('url=https://a.com&pdf=letter&pdf.scale=1'),
    (e: RefractError) => e.code === 'EINVALQUERY' && e.data?.param === 'pdf',
  );
});

test('cross-option checks happen when the plan is built: quality without jpeg, pdf after an animated capture, page ranges', () => {
  assert.throws(
    () => plan('url=https://a.com&screenshot.quality=50'),
    (e: RefractError) =>
      e.code === 'EINVALQUERY' && e.data?.param === 'screenshot.quality' && /screenshot\.type=jpeg/.test(e.message),
  );
  assert.throws(
    () => plan('url=https://a.com&screenshot.animated&pdf'),
    (e: RefractError) => e.code === 'EINVALQUERY' && e.data?.param === 'pdf' && /closes the page/.test(e.message),
  );
  assert.throws(
    () => plan('url=https://a.com&pdf.pageRanges=first'),
    (e: RefractError) => e.code === 'EPAGERANGE' && e.data?.param === 'pdf.pageRanges' && /1-3,5/.test(e.message),
  );
  // The valid forms plan fine; an animated capture alone keeps its declared defaults.
  assert.equal(plan('url=https://a.com&screenshot.animated').steps[1]!.opts.animated, { duration: 3000, fps: 25 });
  assert.ok(plan('url=https://a.com&screenshot.type=jpeg&screenshot.quality=50&pdf.pageRanges=1-2'));
});

test('bad values are refused before any I/O with the parameter named', () => {
  assert.throws(
    () => plan('url=https://a.com&screenshot.type=gif'),
    (e: RefractError) => e.code === 'EINVALQUERY' && /screenshot\.type/.test(e.message) && /png, jpeg/.test(e.message),
  );
  assert.throws(
    () => plan('url=https://a.com&force=perhaps'),
    (e: RefractError) => e.code === 'EINVALQUERY' && /force/.test(e.message),
  );
  assert.throws(
    () => plan('url=/relative'),
    (e: RefractError) => e.code === 'EINVALURL',
  );
  assert.throws(
    () => plan('url=https://a.com&ttl=1h'),
    (e: RefractError) => e.code === 'ETTL',
  );
  assert.is(plan('url=https://a.com&ttl=1h', 'pro').options.ttl, 3600000);
  assert.throws(
    () => plan('url=https://a.com&timeout=2 minutes'),
    (e: RefractError) => e.code === 'EINVALQUERY' && /at most 60000/.test(e.message),
  );
});

test('durations accept milliseconds and human text', () => {
  assert.is(plan('url=https://a.com&timeout=1500').options.timeout, 1500);
  assert.is(plan('url=https://a.com&timeout=45s').options.timeout, 45000);
  assert.equal(plan('url=https://a.com&wait_until=load').options.waitUntil, ['load']);
});

test('a duplicate plugin name is refused at registration', () => {
  assert.throws(
    () => createRegistry([...defaultPlugins, ...defaultPlugins]),
    (e: RefractError) => e.code === 'EPLUGINDUP',
  );
  assert.throws(
    () =>
      createRegistry([
        definePlugin({ name: 'timeout', description: 'x', needs: 'http', params: options({}), run: () => null }),
      ]),
    (e: RefractError) => e.code === 'EPLUGINDUP',
  );
});

test("a plugin's top-level options (meta's audio and video) are checked on every request and reach its step; their names are its own", () => {
  assert.equal(plan('url=https://a.com&video&audio=false').steps.find((s) => s.name === 'meta')!.opts, {
    audio: false,
    video: true,
  });
  assert.is(plan('url=https://a.com').steps[0]!.opts.video, false);
  // Checked even when meta does not run: a bad value is never silently dropped.
  assert.throws(
    () => plan('url=https://a.com&meta=false&video=maybe'),
    (e: RefractError) => e.code === 'EINVALQUERY' && (e.data as { param: string }).param === 'video',
  );
  assert.equal(plan('url=https://a.com&video').unknownParams, []);
  const taker = definePlugin({
    name: 'clip',
    description: 'x',
    needs: 'http',
    params: options({}),
    topLevel: { video: options({}) },
    run: () => null,
  });
  assert.throws(
    () => createRegistry([...defaultPlugins, taker]),
    (e: RefractError) => e.code === 'EPLUGINDUP' && /video/.test(e.message),
  );
  assert.throws(
    () =>
      definePlugin({
        name: 'clip',
        description: 'x',
        needs: 'http',
        params: options({}),
        topLevel: { 'bad-name': options({}) },
        run: () => null,
      }),
    TypeError,
  );
});

test('a duration parameter with no value, or with text no duration reads as, is a 400 naming it, never a 500', () => {
  for (const [query, param] of [
    ['timeout', 'timeout'],
    ['waitForTimeout', 'waitForTimeout'],
    ['timeout=', 'timeout'],
    [`timeout=${'9'.repeat(3)}${'x'.repeat(120)}`, 'timeout'],
    ['ttl', 'ttl'],
    ['screenshot.animated.duration', 'screenshot.animated.duration'],
  ] as const) {
    const tier = query.startsWith('ttl') ? 'pro' : 'free';
    const err = (() => {
      try {
        plan(`url=https://a.com&${query}`, tier);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    assert.instance(err, RefractError, query);
    assert.ok((err as RefractError).status === 400, `${query}: ${(err as RefractError).status}`);
    assert.match(String((err as RefractError).data?.param), param.split('.')[0]!, query);
  }
});

test('parseDuration never throws, whatever text it is given (property)', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string(),
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.constantFrom('', ' ', '1', '1.5h', 'Infinity', '-1s', '1e400'),
      ),
      (text) => {
        const n = parseDuration(text);
        return n === undefined || (Number.isFinite(n) && n >= 0);
      },
    ),
    { numRuns: 5000 },
  );
});

test('a plan retargeted to another url is the plan of that url, or fails as it would (property)', () => {
  const OPTIONS = [
    'screenshot',
    'screenshot.full_page',
    'screenshot.type=gif',
    'meta=false',
    'prerender=false',
    'pdf',
    'palette',
    'ttl=1h',
    'ttl=abc',
    'staleTtl=10m',
    'staleTtl=2d',
    'filter=title,image',
    'embed=title',
    'timeout=5s',
    'timeout=2m',
    'data.t.selector=h1',
    'insights',
    'function=() => 1',
    'video',
    'audio=false',
    'adblock=false',
    'force',
    'headers.x-a=1',
    'proxy=http://p:1',
    'iframe',
    'device=iPhone 12',
    'waitUntil=load',
  ];
  const URLS = [
    'https://b.com/x?utm_source=1&y=2#f',
    'http://c.org',
    ' https://d.com/ ',
    'ftp://x.com',
    'not a url',
    '',
    'https://',
    'http://[::1]/a',
    'https://例え.jp/パス',
  ];
  const outcome = (build: () => unknown) => {
    try {
      return { plan: build() };
    } catch (err) {
      const e = err as RefractError;
      return { code: e.code, message: e.message, data: e.data };
    }
  };
  fc.assert(
    fc.property(
      fc.subarray(OPTIONS),
      fc.constantFrom(...URLS),
      fc.constantFrom('free' as const, 'pro' as const),
      (options, url, tier) => {
        const rest = options.map((o) => o.split('=').map(encodeURIComponent).join('=')).join('&');
        const template = outcome(() => plan(`url=https://a.com/&${rest}`, tier));
        fc.pre('plan' in template);
        const direct = outcome(() => plan(`url=${encodeURIComponent(url)}&${rest}`, tier));
        assert.equal(
          outcome(() => retarget(template.plan as never, url)),
          direct,
          `${url} ${rest}`,
        );
      },
    ),
    { numRuns: 1000 },
  );
});

test.run();
