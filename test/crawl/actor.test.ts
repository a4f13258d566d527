// The crawl as an Apify Actor, run with the SDK's local storage (no platform): the input is a POST /crawls body
// read from the default key-value store, and the 30 pages of a loopback site land in the default dataset, once each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = 30;
const site = http.createServer((req, res) => {
  const n = Number(/^\/site\/(\d+)$/.exec(req.url ?? '')?.[1] ?? -1);
  if (n < 0) {
    res.writeHead(404);
    res.end();
    return;
  }
  const links =
    n === 0 ? Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/site/${i + 1}">${i + 1}</a>`).join('') : '';
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end(`<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1>${links}</body></html>`);
});

test.before(async () => {
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
});

test.after(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

/** Runs the Actor's entry with a storage folder holding `input`; resolves with the dataset's items and the exit code. */
async function runActor(
  input: unknown,
): Promise<{ code: number | null; items: { url: string; status: string; data?: { title?: string } }[]; err: string }> {
  const storage = mkdtempSync(path.join(os.tmpdir(), 'refract-actor-'));
  mkdirSync(path.join(storage, 'key_value_stores/default'), { recursive: true });
  writeFileSync(path.join(storage, 'key_value_stores/default/INPUT.json'), JSON.stringify(input));
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', '--conditions=refract-source', path.join(ROOT, 'bin/actor.ts')],
    {
      env: {
        ...process.env,
        CRAWLEE_PERSIST_STORAGE: 'true',
        CRAWLEE_STORAGE_DIR: storage,
        APIFY_LOCAL_STORAGE_DIR: storage,
        REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        REFRACT_ASSETS_DIR: path.join(storage, 'assets'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stdout.resume();
  child.stderr.on('data', (c: Buffer) => {
    err += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const dir = path.join(storage, 'datasets/default');
  const files = (() => {
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    } catch {
      return [];
    }
  })();
  return { code, items: files.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8'))), err };
}

test('the Actor crawls the 30-page site into its default dataset, each page once', async () => {
  const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const { code, items, err } = await runActor({ start: `${base}/site/0`, query: 'prerender=false' });
  assert.is(code, 0, err.slice(-2000));
  assert.is(items.length, PAGES);
  assert.is(new Set(items.map((i) => i.url)).size, PAGES);
  assert.ok(
    items.every((i) => i.status === 'success' && /^Page \d+$/.test(i.data?.title ?? '')),
    JSON.stringify(items[0]),
  );
});

test("an input the API would refuse fails the run with the API's code", async () => {
  const { code, items, err } = await runActor({ start: 'not a url' });
  assert.is.not(code, 0);
  assert.is(items.length, 0);
  assert.match(err, /EINVALURL/);
});

test.run();
