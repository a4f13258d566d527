// docs/parameters.md cannot drift: every parameter the service accepts (general, each built-in output, each
// top-level option of an output) has its row, nothing else has one, every file it names exists, and the file
// that declares a parameter declares that name.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { coreSchema } from '../../engine/plan/options.ts';
import { EXPIRES_PARAM, SIGNATURE_PARAM } from '../../engine/kernel/signing.ts';
import { defaultPlugins } from '../../plugins/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(ROOT, 'docs/parameters.md'), 'utf8');

/** The table rows: a parameter, the file that declares it, and every file the row names. */
const rows = doc
  .split('\n')
  .filter((l) => /^\| `\w+` \|/.test(l))
  .map((line) => {
    const [name, declared, read] = line.split(' | ').map((c) => c.replace(/^\| /, ''));
    const files = (cell: string) =>
      [...cell.matchAll(/`((?:engine|plugins|server|bin|lib)\/[\w/.-]+)`/g)].map((m) => m[1]!);
    return {
      name: name!.replace(/`/g, ''),
      declaredIn: files(declared!)[0],
      files: [...files(declared!), ...files(read ?? '')],
    };
  });

test('every parameter has a row, and no row names a parameter that does not exist', () => {
  const accepted = [
    ...Object.keys(coreSchema.shape),
    // A signed link's two, read by the server before the query is planned.
    SIGNATURE_PARAM,
    EXPIRES_PARAM,
    ...defaultPlugins.flatMap((p) => [p.name, ...Object.keys(p.topLevel ?? {})]),
  ];
  const named = rows.map((r) => r.name);
  assert.equal(
    { missing: accepted.filter((n) => !named.includes(n)), unknown: named.filter((n) => !accepted.includes(n)) },
    { missing: [], unknown: [] },
  );
  assert.is(new Set(named).size, named.length, 'one row a parameter');
});

test('every file a row names exists, and the declaring file declares the parameter', () => {
  for (const row of rows) {
    assert.ok(row.declaredIn, `${row.name} names the file that declares it`);
    for (const file of row.files) assert.ok(existsSync(path.join(ROOT, file)), `${row.name}: ${file} exists`);
    const source = readFileSync(path.join(ROOT, row.declaredIn!), 'utf8');
    const plugin = defaultPlugins.find((p) => p.name === row.name);
    const signing = [SIGNATURE_PARAM, EXPIRES_PARAM].includes(row.name);
    const declaration = plugin
      ? `name: '${row.name}'`
      : signing
        ? `_PARAM = '${row.name}'`
        : new RegExp(`^\\s+${row.name}: `, 'm');
    assert.ok(
      typeof declaration === 'string' ? source.includes(declaration) : declaration.test(source),
      `${row.declaredIn} declares ${row.name}`,
    );
  }
});

test.run();
