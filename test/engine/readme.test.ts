// README cannot drift from the code: its parameter table names every parameter of the API (each general one,
// each built-in output and each output's options) and nothing else, and every setting the code reads is in
// ENV_DOCS (whose rows README's settings table carries: test/engine/errors.test.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ENV_DOCS } from '../../engine/kernel/config.ts';
import { coreSchema, TEST_HOOK_PARAMS } from '../../engine/plan/options.ts';
import { defaultPlugins } from '../../plugins/index.ts';
import { jsonSchemaOf } from '../../server/reference/openapi-params.ts';
import { ALLOCATOR_ENV } from '../util/child.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The rows of README's parameter table: the names in the first column, and the whole row. */
function parameterRows(): { names: string[]; row: string }[] {
  const api = readme.split('\n## API')[1]!.split('\n## ')[0]!;
  return api
    .split('\n')
    .filter((l) => /^\| `/.test(l))
    .map((row) => {
      const first = row.split(' | ')[0]!;
      return { names: [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.split('.')[0]!.replace(/[^\w]/g, '')), row };
    });
}

test("README's parameter table names every parameter and nothing else", () => {
  const rows = parameterRows();
  const named = new Set(rows.flatMap((r) => r.names));
  const params = [
    ...Object.keys(coreSchema.shape).filter((k) => !TEST_HOOK_PARAMS.has(k)),
    ...defaultPlugins.flatMap((p) => [p.name, ...Object.keys(p.topLevel ?? {})]),
  ];
  const missing = params.filter((p) => !named.has(p));
  const unknown = [...named].filter((n) => !params.includes(n));
  assert.equal({ missing, unknown }, { missing: [], unknown: [] });
});

test("each output's row names each of its options", () => {
  const rows = parameterRows();
  const missing: string[] = [];
  for (const plugin of defaultPlugins) {
    const row = rows.find((r) => r.names[0] === plugin.name)?.row ?? '';
    const schema = jsonSchemaOf(plugin.params);
    const options = Object.keys(schema.properties ?? {});
    for (const option of options)
      if (!row.includes(`.${option}`) && !row.includes(`\`${option}\``)) missing.push(`${plugin.name}.${option}`);
  }
  assert.equal(missing, []);
});

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'));
}

test('every setting the code reads is documented', () => {
  const text = ['engine', 'crawl', 'server', 'plugins', 'bin'].flatMap(sources).join('\n');
  const read = new Set([
    ...[...text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]!),
    ...[...text.matchAll(/['"`](REFRACT_[A-Z0-9_]+)['"`]/g)].map((m) => m[1]!),
    // The settings declared in engine/kernel/config.ts.
    ...[...text.matchAll(/\bsetting\(\s*'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!),
  ]);
  read.delete('PATH');
  // The AWS SDK's own variables, named in REFRACT_ASSETS_S3's row.
  for (const name of read)
    if (name.startsWith('AWS_') && !ENV_DOCS.REFRACT_ASSETS_S3!.includes(name))
      assert.unreachable(`${name} is read but not named`);
  for (const name of [...read]) if (name.startsWith('AWS_')) read.delete(name);
  const undocumented = [...read].filter((name) => !Object.hasOwn(ENV_DOCS, name));
  assert.equal(undocumented, []);
  assert.ok(read.has('CHROME_PATH') && read.has('REFRACT_TRUST_PROXY'));
});

test('npm start gives the server the allocator settings the tests start it with, and the deployment guide names them', () => {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const guide = readFileSync(path.join(ROOT, 'docs/deployment.md'), 'utf8');
  for (const [name, value] of Object.entries(ALLOCATOR_ENV)) {
    assert.ok(start.includes(`${name}=\${${name}:-${value}}`), `npm start sets ${name} (unless set)`);
    assert.ok(guide.includes(`${name}=${value}`), `the deployment guide names ${name}=${value}`);
  }
});

test.run();
