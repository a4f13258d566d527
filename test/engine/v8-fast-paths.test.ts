// What the modules a process loads may not do to V8: leave the fast paths that the HTML parsers take. A subclass of
// String defined anywhere (ioredis defined one at load, for RESP3 verbatim strings) invalidates V8's
// StringWrapperToPrimitive protector for the whole process, and linkedom's parse of a page then took 2x the time:
// every extraction of the server paid for it, with or without Redis. patches/ioredis+6.0.0.patch makes that class
// on first use.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

// biome-ignore lint/complexity/noBannedTypes: ioredis's VerbatimString is a String wrapper object, which this test is about.
type StringObject = String;

/** V8's protectors of the fast paths that string, array, regular expression and promise code take. */
const PROTECTORS = [
  'StringWrapperToPrimitiveProtector',
  'StringIteratorProtector',
  'NoElementsProtector',
  'ArraySpeciesProtector',
  'ArrayIteratorProtector',
  'MapIteratorProtector',
  'SetIteratorProtector',
  'RegExpSpeciesProtector',
  'PromiseSpeciesProtector',
  'TypedArraySpeciesProtector',
];

/** Runs a module script in a fresh process from the checkout and resolves with the last line it printed. */
function lastLine(script: string, flags: string[] = []): string {
  const stdout = execFileSync(
    process.execPath,
    [...flags, '--conditions=refract-source', '--input-type=module', '-e', script],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return stdout.trim().split('\n').at(-1)!;
}

/** Loads `modules` in a fresh process and reads every protector there (true: the fast path is still taken). */
function protectorsAfter(modules: string[]): Record<string, boolean> {
  const script = `${modules.map((m) => `await import(${JSON.stringify(m)});`).join(' ')}
    const out = {};
    for (const name of ${JSON.stringify(PROTECTORS)}) out[name] = new Function('return %' + name + '()')();
    console.log(JSON.stringify(out));`;
  return JSON.parse(lastLine(script, ['--allow-natives-syntax'])) as Record<string, boolean>;
}

test('a String subclass defined at load is seen by this check (the check can fail)', () => {
  const seen = protectorsAfter(['data:text/javascript,class Verbatim extends String {} globalThis.kept = Verbatim;']);
  assert.is(seen.StringWrapperToPrimitiveProtector, false);
});

test('loading the server, every built-in plugin, the engine and the Redis clients leaves every fast path of V8 on', () => {
  const seen = protectorsAfter([
    './server/app.ts',
    './plugins/index.ts',
    './engine/index.ts',
    'ioredis',
    'bullmq',
    'turndown',
    'refract-linkedom',
    'refract-readability',
  ]);
  for (const name of PROTECTORS) assert.ok(seen[name], `${name} was invalidated by a module the server loads`);
});

test('without Redis, the server does not load ioredis at all (a project that installs the package gets it unpatched)', () => {
  const script = `await import('./server/app.ts'); await import('./plugins/index.ts'); await import('./engine/index.ts');
    const { createRequire } = await import('node:module');
    console.log(Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('/node_modules/ioredis/')).length.toString());`;
  const loaded = lastLine(script);
  assert.is(Number(loaded), 0, loaded);
});

test('ioredis as patched: its RESP3 verbatim string is still a String with its format, made on first use', () => {
  const file = require.resolve('ioredis/built/resp/verbatim-string.js');
  assert.match(readFileSync(file, 'utf8'), /patched by Refract/);
  const { VerbatimString } = require(file) as {
    VerbatimString: new (format: string, value: string) => StringObject & { format: string };
  };
  const reply = new VerbatimString('txt', 'hello');
  assert.ok(reply instanceof String);
  assert.is(String(reply), 'hello');
  assert.is(reply.format, 'txt');
  assert.is(reply.length, 5);
  assert.is(require(file).VerbatimString, VerbatimString, 'one class, the same on every read');
});

test.run();
