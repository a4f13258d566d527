import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseQuery, parseOptions, queryParams, camelCase } from '../../engine/plan/params.ts';

test('dotted keys nest and snake_case top-level names become camelCase', () => {
  const q = parseQuery(
    'url=https%3A%2F%2Fa.com%2F%3Fx%3D1&screenshot.full_page=true&wait_until.0=load&wait_until.1=networkidle0',
  );
  assert.is(q.url, 'https://a.com/?x=1');
  assert.equal(q.screenshot, { full_page: 'true' });
  assert.equal(q.waitUntil, ['load', 'networkidle0']);
});

test('numeric segments build arrays of objects as mql sends data rules', () => {
  const q = parseQuery('data.price.0.selector=.p&data.price.0.attr=text&data.price.1.selector=.q');
  assert.equal(q.data, { price: [{ selector: '.p', attr: 'text' }, { selector: '.q' }] });
});

test('a bare flag is the empty string and a repeated key is a list', () => {
  const q = parseQuery('palette&click=a&click=b');
  assert.is(q.palette, '');
  assert.equal(q.click, ['a', 'b']);
});

test('a scalar beside dotted children is kept as $value', () => {
  assert.equal(parseQuery('screenshot=false&screenshot.type=jpeg').screenshot, { $value: 'false', type: 'jpeg' });
  assert.equal(parseQuery('screenshot.type=jpeg&screenshot=true').screenshot, { type: 'jpeg', $value: 'true' });
});

test('camelCase leaves camelCase names alone', () => {
  assert.is(camelCase('fullPage'), 'fullPage');
  assert.is(camelCase('device_scale_factor'), 'deviceScaleFactor');
});

test('no query key reaches a prototype: __proto__, constructor and prototype are plain names at every depth', async () => {
  const fc = (await import('../util/fc.ts')).default;
  const segment = fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'a',
    'b',
    '0',
    '1',
    'url',
    'screenshot',
    'hasOwnProperty',
    'toString',
  );
  const key = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.'));
  const query = fc.array(fc.tuple(key, fc.string({ maxLength: 8 })), { maxLength: 12 });
  const protoKeys = () =>
    [Object.getOwnPropertyNames(Object.prototype), Object.getOwnPropertyNames(Array.prototype)].map((k) =>
      k.sort().join(),
    );
  const before = protoKeys();
  const containersAreOrdinary = (node: unknown): boolean => {
    if (!node || typeof node !== 'object') return typeof node === 'string';
    const proto = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== Array.prototype) return false;
    return Object.keys(node).every((k) => containersAreOrdinary((node as Record<string, unknown>)[k]));
  };
  fc.assert(
    fc.property(query, (pairs) => {
      const parsed = parseQuery(new URLSearchParams(pairs));
      return (
        containersAreOrdinary(parsed) &&
        ({} as Record<string, unknown>).a === undefined &&
        ([] as unknown as Record<string, unknown>).a === undefined
      );
    }),
    { numRuns: 2000 },
  );
  assert.equal(protoKeys(), before);
  // The case that crashed the server, kept as data.
  const q = parseQuery('url=x&a.__proto__.pp.0=x');
  assert.is(JSON.stringify(q), '{"url":"x","a":{"__proto__":{"pp":["x"]}}}');
  assert.is(({} as Record<string, unknown>).pp, undefined);
});

test.run();

test('options given as an object read exactly as their query text does (one shape for every entry point)', () => {
  const pairs: [Record<string, unknown>, string][] = [
    [{ screenshot: false, pdf: false }, 'screenshot=false&pdf=false'],
    [{ meta: false, markdown: true }, 'meta=false&markdown=true'],
    [{ 'linkStats.selector': 'body' }, 'linkStats.selector=body'],
    [{ screenshot: { full_page: true, type: 'png' } }, 'screenshot.full_page=true&screenshot.type=png'],
    [{ wait_until: ['load', 'networkidle0'] }, 'wait_until.0=load&wait_until.1=networkidle0'],
    [{ data: { p: [{ selector: '.p' }, { selector: '.q' }] } }, 'data.p.0.selector=.p&data.p.1.selector=.q'],
    [{ timeout: 5000, skip: null, gone: undefined }, 'timeout=5000'],
  ];
  for (const [object, text] of pairs) {
    assert.is(queryParams(object).toString(), new URLSearchParams(text).toString());
    assert.equal(parseOptions(object), parseQuery(text));
  }
  assert.equal(parseOptions('palette&meta=false'), parseQuery('palette&meta=false'));
  assert.equal(parseOptions(undefined), {});
  // Nested far deeper than any stack: read without recursion.
  let deep: Record<string, unknown> = { x: '1' };
  for (let i = 0; i < 20_000; i++) deep = { a: deep };
  assert.is(queryParams(deep).toString().length > 40_000, true);
});
