// The import rules and file sizes that docs/architecture.md states, checked against every source file (its structure,
// not the doc's sentences: the doc may be reworded).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every .ts file under a folder of the repository, relative to the root. */
function sources(folder: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path.relative(ROOT, full));
    }
  };
  walk(path.join(ROOT, folder));
  return out;
}

/** The repository paths a file imports (static and dynamic imports and re-exports of relative modules). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return found.map((spec) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), spec)));
}

function violations(folders: string[], bad: (target: string, file: string) => boolean): string[] {
  return folders
    .flatMap((f) => sources(f))
    .flatMap((file) =>
      importsOf(file)
        .filter((t) => bad(t, file))
        .map((t) => `${file} -> ${t}`),
    );
}

test('engine/ imports nothing from lib/, plugins/, crawl/, server/, bin/ or testing/', () => {
  assert.equal(
    violations(['engine'], (t) => /^(lib|plugins|crawl|server|bin|testing)\//.test(t)),
    [],
  );
});

/** engine/'s layers, lowest first, and what each may import besides itself (docs/architecture.md's drawing). */
const LAYERS: Record<string, readonly string[]> = {
  kernel: [],
  plan: ['kernel'],
  fetch: ['plan', 'kernel'],
  store: ['plan', 'kernel'],
  browser: ['fetch', 'plan', 'kernel'],
  request: ['browser', 'fetch', 'store', 'plan', 'kernel'],
};
/** The one kind of import that points up: the plugin context's types, named by the plugin API (loads nothing). */
const TYPES_UP = [
  'engine/plan/plugin.ts -> engine/browser/page.ts',
  'engine/plan/plugin.ts -> engine/fetch/guard.ts',
  'engine/plan/plugin.ts -> engine/fetch/http.ts',
  'engine/plan/plugin.ts -> engine/fetch/probe.ts',
];
const layerOf = (file: string) => /^engine\/([^/]+)\//.exec(file)?.[1];

test('engine/ is in layers: each imports only those below it (kernel, plan, fetch and store, browser, request)', () => {
  const folders = readdirSync(path.join(ROOT, 'engine'), { withFileTypes: true }).filter((d) => d.isDirectory());
  assert.equal(folders.map((d) => d.name).sort(), Object.keys(LAYERS).sort(), 'every folder of engine/ is a layer');
  const typeOnly = (file: string, target: string) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const spec = path.relative(path.dirname(path.join(ROOT, file)), path.join(ROOT, target));
    return new RegExp(`^import type [^;]+ from '(\\./)?${spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}';`, 'm').test(
      text,
    );
  };
  const up = violations(['engine'], (target, file) => {
    const from = layerOf(file);
    const to = layerOf(target) ?? 'face';
    return from !== undefined && from !== to && !LAYERS[from]!.includes(to);
  });
  assert.equal(
    up.filter((edge) => !TYPES_UP.includes(edge)),
    [],
  );
  for (const edge of TYPES_UP) {
    const [file, target] = edge.split(' -> ') as [string, string];
    assert.ok(up.includes(edge), `${edge} is still there (else drop it from the list)`);
    assert.ok(typeOnly(file, target), `${edge} is a type import`);
  }
  assert.ok(importsOf('engine/browser/guard-proxy.ts').includes('engine/fetch/guard.ts'), 'layer imports are read');
});

test('lib/, crawl/, server/, bin/, testing/ and plugins/ import the engine only through engine/index.ts (or engine/about.ts, its light face)', () => {
  assert.equal(
    violations(
      ['lib', 'crawl', 'server', 'bin', 'testing', 'plugins'],
      (t) => t.startsWith('engine/') && t !== 'engine/index.ts' && t !== 'engine/about.ts',
    ),
    [],
  );
});

test('a plugin never imports another plugin: what two share is in plugins/shared/, which imports no plugin', () => {
  const folderOf = (file: string) => /^plugins\/([^/]+)\//.exec(file)?.[1];
  assert.equal(
    violations(['plugins'], (t, file) => {
      const [from, to] = [folderOf(file), folderOf(t)];
      return from !== undefined && to !== undefined && to !== from && to !== 'shared';
    }),
    [],
  );
  assert.ok(
    importsOf('plugins/data/types.ts').some((t) => t.startsWith('plugins/shared/')),
    "a plugin's shared imports are read",
  );
});

test('crawl/ never imports lib/, plugins/, server/, bin/ or testing/', () => {
  assert.equal(
    violations(['crawl'], (t) => /^(lib|plugins|server|bin|testing)\//.test(t)),
    [],
  );
  assert.ok(importsOf('crawl/walk.ts').includes('engine/index.ts'), 'crawl/ imports are read');
});

test("a crawl page is one engine task: crawl/ runs no crawler of its own (the engine's executor is the one)", () => {
  const crawlers = sources('crawl').filter((file) =>
    /from '@crawlee\/(basic|browser|playwright|cheerio|http)'|new \w*Crawler\(/.test(
      readFileSync(path.join(ROOT, file), 'utf8'),
    ),
  );
  assert.equal(crawlers, []);
  assert.match(
    readFileSync(path.join(ROOT, 'engine/request/queue.ts'), 'utf8'),
    /from '@crawlee\/basic'/,
    'the pattern matches',
  );
});

test('entry points reach into no other folder: crawl/ and plugins/ are imported through their index.ts, server/ never by lib/ or crawl/', () => {
  const inside = (t: string, folder: string) => t.startsWith(`${folder}/`) && t !== `${folder}/index.ts`;
  assert.equal(
    violations(['lib', 'server', 'bin', 'testing'], (t) => inside(t, 'crawl') || inside(t, 'plugins')),
    [],
  );
  assert.equal(
    violations(['lib', 'crawl'], (t) => t.startsWith('server/')),
    [],
  );
  assert.ok(importsOf('bin/actor.ts').includes('crawl/index.ts'), "entry points' imports are read");
});

test('plugins/ never import lib/, server/, bin/ or testing/', () => {
  assert.equal(
    violations(['plugins'], (t) => /^(lib|server|bin|testing)\//.test(t)),
    [],
  );
});

test('no source file is over 300 lines, none of plugins/ over 150', () => {
  const long = (folder: string, max: number) =>
    sources(folder)
      .map(
        (file) =>
          [
            file,
            readFileSync(path.join(ROOT, file), 'utf8')
              .split('\n')
              .filter((line, i, all) => i < all.length - 1 || line).length,
          ] as const,
      )
      .filter(([, lines]) => lines > max)
      .map(([file, lines]) => `${file}: ${lines}`);
  const folders = ['engine', 'lib', 'crawl', 'server', 'bin', 'testing', 'scripts'];
  assert.equal([...folders.flatMap((f) => long(f, 300)), ...long('plugins', 150)], []);
  assert.ok(
    sources('plugins').some((file) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length > 140),
    'the count is of lines (a file near the bound is seen)',
  );
});

test('the rules find what they look for (a file that breaks one is caught)', () => {
  assert.ok(importsOf('lib/compose.ts').includes('plugins/index.ts'), 'imports are read');
  assert.ok(importsOf('engine/request/render.ts').includes('engine/request/steps.ts'));
});

test.run();
