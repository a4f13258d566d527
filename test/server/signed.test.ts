// Signed links (issue 43, item 3): no header, charged to the signing key, exactly that query, until it expires.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signUrl, signingSecret } from '../../lib/index.ts';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, q } from '../util/refract.ts';
import { startCli } from '../util/cli.ts';
import type { App } from '../../server/app.ts';

const MASTER = 'test-signing-master';
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-signed-'));
const keyFile = path.join(dir, 'keys');
let fx: Fixture;
let app: App;
let unsigned: App;

const secret = (key: string) => signingSecret(MASTER, key);
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const get = async (url: string, init: RequestInit = {}) => {
  const res = await fetch(url, init);
  const raw = Buffer.from(await res.arrayBuffer());
  const body = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(raw.toString()) : raw;
  return { status: res.status, headers: res.headers, body, raw };
};

test.before(async () => {
  writeFileSync(keyFile, 'alpha-key 500\nbeta-key 40\n');
  fx = await serveFixtures({
    '/page.html': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Signed page</title></head><body style="background:#1e90ff"><h1>Hi</h1></body></html>',
      );
    },
  });
  app = await startRefract({ REFRACT_API_KEYS: keyFile, REFRACT_SIGNING_SECRET: MASTER });
  unsigned = await startRefract({ REFRACT_API_KEYS: keyFile });
});

test.after(async () => {
  await app.close();
  await unsigned.close();
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a signed link needs no header on either endpoint and is charged to its key as a pro request', async () => {
  const query = `url=${q(`${fx.url}/page.html`)}&force`;
  for (const endpoint of [app.freeUrl, app.proUrl]) {
    const link = signUrl({ endpoint, query, secret: secret('beta-key'), expires: inAnHour() });
    const res = await get(link);
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.data.title, 'Signed page');
    assert.is(res.headers.get('x-pricing-plan'), 'pro');
    assert.is(res.headers.get('x-rate-limit-limit'), '40', "the key's own monthly quota");
    assert.is(res.headers.get('x-refract-unknown-params'), null, 'signature and expires are not options');
  }
  // The key's own requests see both uses.
  const own = await get(`${app.proUrl}/?url=${q(`${fx.url}/page.html`)}&force`, {
    headers: { 'x-api-key': 'beta-key' },
  });
  assert.is(own.headers.get('x-rate-limit-remaining'), String(40 - 3));
  // The order of the parameters is not part of the query signed.
  const link = new URL(
    signUrl({
      endpoint: app.freeUrl,
      query: `meta=true&url=${q(`${fx.url}/page.html`)}`,
      secret: secret('alpha-key'),
      expires: inAnHour(),
    }),
  );
  const reordered = new URLSearchParams([...link.searchParams].reverse());
  assert.is((await get(`${app.freeUrl}/?${reordered}`)).status, 200);
});

