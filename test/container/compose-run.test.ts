// refract-test: image (the runner builds the Refract image first; this file runs after image.test.ts)
// compose.yaml's scale profile, run with podman-compose: three API processes behind nginx, Redis, an S3 API and two
// browser nodes. No image registry is reachable here, so the public images are stood in for by images built from
// Debian's packages (Redis, nginx) and an S3 API on the Refract image (fixtures/compose/), named through the variables
// compose reads. Checked: a screenshot through nginx lands in the bucket and its link works from every API process,
// a crawl job made on one process is read on another, and with one API process and one browser node killed,
// requests keep being answered. The single profile's process runs beside them (podman-compose 1.0 has no --profile:
// the test names the services of each).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { q } from '../util/refract.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROJECT = 'refract-ct';
const NETWORK = `${PROJECT}_default`;
/** The compose network's addresses, fixed so that the guard's allowlist can name its gateway (this host). */
const SUBNET = '10.89.213.0/24';
const GATEWAY = '10.89.213.1';
const KEY = `ct-${process.pid}`;
const RUN_FLAGS = ['--runtime', 'runc'];
const LIMITS = '--ulimit nofile=20000:20000 --ulimit nproc=4096:4096';
const STANDINS = ['redis', 'nginx', 's3'] as const;
const env = {
  ...process.env,
  REFRACT_API_KEYS: KEY,
  REFRACT_IMAGE: 'localhost/refract:test',
  REFRACT_REDIS_IMAGE: 'localhost/refract-standin-redis:test',
  REFRACT_NGINX_IMAGE: 'localhost/refract-standin-nginx:test',
  REFRACT_S3_IMAGE: 'localhost/refract-standin-s3:test',
  // s3rver takes its own fixed credentials.
  REFRACT_S3_ACCESS_KEY: 'S3RVER',
  REFRACT_S3_SECRET_KEY: 'S3RVER',
  REFRACT_BROWSER_TOKEN: `token-${process.pid}`,
  PUBLIC_URL: 'http://localhost:8080',
};

let fx: Fixture;
const context = mkdtempSync(path.join(os.tmpdir(), 'refract-standins-'));

