// The deployment guide's reverse proxy, run as written (docs/deployment.md): nginx in front of two Refract
// processes sharing Redis. The cache and the quota are shared, the client's address comes through the trusted
// proxy, both processes get traffic, and a draining process costs no answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild, type Child } from '../util/child.ts';
import { startRedis, type TestRedis } from '../util/redis.ts';
import { freePort, serveFixtures, type Fixture } from '../util/serve.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NGINX = '/usr/sbin/nginx';
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-deploy-'));
let redis: TestRedis;
let fx: Fixture;
let nginx: ChildProcess;
const backends: Child[] = [];
let front = '';

/** The nginx block of the guide, with this test's ports for the ones it names. */
function guideConfig(ports: Record<string, number>): string {
  const guide = readFileSync(path.join(ROOT, 'docs/deployment.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1];
  assert.ok(block, 'the guide has an nginx configuration');
  let conf = block!;
  for (const [from, to] of Object.entries(ports))
    conf = conf.replace(new RegExp(`(127\\.0\\.0\\.1:|listen )${from}\\b`, 'g'), `$1${to}`);
  return conf;
}

test.before(async () => {
  redis = await startRedis();
  fx = await serveFixtures();
  const [free1, pro1, free2, pro2, listenFree, listenPro] = await Promise.all(Array.from({ length: 6 }, freePort));
  front = `http://127.0.0.1:${listenFree}`;
  for (const [port, proPort] of [
    [free1, pro1],
    [free2, pro2],
  ]) {
    backends.push(
      await startChild(ROOT, {
        PORT: String(port),
        PRO_PORT: String(proPort),
        HOST: '127.0.0.1',
        REDIS_URL: redis.url,
        REFRACT_TRUST_PROXY: 'loopback',
        PUBLIC_URL: front,
        REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
        REFRACT_LOG_LEVEL: 'info',
        REFRACT_FREE_QUOTA: '5',
        REFRACT_ASSETS_DIR: path.join(dir, 'assets'),
        REFRACT_SHUTDOWN_GRACE: '10s',
      }),
    );
  }
  const site = guideConfig({ 3000: free1!, 3001: pro1!, 3010: free2!, 3011: pro2!, 80: listenFree!, 8080: listenPro! });
  assert.ok(
    site.includes(`127.0.0.1:${free2}`) && site.includes(`listen ${listenPro}`),
    'every port of the guide replaced',
  );
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, name)};`;
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `pid ${path.join(dir, 'nginx.pid')};\nerror_log stderr warn;\nevents {}\nhttp {\n  access_log off;\n  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}\n${site}\n}\n`,
  );
  nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off; master_process off;'], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let err = '';
  nginx.stderr!.on('data', (c: Buffer) => {
    err += c;
  });
  // Ready when it answers (a connection refused meanwhile is retried; an exit is a failure).
  const exited = new Promise<never>((_, reject) =>
    nginx.once('exit', (code) => reject(new Error(`nginx exited ${code}: ${err}`))),
  );
  for (;;) {
    const ok = await Promise.race([
      fetch(`${front}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
      exited,
    ]);
    if (ok) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
});

test.after(async () => {
  nginx?.kill('SIGTERM');
  await Promise.all(backends.map((b) => b.stop()));
  await fx.close();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
});

/** How many free-endpoint API requests one process answered, from its own /metrics. */
async function answered(backend: Child): Promise<number> {
  const text = await (await fetch(`${backend.proUrl}/metrics`)).text();
  return [...text.matchAll(/^refract_requests_total\{[^}]*endpoint="free"[^}]*\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
}

test('through nginx: both processes answer, the cache is shared, the client address is the forwarded one', async () => {
  const pages = Array.from({ length: 4 }, (_, i) => `${fx.url}/sites/article/index.html?n=${i}`);
  const clients = ['203.0.113.7', '198.51.100.9'];
  const first = await Promise.all(
    pages.map((p, i) =>
      fetch(`${front}/?url=${encodeURIComponent(p)}`, { headers: { 'x-forwarded-for': clients[i % 2]! } }),
    ),
  );
  for (const res of first) {
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-cache-status'), 'MISS');
  }
  const counts = await Promise.all(backends.map(answered));
  assert.ok(
    counts.every((n) => n > 0),
    `both processes answered: ${counts}`,
  );
  // Again, from the other client: each page is a HIT whichever process answers.
  const again = await Promise.all(
    pages.map((p, i) =>
      fetch(`${front}/?url=${encodeURIComponent(p)}`, { headers: { 'x-forwarded-for': clients[(i + 1) % 2]! } }),
    ),
  );
  for (const res of again) assert.is(res.headers.get('x-cache-status'), 'HIT');
  // The quota (5 a window) is counted per forwarded client across both processes; HITs cost nothing, so each of
  // the two clients has spent its two MISSes.
  const probe = await fetch(`${front}/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html?n=8`)}`, {
    headers: { 'x-forwarded-for': '192.0.2.44' },
  });
  assert.is(probe.headers.get('x-rate-limit-remaining'), '4', 'a new client has its own, untouched quota');
  const spent = await fetch(`${front}/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html?n=9`)}`, {
    headers: { 'x-forwarded-for': clients[0]! },
  });
  assert.is(
    spent.headers.get('x-rate-limit-remaining'),
    '2',
    "the first client's two MISSes counted once, across both processes",
  );
  // Links to generated files and error docs use PUBLIC_URL: the proxy's address.
  const shot = await (
    await fetch(`${front}/?url=${encodeURIComponent(pages[1]!)}&screenshot&meta=false`, {
      headers: { 'x-forwarded-for': '192.0.2.45' },
    })
  ).json();
  assert.ok(shot.data.screenshot.url.startsWith(`${front}/assets/`), shot.data.screenshot.url);
  assert.is(
    (await fetch(shot.data.screenshot.url)).status,
    200,
    'the file is served through the proxy, by either process',
  );
});

test('a process draining on SIGTERM costs no answer: nginx moves to the other one', async () => {
  const [leaving, staying] = backends;
  const before = await answered(staying!);
  const ended = leaving!.exited;
  leaving!.process.kill('SIGTERM');
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      fetch(`${front}/?url=${encodeURIComponent(`${fx.url}/sites/article/index.html?drain=${i}`)}`, {
        headers: { 'x-forwarded-for': `192.0.2.${100 + i}` },
      }),
    ),
  );
  assert.equal(
    results.map((r) => r.status),
    Array(8).fill(200),
  );
  assert.is(await ended, 0, 'the drained process exits 0');
  assert.ok((await answered(staying!)) > before);
  assert.is((await fetch(`${front}/readyz`)).status, 200, 'readiness through the proxy: the remaining process');
});

test.run();