test('tampered, expired, unknown or revoked: 401 EAUTH, and a stray signature is never ignored', async () => {
  const query = `url=${q(`${fx.url}/page.html`)}`;
  const good = signUrl({ endpoint: app.freeUrl, query, secret: secret('alpha-key'), expires: inAnHour() });
  const refused = async (url: string, why: RegExp) => {
    const res = await get(url);
    assert.is(res.status, 401, `${url} -> ${res.status}`);
    assert.is(res.body.code, 'EAUTH');
    assert.match(res.body.message, why);
  };
  await refused(good.replace('page.html', 'other.html'), /does not match/);
  await refused(`${good}&screenshot`, /does not match/);
  await refused(good.replace(/expires=\d+/, `expires=${inAnHour() + 60}`), /does not match/);
  const past = signUrl({
    endpoint: app.freeUrl,
    query,
    secret: secret('alpha-key'),
    expires: Math.floor(Date.now() / 1000) - 5,
  });
  await refused(past, /expired at/);
  await refused(
    signUrl({ endpoint: app.freeUrl, query, secret: secret('no-such-key'), expires: inAnHour() }),
    /does not match/,
  );
  await refused(signUrl({ endpoint: app.freeUrl, query, secret: 'made-up', expires: inAnHour() }), /does not match/);
  await refused(`${app.freeUrl}/?${query}&signature=abc`, /needs `expires`/);
  await refused(`${app.freeUrl}/?${query}&expires=${inAnHour()}`, /one `signature`/);
  await refused(`${app.freeUrl}/?${query}&sign%61ture=abc`, /signed link/);
  // A server without REFRACT_SIGNING_SECRET refuses every signed link.
  await refused(good.replace(app.freeUrl, unsigned.freeUrl), /REFRACT_SIGNING_SECRET is unset/);
  // A key taken out of the key file revokes its links; the other key's go on working.
  const beta = signUrl({ endpoint: app.freeUrl, query, secret: secret('beta-key'), expires: inAnHour() });
  assert.is((await get(good)).status, 200);
  writeFileSync(keyFile, 'beta-key 40\n');
  try {
    await refused(good, /no longer valid/);
    assert.is((await get(beta)).status, 200);
  } finally {
    writeFileSync(keyFile, 'alpha-key 500\nbeta-key 40\n');
  }
});

test('an <img> of a signed embed: the screenshot bytes with their content type', async () => {
  const query = `url=${q(`${fx.url}/page.html`)}&screenshot&meta=false&embed=screenshot.url`;
  const link = signUrl({ endpoint: app.freeUrl, query, secret: secret('alpha-key'), expires: inAnHour() });
  const res = await get(link);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.equal([...res.raw.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
});

test('refract sign: the same links from the command line; --secret-of gives the key holder its secret', async () => {
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const cli = startCli(['sign', ...args], env);
    return { code: await cli.exited, out: cli.stdoutText().trim(), err: cli.stderrText() };
  };
  const query = `url=${q(`${fx.url}/page.html`)}`;
  const made = await run([query, '--key', 'alpha-key', '--endpoint', app.freeUrl, '--expires', '2h'], {
    REFRACT_SIGNING_SECRET: MASTER,
  });
  assert.is(made.code, 0, made.err);
  const expires = Number(new URL(made.out).searchParams.get('expires'));
  assert.ok(Math.abs(expires - (Date.now() / 1000 + 7200)) < 60, `expires ${expires}`);
  assert.is(made.out, signUrl({ endpoint: app.freeUrl, query, secret: secret('alpha-key'), expires }));
  assert.is((await get(made.out)).status, 200);
  const shown = await run(['--secret-of', 'alpha-key'], { REFRACT_SIGNING_SECRET: MASTER });
  assert.is(shown.out, secret('alpha-key'));
  // The key holder signs with that secret, from a whole API link.
  const byHolder = await run([`${app.freeUrl}/?${query}`, '--secret', shown.out, '--expires', String(inAnHour())]);
  assert.is(byHolder.code, 0, byHolder.err);
  assert.is((await get(byHolder.out)).status, 200);
  const noSecret = await run([query, '--key', 'alpha-key'], { REFRACT_SIGNING_SECRET: '' });
  assert.is(noSecret.code, 2);
  assert.match(noSecret.err, /REFRACT_SIGNING_SECRET is unset/);
  // The library takes the CLI's durations too.
  const inOneHour = Number(
    new URL(signUrl({ query, secret: 'x', expires: '1h' }), 'http://x').searchParams.get('expires'),
  );
  assert.ok(Math.abs(inOneHour - (Date.now() / 1000 + 3600)) < 60, `expires ${inOneHour}`);
  assert.throws(() => signUrl({ query, secret: 'x', expires: 'soon' }), /duration/);
  assert.throws(() => signUrl({ query, secret: 'x', expires: '3600' }), /duration/);
  const badExpiry = await run([query, '--secret', 'x', '--expires', 'soon']);
  assert.is(badExpiry.code, 2);
  assert.match(badExpiry.err, /--expires/);
});

test.run();
