// Generated files on the embedded default: the local folder stays within its size and age bounds (oldest first, in
// the background), a cached answer whose file was pruned is made again instead of linking a dead file, and files
// are served with byte ranges and caching headers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, statSync, writeFileSync, utimesSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';
import { definePlugin, options } from '../../engine/index.ts';

let fx: Fixture;

test.before(async () => {
  fx = await serveFixtures({
    // A page that looks different for each `n`: each screenshot is a file of its own.
    '/shot': (req: IncomingMessage, res: ServerResponse) => {
      const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><body style="margin:0;background:hsl(${(n * 37) % 360} 70% 50%)"><h1>Page ${n}</h1></body></html>`,
      );
    },
  });
});

test.after(async () => {
  await fx.close();
});

/** The bytes of the files in a folder. */
const folderBytes = (dir: string) => readdirSync(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
const shot = (app: App, n: number) => call(app.freeUrl, `url=${q(`${fx.url}/shot?n=${n}`)}&screenshot&meta=false`);

/** Resolves once the folder is within `bound` bytes: now, or after the pruning pass under way. */
async function prunedWithin(app: App, dir: string, bound: number): Promise<void> {
  const pruned = new Promise<void>((resolve) => {
    const on = ({ bytes }: { bytes: number }) => {
      if (bytes <= bound) {
        app.engine.events.off('assets-pruned', on);
        resolve();
      }
    };
    app.engine.events.on('assets-pruned', on);
  });
  if (folderBytes(dir) <= bound) return;
  await pruned;
}

test('the local folder stays under REFRACT_ASSETS_MAX_BYTES, oldest first; a cached answer whose file is gone is made again', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-assets-'));
  const first = await (async () => {
    const probe = await startRefract({ REFRACT_ASSETS_DIR: dir });
    try {
      return (await shot(probe, 0)).body.data.screenshot.size as number;
    } finally {
      await probe.close();
    }
  })();
  // Room for about four screenshots (pages differ by their colour only: their files are about the same size).
  const bound = Math.round(first * 4.5);
  const app = await startRefract({ REFRACT_ASSETS_DIR: dir, REFRACT_ASSETS_MAX_BYTES: String(bound) });
  try {
    const links: string[] = [];
    for (let n = 1; n <= 10; n++) {
      const { status, body } = await shot(app, n);
      assert.is(status, 200);
      links.push(body.data.screenshot.url);
    }
    await prunedWithin(app, dir, bound);
    assert.ok(folderBytes(dir) <= bound, `${folderBytes(dir)} bytes kept, bound ${bound}`);
    // The newest file is kept, the oldest went.
    const fileOf = (link: string) => path.join(dir, path.basename(new URL(link).pathname));
    assert.ok(existsSync(fileOf(links[9]!)), 'the newest screenshot is kept');
    assert.not.ok(existsSync(fileOf(links[0]!)), 'the oldest screenshot was pruned');
    assert.is((await fetch(links[0]!)).status, 404);
    // Asked again, the answer of page 1 is cached but links a pruned file: it is made again, and its link works.
    const again = await shot(app, 1);
    assert.is(again.headers.get('x-cache-status'), 'MISS');
    const png = await fetch(again.body.data.screenshot.url);
    assert.is(png.status, 200);
    assert.is(png.headers.get('content-type'), 'image/png');
    // A page whose file is still there is a HIT.
    assert.is((await shot(app, 10)).headers.get('x-cache-status'), 'HIT');
  } finally {
    await app.close();
  }
});

test('files older than REFRACT_ASSETS_MAX_AGE are deleted in the background from the start', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-assets-'));
  const old = path.join(dir, `${'a'.repeat(64)}.png`);
  const recent = path.join(dir, `${'b'.repeat(64)}.png`);
  const unrelated = path.join(dir, 'notes.txt');
  for (const f of [old, recent, unrelated]) writeFileSync(f, 'x');
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
  utimesSync(old, twoDaysAgo, twoDaysAgo);
  utimesSync(unrelated, twoDaysAgo, twoDaysAgo);
  const app = await startRefract({ REFRACT_ASSETS_DIR: dir, REFRACT_ASSETS_MAX_AGE: '1d' });
  try {
    if (existsSync(old)) await new Promise((resolve) => app.engine.events.once('assets-pruned', resolve));
    assert.not.ok(existsSync(old), 'the two-day-old file is gone');
    assert.ok(existsSync(recent), 'a recent file is kept');
    assert.ok(existsSync(unrelated), 'a file that is not an asset is never touched');
  } finally {
    await app.close();
  }
});

test('assets are served with byte ranges, an ETag and immutable caching; HEAD carries the length', async () => {
  const app = await startRefract();
  try {
    const { body } = await shot(app, 42);
    const url = body.data.screenshot.url as string;
    const whole = Buffer.from(await (await fetch(url)).arrayBuffer());
    assert.is(whole.length, body.data.screenshot.size);
    const part = await fetch(url, { headers: { range: 'bytes=0-7' } });
    assert.is(part.status, 206);
    assert.is(part.headers.get('content-range'), `bytes 0-7/${whole.length}`);
    assert.equal(Buffer.from(await part.arrayBuffer()), whole.subarray(0, 8));
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    assert.is(tail.status, 206);
    assert.equal(Buffer.from(await tail.arrayBuffer()), whole.subarray(whole.length - 10));
    const past = await fetch(url, { headers: { range: `bytes=${whole.length + 5}-` } });
    assert.is(past.status, 416);
    assert.is(past.headers.get('content-range'), `bytes */${whole.length}`);
    const head = await fetch(url, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(head.headers.get('content-length'), String(whole.length));
    assert.is(head.headers.get('accept-ranges'), 'bytes');
    assert.match(head.headers.get('etag') ?? '', /^"[a-f0-9]{64}"$/);
    assert.match(head.headers.get('cache-control') ?? '', /immutable/);
  } finally {
    await app.close();
  }
});

test("a plugin's file of any type is stored under its type's extension and served as that type; a type a browser could run is sandboxed", async () => {
  const files = definePlugin({
    name: 'files',
    description: 'Stores a text note and an SVG.',
    needs: 'http',
    params: options({}),
    run: async (ctx) => ({
      note: await ctx.store(Buffer.from('A plain note.\n'), 'text/plain'),
      svg: await ctx.store(
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        'image/svg+xml',
      ),
      md: await ctx.store(Buffer.from('# Title\n'), 'text/markdown; charset=utf-8'),
    }),
  });
  const app = await startRefract({}, [files]);
  try {
    const res = await call(app.freeUrl, `url=${q(`${fx.url}/shot?n=1`)}&files&meta=false&prerender=false`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    const { note, svg, md } = res.body.data.files;
    assert.match(note.url, /\.txt$/);
    assert.is(note.type, 'txt');
    assert.match(svg.url, /\.svg$/);
    assert.match(md.url, /\.(md|markdown)$/);
    const text = await fetch(note.url);
    assert.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.is(await text.text(), 'A plain note.\n');
    assert.is(text.headers.get('x-content-type-options'), 'nosniff');
    const image = await fetch(svg.url);
    assert.is(image.headers.get('content-type'), 'image/svg+xml');
    assert.is(image.headers.get('content-security-policy'), 'sandbox', 'an SVG runs no script on this origin');
    assert.match((await fetch(md.url)).headers.get('content-type') ?? '', /^text\/markdown/);
  } finally {
    await app.close();
  }
});

test.run();