/** Runs a command; resolves with its output when it ends 0 (rejects with its tail otherwise). */
function run(cmd: string, args: string[], extraEnv: NodeJS.ProcessEnv = process.env): Promise<string> {
  const child = spawn(cmd, args, { cwd: ROOT, env: extraEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => {
    out = (out + c.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${cmd} ${args.join(' ').slice(0, 160)} ended ${code}:\n${out.slice(-3000)}`)),
    ),
  );
}

const compose = (...args: string[]) =>
  run(
    'podman-compose',
    [
      '-p',
      PROJECT,
      `--podman-args=${RUN_FLAGS.join(' ')}`,
      `--podman-run-args=${LIMITS} -e REFRACT_ALLOW_PRIVATE_HOSTS=${SUBNET}`,
      ...args,
    ],
    env,
  );

/** A package and what it depends on, copied from the project's node_modules (as npm laid them out). */
function copyPackage(name: string, from: string, into: string, seen = new Set<string>()): void {
  let dir = from;
  let found: string | undefined;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) {
      found = candidate;
      break;
    }
    if (dir === ROOT || dir === path.dirname(dir)) break;
    dir = path.dirname(dir);
  }
  if (!found) throw new Error(`${name} is not installed (needed from ${from})`);
  if (seen.has(found)) return;
  seen.add(found);
  cpSync(found, path.join(into, path.relative(ROOT, found)), { recursive: true, dereference: true });
  const manifest = JSON.parse(readFileSync(path.join(found, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const dep of Object.keys(manifest.dependencies ?? {})) copyPackage(dep, found, into, seen);
}

async function ipOf(container: string): Promise<string> {
  return (
    await run('podman', ['inspect', container, '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}'])
  ).trim();
}

/**
 * Waits (polling, within a deadline) until `check` holds; past the deadline, throws with what the last check found
 * and, for each container named, its state and the tail of its log.
 */
async function until(
  what: string,
  check: () => Promise<boolean>,
  containers: string[] = [],
  ms = 180_000,
): Promise<void> {
  const end = Date.now() + ms;
  let last = '';
  while (Date.now() < end) {
    try {
      if (await check()) return;
      last = 'the check did not hold';
    } catch (err) {
      last = `${(err as Error).message} ${(err as Error).cause ?? ''}`;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const seen = await Promise.all(
    containers.map(async (name) => {
      const state = await run('podman', [
        'inspect',
        name,
        '--format',
        '{{.State.Status}} exit {{.State.ExitCode}}, restarts {{.RestartCount}}',
      ]).catch((err: Error) => err.message);
      const log = await run('podman', ['logs', '--tail', '30', name]).catch((err: Error) => err.message);
      return `--- ${name}: ${state.trim()}\n${log.slice(-3000)}`;
    }),
  );
  // The names the network's DNS knows (CNI's dnsname plugin): stop 71's CI waited 180 s on `ENOTFOUND s3`.
  const hosts = `/run/containers/cni/dnsname/${NETWORK}/addnhosts`;
  const names = existsSync(hosts) ? readFileSync(hosts, 'utf8') : `(no ${hosts})`;
  throw new Error(`${what}: not within ${ms / 1000} s (last: ${last})\n${seen.join('\n')}\n--- DNS names:\n${names}`);
}

/** How long one readiness poll may take: a connection that hangs is a failed poll, not the whole wait's deadline. */
const POLL_MS = 5000;

/** Whether `origin` answers its readiness check; when it does not, throws with the status and what it said. */
async function readyAt(origin: string): Promise<boolean> {
  const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(POLL_MS) });
  if (!res.ok) throw new Error(`${origin}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return true;
}

/** Whether an API process answers its readiness check (its address read again each time: a restart may change it). */
async function ready(container: string): Promise<boolean> {
  const ip = await ipOf(container);
  if (!ip) throw new Error(`${container} has no address (not running)`);
  return readyAt(`http://${ip}:3000`);
}

test.before(async () => {
  cpSync(path.join(ROOT, 'fixtures/compose'), context, { recursive: true });
  copyPackage('s3rver', ROOT, path.join(context, 's3'));
  await Promise.all(
    STANDINS.map((name) =>
      run('podman', [
        ...RUN_FLAGS,
        'build',
        '--network',
        'host',
        ...LIMITS.split(' '),
        '-t',
        `localhost/refract-standin-${name}:test`,
        path.join(context, name),
      ]),
    ),
  );
  await compose('down').catch(() => '');
  await run('podman', ['network', 'rm', '-f', NETWORK]).catch(() => '');
  await run('podman', ['network', 'create', '--subnet', SUBNET, NETWORK]);
  fx = await serveFixtures({}, undefined, '0.0.0.0', GATEWAY);
  await compose('up', '-d', '--no-build', 'redis', 's3', 'browser-1', 'browser-2', 'api-1', 'api-2', 'api-3', 'proxy');
  // Each API process itself first, then nginx: nginx is asked once the processes answer, as a deployment's health
  // check would, and its first answers are the processes' own.
  const around = ['redis', 's3', 'browser-1', 'browser-2'].map((name) => `${PROJECT}_${name}_1`);
  for (const n of [1, 2, 3]) {
    const api = `${PROJECT}_api-${n}_1`;
    await until(`api-${n} ready`, () => ready(api), [api, ...around]);
  }
  await until('the scale profile ready through nginx', () => readyAt('http://127.0.0.1:8080'), [`${PROJECT}_proxy_1`]);
});

test.after(async () => {
  await compose('down').catch((err: Error) => console.log(err.message));
  await run('podman', ['network', 'rm', '-f', NETWORK]).catch(() => '');
  await fx?.close();
  rmSync(context, { recursive: true, force: true });
});

const shot = (n: string) =>
  fetch(`http://127.0.0.1:8080/?url=${q(`${fx.url}/sites/article/index.html?n=${n}`)}&screenshot&meta=false`).then(
    async (r) => ({ status: r.status, body: (await r.json().catch(() => ({}))) as any }),
  );

test('a screenshot through nginx lands in the bucket, and its link works from every API process', async () => {
  const { status, body } = await shot('first');
  assert.is(status, 200, JSON.stringify(body).slice(0, 300));
  const link = new URL(body.data.screenshot.url);
  assert.is(link.origin, 'http://localhost:8080');
  const listed = await new S3Client({
    region: 'us-east-1',
    endpoint: `http://${await ipOf(`${PROJECT}_s3_1`)}:7070`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  }).send(new ListObjectsV2Command({ Bucket: 'refract', Prefix: 'assets/' }));
  assert.ok(
    listed.Contents?.some((o) => link.pathname.endsWith(path.basename(o.Key!))),
    'the capture is an object of the bucket',
  );
  for (const replica of [1, 2, 3]) {
    const res = await fetch(`http://${await ipOf(`${PROJECT}_api-${replica}_1`)}:3000${link.pathname}`);
    assert.is(res.status, 200, `api_${replica}`);
    assert.is(res.headers.get('content-type'), 'image/png');
    assert.is(Number(res.headers.get('content-length')), body.data.screenshot.size);
  }
});

test('the single profile beside it: one process on :3000, its files in its own volume', async () => {
  await compose('up', '-d', '--no-build', 'refract');
  await until('the single process ready', () => readyAt('http://127.0.0.1:3000'), [`${PROJECT}_refract_1`]);
  const res = await fetch(
    `http://127.0.0.1:3000/?url=${q(`${fx.url}/sites/article/index.html?single`)}&screenshot&meta=false`,
  );
  const body = (await res.json()) as any;
  assert.is(res.status, 200, JSON.stringify(body).slice(0, 300));
  const file = await fetch(`http://127.0.0.1:3000${new URL(body.data.screenshot.url).pathname}`);
  assert.equal([file.status, file.headers.get('content-type')], [200, 'image/png']);
  // Stored in its volume, not in the bucket the scale processes share.
  const mount = (await run('podman', ['inspect', `${PROJECT}_refract_1`, '--format', '{{json .Mounts}}'])).trim();
  assert.match(mount, /"Destination":"\/data\/assets"/);
});

test('a crawl job made on one API process is read on another', async () => {
  const [one, two] = [await ipOf(`${PROJECT}_api-1_1`), await ipOf(`${PROJECT}_api-2_1`)];
  const made = await fetch(`http://${one}:3001/crawls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: JSON.stringify({ urls: [`${fx.url}/sites/article/index.html?crawl`] }),
  }).then((r) => r.json() as Promise<any>);
  assert.is(made.status, 'success', JSON.stringify(made));
  let job: any;
  await until('the job completed, read on another process', async () => {
    job = await fetch(`http://${two}:3001/crawls/${made.data.id}`, { headers: { 'x-api-key': KEY } }).then((r) =>
      r.json(),
    );
    return job.data?.status === 'completed';
  }, [`${PROJECT}_api-1_1`, `${PROJECT}_api-2_1`]);
  assert.equal(job.data.pages, { done: 1, failed: 0, queued: 0 });
});

test('one API process and one browser node killed: requests keep being answered', async () => {
  await run('podman', ['kill', `${PROJECT}_api-1_1`, `${PROJECT}_browser-1_1`]);
  // Each within the request's own deadline (28 s) and a margin: nginx once held a request 60 s on a connection to
  // the killed process's address (its default connect timeout) before it tried another (answers took 6.6-65.5 s).
  const answers = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => {
      const started = performance.now();
      const answer = await shot(`after-kill-${i}`);
      return { ...answer, ms: performance.now() - started };
    }),
  );
  const slowest = Math.max(...answers.map((a) => a.ms));
  assert.ok(
    slowest < 35_000,
    `every answer within its deadline and a margin: the slowest took ${Math.round(slowest)} ms`,
  );
  const statuses = answers.map((a) => a.status);
  if (statuses.some((s) => s !== 200)) {
    const log = await run('podman', ['exec', `${PROJECT}_proxy_1`, 'tail', '-n', '8', '/var/log/nginx/error.log']);
    console.log(log.slice(-3000));
    for (const api of ['api-2', 'api-3'])
      console.log(
        api,
        (await run('podman', ['logs', '--tail', '12', `${PROJECT}_${api}_1`]).catch(String)).slice(-3000),
      );
    for (const a of answers.filter((x) => x.status !== 200))
      console.log(a.status, JSON.stringify(a.body).slice(0, 300));
  }
  assert.equal(
    statuses,
    Array(8).fill(200),
    JSON.stringify(answers.find((a) => a.status !== 200)?.body ?? {}).slice(0, 300),
  );
  for (const a of answers) assert.is(a.body.data.screenshot.type, 'png');
});

test.run();
