// Target URLs: what the resolver cannot look up is the caller's EINVALURL, decided before any I/O, and a resolver's
// refusal of a name (any of its codes) is EINVALURL too, never a 500.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { checkTargetUrl, validHostName } from '../../engine/plan/url.ts';
import { fromNetwork } from '../../engine/kernel/failures.ts';
import { isRefractError } from '../../engine/kernel/errors.ts';

// Labels start with a letter: a name ending in a number is parsed as an IPv4 address (another check).
const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,78}[a-z0-9])?$/);

test('property: a host is accepted exactly when its labels are 1-63 characters and the name at most 253', () => {
  fc.assert(
    fc.property(fc.array(label, { minLength: 1, maxLength: 6 }), (labels) => {
      const host = labels.join('.');
      const valid = labels.every((l) => l.length <= 63) && host.length <= 253;
      let accepted: boolean;
      try {
        checkTargetUrl(`http://${host}/`);
        accepted = true;
      } catch (err) {
        assert.ok(isRefractError(err) && err.code === 'EINVALURL', String(err));
        accepted = false;
      }
      assert.is(accepted, valid, host);
      assert.is(validHostName(host), valid);
    }),
    { numRuns: 500, seed: Number(process.env.FC_SEED) || undefined },
  );
});

test('address literals and a trailing dot are hosts; an empty label is not', () => {
  assert.ok(validHostName('[::1]'));
  assert.ok(validHostName('example.com.'));
  assert.ok(validHostName('127.0.0.1'));
  assert.not.ok(validHostName('a..b'));
});

test('every way a resolver refuses a name is EINVALURL (an EINVAL from the lookup too); other failures are not', () => {
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'EBADNAME', 'ESERVFAIL']) {
    assert.is(fromNetwork(Object.assign(new Error(code), { code }), undefined, 'http://x/').code, 'EINVALURL', code);
  }
  assert.is(
    fromNetwork(
      Object.assign(new Error('getaddrinfo EINVAL'), { code: 'EINVAL', syscall: 'getaddrinfo', hostname: 'x' }),
      undefined,
      'http://x/',
    ).code,
    'EINVALURL',
  );
  assert.is(
    fromNetwork(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), undefined, 'http://x/').code,
    'EFATALCLIENT',
  );
});

test.run();
