import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { CODES } from '../../engine/errors.ts';
import { ENV_DOCS } from '../../engine/config.ts';

const SPEC_CODES = 'EAUTH, ECACHEKEY, EBRWSRTIMEOUT, EFATAL, EFILENAME, EFATALCLIENT, EFORBIDDENURL, EHEADERS, EINVALURL, EINVALPROXY, EINVALURLCLIENT, EINVALTTL, EINVALEVAL, EINVALFUNCTION, EINVALDATA, EINVALQUERY, EINVALSTTL, EINVALOVERLAYBG, EINTEGRATION, EMAXREDIRECTS, EPAGERANGE, EPDFTOOLARGE, EPRO, EPROXY, EPROXYNEEDED, ERATE, ETIMEOUT, ETTL, ESTTL'.split(', ');

test('every code of the contract is in the table with the contract status', () => {
  for (const code of SPEC_CODES) assert.ok(code in CODES, code);
  assert.is(CODES.EAUTH, 401);
  assert.is(CODES.EFORBIDDENURL, 403);
  assert.is(CODES.ERATE, 429);
  assert.is(CODES.ETIMEOUT, 408);
  assert.is(CODES.EFATAL, 500);
});

test('every code has a heading in docs/errors.md', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  for (const code of Object.keys(CODES)) assert.ok(doc.includes(`\n## ${code}\n`), `docs/errors.md lacks ${code}`);
});

test('every environment variable is documented in README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const name of Object.keys(ENV_DOCS)) assert.ok(readme.includes(`\`${name}\``), `README lacks ${name}`);
});

test.run();
