import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { CODES } from '../../engine/kernel/errors.ts';
import { ENV_DOCS, loadConfig, shownDefault } from '../../engine/kernel/config.ts';

const SPEC_CODES =
  'EAUTH, ECACHEKEY, EBRWSRTIMEOUT, EFATAL, EFILENAME, EFATALCLIENT, EFORBIDDENURL, EHEADERS, EINVALURL, EINVALPROXY, EINVALURLCLIENT, EINVALTTL, EINVALEVAL, EINVALFUNCTION, EINVALDATA, EINVALQUERY, EINVALSTTL, EINVALOVERLAYBG, EINTEGRATION, EMAXREDIRECTS, EPAGERANGE, EPDFTOOLARGE, EPRO, EPROXY, EPROXYNEEDED, ERATE, ETIMEOUT, ETTL, ESTTL'.split(
    ', ',
  );

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

test('every environment variable is documented in README, in the row the settings declare (defaults included)', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const [name, doc] of Object.entries(ENV_DOCS)) {
    const row = readme.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
    assert.is(row, `| \`${name}\` | ${doc} |`, `README's row of ${name}`);
  }
});

test('a default is written from the value the code uses: change one and the docs change with it', () => {
  assert.match(ENV_DOCS.REFRACT_TIMEOUT!, new RegExp(`\\(default ${shownDefault('timeoutMs')}\\)`));
  assert.is(shownDefault('timeoutMs'), `${loadConfig({}).timeoutMs / 1000}s`);
  assert.is(shownDefault('cacheMaxBytes'), `${loadConfig({}).cacheMaxBytes / 1024 / 1024} MiB`);
  assert.is(shownDefault('port'), String(loadConfig({}).port));
  assert.is(
    loadConfig({ REFRACT_BROWSER_CONCURRENCY: '7' }).browserWarmPages,
    7,
    'the warm pages follow the concurrency',
  );
  assert.throws(() => loadConfig({ REFRACT_TIMEOUT: 'soon' }), /REFRACT_TIMEOUT must be a duration/);
});

test.run();

test('a browser failure past its retries is 408 or 503 with its code, never a 500 (and worth a retry on a fresh browser)', async () => {
  const { fromBrowserFailure, isCrash, toFailure } = await import('../../engine/kernel/failures.ts');
  const timedOut = new Error('Promise handler has been canceled due to a timeout');
  assert.ok(isCrash(timedOut), "Crawlee's operation timeout is retried on a fresh browser");
  const asTimeout = toFailure(fromBrowserFailure(timedOut));
  assert.equal([asTimeout.code, asTimeout.status], ['EBRWSRTIMEOUT', 408]);
  const gone = toFailure(
    fromBrowserFailure(new Error('page.screenshot: Target page, context or browser has been closed')),
  );
  assert.equal([gone.code, gone.status], ['EBUSY', 503]);
  assert.not.ok(gone.unexpected);
  // Anything else keeps what it is.
  const other = new Error('a defect');
  assert.is(fromBrowserFailure(other), other);
});
