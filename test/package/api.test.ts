// The package's public surface is chosen on purpose (docs/api.md): the entries export exactly the names listed
// there, of the kind listed, and the docs import nothing else. A change to the surface fails here until the table
// says so.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { apiSurface, ENTRIES, exportsOf } from '../../scripts/api-surface.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const row = (r: { entry: string; name: string; kind: string }) => `${r.entry} ${r.kind} ${r.name}`;

/** The rows of docs/api.md's table. */
function documented(): string[] {
  const rows: string[] = [];
  for (const line of readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8').split('\n')) {
    const m = /^\| `([\w$]+)` \| (value|type) \| ([\w/-]+) \|/.exec(line);
    if (m) rows.push(row({ name: m[1]!, kind: m[2]!, entry: m[3]! }));
  }
  return rows.sort();
}

test('the entries export exactly what docs/api.md lists', () => {
  const actual = apiSurface().map(row).sort();
  const listed = documented();
  assert.equal(
    actual.filter((r) => !listed.includes(r)),
    [],
    'exported but not in docs/api.md',
  );
  assert.equal(
    listed.filter((r) => !actual.includes(r)),
    [],
    'in docs/api.md but not exported',
  );
});

test('what the entries export at run time is what they declare (values)', async () => {
  for (const [entry, file] of Object.entries(ENTRIES)) {
    const loaded = Object.keys(await import(path.join(ROOT, file))).sort();
    const declared = apiSurface()
      .filter((e) => e.entry === entry && e.kind === 'value')
      .map((e) => e.name)
      .sort();
    assert.equal(loaded, declared, entry);
  }
});

test('the reader of the surface is not fooled: it refuses export * and reads every form', () => {
  assert.throws(() => exportsOf("export * from './x.ts';"), /one by one/);
  assert.equal(
    exportsOf(
      "export { a, type B, c as d } from './x.ts';\nexport type { E } from './y.ts';\nexport async function f() {}\nexport interface G {}",
    ),
    [
      { name: 'a', kind: 'value' },
      { name: 'B', kind: 'type' },
      { name: 'd', kind: 'value' },
      { name: 'E', kind: 'type' },
      { name: 'f', kind: 'value' },
      { name: 'G', kind: 'type' },
    ],
  );
});

test('README and docs import from the package only what it exports', () => {
  const surface = apiSurface();
  const files = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  let imports = 0;
  for (const file of files) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(refract-api(?:\/[\w-]+)?)'/g)) {
      for (const part of m[1]!
        .split(',')
        .map(
          (p) =>
            p
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]!,
        )
        .filter(Boolean)) {
        imports++;
        assert.ok(
          surface.some((e) => e.entry === m[2] && e.name === part),
          `${file} imports ${part} from ${m[2]}, which it does not export`,
        );
      }
    }
  }
  assert.ok(imports >= 5, `the docs' imports were read (${imports})`);
});

test.run();
