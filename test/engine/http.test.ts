// The target fetch's transport (engine/fetch/http.ts): node:http with got-scraping's agents. What a client of the API
// relies on: every content coding a browser offers is decoded (and the limit holds for decoded bytes), the request
// carries a browser's headers in a browser's order and case, and the deadline ends a fetch in either half of it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import zlib from 'node:zlib';
import { fetchTarget } from '../../engine/fetch/http.ts';
import { createGuard } from '../../engine/fetch/guard.ts';
import { serveFixtures } from '../util/serve.ts';

const guard = createGuard(['127.0.0.1']);
const PAGE = Buffer.from('<html><head><title>Crème brûlée</title></head><body>déjà vu</body></html>');
const CODINGS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  'x-gzip': (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  'deflate-raw': (b) => zlib.deflateRawSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  zstd: (b) => zlib.zstdCompressSync(b),
};
const options = (signal = AbortSignal.timeout(10_000)) => ({ guard, signal, maxBytes: 1 << 20 });

test('every content coding a browser offers is decoded (an empty body too), and the reported headers no longer name it', async () => {
  let offered = '';
  const fx = await serveFixtures({}, (req, res) => {
    offered = String(req.headers['accept-encoding']);
    const coding = new URL(req.url!, 'http://x').searchParams.get('c')!;
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': coding === 'deflate-raw' ? 'deflate' : coding,
    });
    const encode = CODINGS[coding] ?? ((b: Buffer) => b);
    res.end(new URL(req.url!, 'http://x').searchParams.has('empty') ? undefined : encode(PAGE));
    return true;
  });
  try {
    for (const coding of Object.keys(CODINGS)) {
      const r = await fetchTarget(`${fx.url}/?c=${coding}`, options());
      assert.is(r.text, PAGE.toString(), coding);
      assert.is(r.headers['content-encoding'], undefined, coding);
      const empty = await fetchTarget(`${fx.url}/?c=${coding}&empty`, options());
      assert.is(empty.text, '', `${coding}, empty`);
    }
    // It decodes whatever it offers (the browser's list, which varies with the browser it presents as); `identity`,
    // which some browsers' lists name, is no coding: a body sent so is read as sent.
    const identity = await fetchTarget(`${fx.url}/?c=identity`, options());
    assert.is(identity.text, PAGE.toString(), 'identity');
    for (const coding of offered.split(',').map((c) => c.trim().split(';')[0]!))
      assert.ok(coding in CODINGS || coding === 'identity', offered);
  } finally {
    await fx.close();
  }
});

test('the byte limit holds for decoded bytes: a gzip bomb is cut, not inflated', async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(64 << 20, 32), { level: 9 });
  const fx = await serveFixtures({}, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip', 'content-length': bomb.length });
    res.end(bomb);
    return true;
  });
  try {
    const r = await fetchTarget(`${fx.url}/`, options());
    assert.ok(r.truncated);
    assert.ok(r.body.length >= 1 << 20 && r.body.length < 2 << 20, String(r.body.length));
    assert.is(r.size, bomb.length, 'the size is what was sent');
  } finally {
    await fx.close();
  }
});

test("the request carries a browser's headers in its order and case, the caller's own over them", async () => {
  let raw: string[] = [];
  const fx = await serveFixtures({}, (req, res) => {
    raw = req.rawHeaders;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<p>');
    return true;
  });
  try {
    await fetchTarget(`${fx.url}/`, {
      ...options(),
      headers: { 'accept-language': 'fr-FR', 'x-trace': '1' },
      sessionToken: {},
    });
    const names = raw.filter((_, i) => i % 2 === 0);
    const value = (name: string) => raw[raw.indexOf(name) + 1];
    assert.is(names[0], 'Host');
    assert.ok(
      names.indexOf('User-Agent') < names.indexOf('Accept') &&
        names.indexOf('Accept') < names.indexOf('Accept-Encoding'),
      names.join(),
    );
    assert.match(value('User-Agent')!, /Chrome\/\d+/);
    assert.is(value('Accept-Language'), 'fr-FR');
    assert.is(value('x-trace'), '1', 'x- headers keep their case');
    assert.ok(
      names.every((n) => n.startsWith('x-') || /^[A-Z]/.test(n)),
      names.join(),
    );
  } finally {
    await fx.close();
  }
});

test('the deadline ends a fetch waiting for the head and one reading the body', async () => {
  const fx = await serveFixtures({
    '/head': () => true,
    '/body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html>');
      return true;
    },
  });
  try {
    for (const path of ['/head', '/body']) {
      const started = Date.now();
      const err = await fetchTarget(`${fx.url}${path}`, options(AbortSignal.timeout(150))).then(
        () => undefined,
        (e: { code?: string }) => e,
      );
      assert.is(err?.code, 'ETIMEOUT', path);
      assert.ok(Date.now() - started < 5_000, path);
    }
  } finally {
    await fx.close();
  }
});

test.run();
