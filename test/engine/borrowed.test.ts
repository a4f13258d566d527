// Each place where Refract leans on another library's internals (docs/architecture.md, "Borrowed internals") has a
// check here that fails on the upgrade that would break it, or that would make it needless.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { BasicCrawler } from '@crawlee/basic';
import { tlsProfile } from '../../engine/fetch/tls-profile.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

test("Crawlee: the crawler still decides a task's domain delay in delayRequest, and still refuses a requestManager option", () => {
  assert.type(
    (BasicCrawler.prototype as unknown as { delayRequest?: unknown }).delayRequest,
    'function',
    'engine/request/queue.ts overrides it',
  );
  const shape = (BasicCrawler as unknown as { optionsShape: Record<string, unknown> }).optionsShape;
  assert.ok('requestQueue' in shape, 'the request manager is handed in as requestQueue');
  assert.not.ok(
    'requestManager' in shape,
    'Crawlee now takes requestManager: hand it in by its own name (engine/request/queue.ts)',
  );
});

test("got-scraping: tlsHook still sets a browser's TLS settings on a got Options, requestOCSP among its Unix options", () => {
  const ua = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
  const profile = tlsProfile({ 'user-agent': ua });
  assert.type(profile.ciphers, 'string', 'engine/fetch/tls-profile.ts reads ciphers');
  assert.ok(String(profile.ciphers).includes('TLS_AES_128_GCM_SHA256'));
  assert.type(profile.sigalgs, 'string');
  // The one private read: got keeps the hook's requestOCSP in `_unixOptions`; a got that moves it fails here.
  assert.is(profile.requestOCSP, true, "Chrome's profile asks for OCSP stapling");
});

test('patches/: each patch is for the version installed (patch-package would stop an install otherwise; this says which)', () => {
  const patches = readdirSync(path.join(ROOT, 'patches')).filter((f) => f.endsWith('.patch'));
  assert.ok(patches.length >= 3);
  for (const file of patches) {
    const [, name, version] = /^(.+)\+(\d[^+]*)\.patch$/.exec(file)!;
    const pkg = name!.replace('+', '/');
    const installed = (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string })
      .version;
    assert.is(
      installed,
      version,
      `${file} is for ${version}; ${installed} is installed: rebase the patch or drop it (docs/architecture.md)`,
    );
  }
});

test('patches/: each patch but ioredis is on a copy of our own (`refract-*`, an alias of the published package), which no other user of that library in the process resolves', () => {
  const deps = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  ).dependencies;
  for (const file of readdirSync(path.join(ROOT, 'patches')).filter((f) => f.endsWith('.patch'))) {
    const name = /^(.+)\+\d[^+]*\.patch$/.exec(file)![1]!.replace('+', '/');
    // ioredis is BullMQ's too, so it cannot be a copy of ours: its patch defers the definition of one class (no
    // prototype changed; test/engine/v8-fast-paths.test.ts).
    if (name === 'ioredis') continue;
    assert.ok(name.startsWith('refract-'), `${file}: patch a copy of our own, not the package others resolve`);
    assert.match(deps[name] ?? '', /^npm:/, `${name} is an alias of the published package`);
  }
});

test.run();
