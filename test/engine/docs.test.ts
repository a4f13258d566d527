// docs/plugins.md cannot drift from the plugin API: every field of a plugin definition, every member of the
// context and every schema helper the package exports has its row in the reference, and no row names
// something the code does not have.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import * as api from '../../engine/index.ts';

const source = readFileSync(new URL('../../engine/plan/plugin.ts', import.meta.url), 'utf8');
const doc = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');

/** Member names of an interface in engine/plan/plugin.ts (one per line, two-space indent). */
function members(name: string): string[] {
  const body = new RegExp(`export interface ${name}[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(source)?.[1] ?? '';
  return [...body.matchAll(/^ {2}(?:get )?([\w$]+)[?(:<]/gm)].map((m) => m[1]!);
}

/** The first-column names of the table under a reference heading. */
function rows(heading: string): string[] {
  const section = doc.split(`### ${heading}`)[1]?.split('\n### ')[0] ?? '';
  return [...section.matchAll(/^\| `([\w$]+)` \|/gm)].map((m) => m[1]!);
}

test('every field of a plugin definition is documented, and only those', () => {
  const fields = members('PluginDefinition');
  assert.ok(fields.includes('run') && fields.includes('needs'));
  assert.equal(rows('`definePlugin(definition)`').sort(), [...fields].sort());
});

test('every member of the context is documented, and only those', () => {
  const fields = members('Context');
  assert.ok(fields.includes('$') && fields.includes('signal'));
  assert.equal(rows('The context (`ctx`)').sort(), [...fields].sort());
});

test('every schema helper in the reference is exported by the package', () => {
  const helpers = rows('Schema helpers');
  assert.ok(helpers.length >= 9);
  for (const name of helpers) assert.ok(name in api, `${name} is documented but not exported`);
  for (const name of ['options', 'bool', 'num', 'text', 'oneOf', 'duration', 'list', 'device', 'z'])
    assert.ok(helpers.includes(name), `${name} is exported but not documented`);
});

test.run();
