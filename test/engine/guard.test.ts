import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import fc from '../util/fc.ts';
import { createGuard, isPublicAddress } from '../../engine/fetch/guard.ts';
import { RefractError } from '../../engine/kernel/errors.ts';

const fakeDns = (table: Record<string, string[]>) => async (host: string) =>
  (table[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('public unicast addresses pass; every special range fails', () => {
  for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])
    assert.ok(isPublicAddress(ipaddr.parse(a)), a);
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '2001::1',
  ]) {
    assert.not.ok(isPublicAddress(ipaddr.parse(a)), a);
  }
});

test('a name that resolves to any private address is refused', async () => {
  const guard = createGuard([], fakeDns({ 'mixed.test': ['93.184.216.34', '10.0.0.5'], 'ok.test': ['93.184.216.34'] }));
  try {
    await guard.resolve('mixed.test');
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, RefractError);
    assert.is((err as RefractError).code, 'EFORBIDDENURL');
  }
  assert.equal(
    (await guard.resolve('ok.test')).map((a) => a.address),
    ['93.184.216.34'],
  );
});

test('the socket lookup hands the connection only the checked address', async () => {
  let calls = 0;
  const guard = createGuard([], async () => {
    calls++;
    return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  });
  const first = await new Promise<string>((resolve, reject) =>
    guard.lookup('rebind.test', {}, (err, address) => (err ? reject(err) : resolve(address as string))),
  );
  assert.is(first, '93.184.216.34');
  const second = await new Promise<Error | null>((resolve) => guard.lookup('rebind.test', {}, (err) => resolve(err)));
  assert.is((second as RefractError).code, 'EFORBIDDENURL', 'a rebinding answer is refused at connect time');
});

test('a real socket through the guarded lookup never reaches a refused address', async () => {
  const server = net.createServer((s) => s.end('hello')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as net.AddressInfo).port;
  const guard = createGuard([], fakeDns({ 'inside.test': ['127.0.0.1'] }));
  const err = await new Promise<Error | undefined>((resolve) => {
    const socket = net.connect({ host: 'inside.test', port, lookup: guard.lookup as never });
    socket.on('data', () => resolve(undefined));
    socket.on('error', resolve);
  });
  server.close();
  assert.is((err as RefractError | undefined)?.code, 'EFORBIDDENURL');
});

test('the allowlist admits named hosts and CIDRs only', async () => {
  const guard = createGuard(
    ['127.0.0.0/8', 'intranet.test'],
    fakeDns({ 'intranet.test': ['10.0.0.9'], 'other.test': ['10.0.0.9'], 'lo.test': ['127.0.0.5'] }),
  );
  assert.is((await guard.resolve('intranet.test'))[0]!.address, '10.0.0.9');
  assert.is((await guard.resolve('lo.test'))[0]!.address, '127.0.0.5');
  await guard.resolve('other.test').then(
    () => assert.unreachable('should refuse'),
    (e: RefractError) => assert.is(e.code, 'EFORBIDDENURL'),
  );
  guard.checkUrl(new URL('http://127.0.0.9/'));
  assert.throws(
    () => guard.checkUrl(new URL('http://[::1]/')),
    (e: RefractError) => e.code === 'EFORBIDDENURL',
  );
});

/** A private, loopback, link-local, shared or reserved IPv4 address (as four bytes). */
const privateV4 = fc.oneof(
  fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
  fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
);
const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
/** The IPv6 forms that carry an IPv4 address, written as a URL host would be. */
const FORMS: Record<string, (v: number[]) => string> = {
  compatible: (v) => `::${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}`,
  compatibleDotted: (v) => `::${v.join('.')}`,
  mapped: (v) => `::ffff:${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}`,
  mappedDotted: (v) => `::ffff:${v.join('.')}`,
  translated: (v) => `::ffff:0:${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}`,
  nat64: (v) => `64:ff9b::${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}`,
  nat64Local: (v) => `64:ff9b:1::${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}`,
  sixToFour: (v) => `2002:${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}::1`,
  teredoClient: (v) => `2001:0:5db8:1a2b:0:f000:${hex(v[0]! ^ 0xff, v[1]! ^ 0xff)}:${hex(v[2]! ^ 0xff, v[3]! ^ 0xff)}`,
  teredoServer: (v) => `2001:0:${hex(v[0]!, v[1]!)}:${hex(v[2]!, v[3]!)}:0:f000:a2b3:c4d5`,
};

test('property: IPv6 forms that embed a private IPv4 address are refused (resolver injected, nothing connected)', async () => {
  let resolved = 0;
  const guard = createGuard([], async () => {
    resolved++;
    return [];
  });
  await fc.assert(
    fc.asyncProperty(privateV4, fc.constantFrom(...Object.keys(FORMS)), async (v4, form) => {
      const host = new URL(`http://[${FORMS[form]!(v4)}]:8080/`).hostname;
      const refused = (e: unknown) => (e as RefractError).code === 'EFORBIDDENURL';
      assert.throws(() => guard.checkUrl(new URL(`http://${host}/`)), refused, `${form} ${host}`);
      await guard.resolve(host).then(
        () => assert.unreachable(`${form} ${host} passed`),
        (e: unknown) => assert.ok(refused(e), `${form} ${host}: ${(e as Error).message}`),
      );
    }),
    { numRuns: 500 },
  );
  assert.is(resolved, 0, 'address literals are never looked up');
});

test('the forms of the issue: [::127.0.0.2] and [::ffff:0:7f00:2] are EFORBIDDENURL, not a crash; public embeddings pass', async () => {
  const guard = createGuard();
  for (const host of ['[::127.0.0.2]', '[::ffff:0:7f00:2]', '[::7f00:2]', '[64:ff9b::a9fe:a9fe]']) {
    assert.throws(
      () => guard.checkUrl(new URL(`http://${host}:1/`)),
      (e: RefractError) => e.code === 'EFORBIDDENURL',
      host,
    );
  }
  for (const a of ['::ffff:93.184.216.34', '64:ff9b::5db8:d822', '2002:5db8:d822::1'])
    assert.ok(isPublicAddress(ipaddr.parse(a)), a);
});

test('property: a guard that remembers its verdicts answers each host as a new guard does, however often asked', () => {
  const allow = ['10.1.0.0/16', '::ffff:192.168.7.0/120'];
  const kept = createGuard(allow);
  const publicV4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.nat(255));
  const host = fc.oneof(
    fc.oneof(privateV4, publicV4).map((v) => v.join('.')),
    fc
      .tuple(fc.oneof(privateV4, publicV4), fc.constantFrom(...Object.keys(FORMS)))
      .map(([v, form]) => `[${FORMS[form]!(v)}]`),
    fc.constantFrom('10.1.2.3', '10.2.0.1', '[::ffff:192.168.7.9]', 'example.com', 'intranet'),
  );
  const verdict = (guard: ReturnType<typeof createGuard>, h: string) => {
    try {
      guard.checkUrl(new URL(`http://${h}/`));
      return 'ok';
    } catch (err) {
      return (err as RefractError).code;
    }
  };
  fc.assert(
    fc.property(fc.array(host, { minLength: 1, maxLength: 6 }), (hosts) => {
      for (const h of [...hosts, ...hosts]) assert.is(verdict(kept, h), verdict(createGuard(allow), h), h);
    }),
    { numRuns: 2000 },
  );
});

test.run();
