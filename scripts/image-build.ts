// Builds the container image from the Dockerfile with podman, once, with a budget of its own: a cold build (the base
// image made from Debian's packages, then every layer) took 28 minutes on a busy fresh machine, far past any one test
// file's deadline, so the suite builds first and the container tests run against what was built.
//
//   node scripts/image-build.ts [--out result.json] [--tag localhost/refract:test]
//
// Writes `{ ok, tag, baseSeconds, buildSeconds, bytes, error? }` to --out (and prints one line); exits 0 when built.
// REFRACT_IMAGE_BUILD_TIMEOUT_MS bounds the whole build (default 60 minutes; CI's own limit is 90).
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { out: { type: 'string' }, tag: { type: 'string', default: 'localhost/refract:test' } },
});
const budgetMs = Number(process.env.REFRACT_IMAGE_BUILD_TIMEOUT_MS) || 60 * 60_000;
const deadline = Date.now() + budgetMs;

/** This machine's kind runs containers with runc and lower file limits (shared notes, platform section 6). */
const RUN_FLAGS = ['--runtime', 'runc'];
const LIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];

/** Runs a command within what is left of the budget; resolves with its output, rejects with its tail. */
function run(cmd: string, args: string[]): Promise<string> {
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => {
    out = (out + c.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(0, deadline - Date.now()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new Error(
            `${cmd} ${args.slice(0, 6).join(' ')} ended ${signal ?? code}${signal === 'SIGKILL' ? ` (the build's budget of ${budgetMs / 60_000} min ran out)` : ''}:\n${out.slice(-4000)}`,
          ),
        );
    });
  });
}

const result: { ok: boolean; tag: string; baseSeconds: number; buildSeconds: number; bytes: number; error?: string } = {
  ok: false,
  tag: values.tag!,
  baseSeconds: 0,
  buildSeconds: 0,
  bytes: 0,
};
try {
  let since = performance.now();
  await run('bash', ['scripts/container-base.sh']);
  result.baseSeconds = (performance.now() - since) / 1000;
  since = performance.now();
  // The host's npm cache only speeds the build stage up (nothing of it reaches the image); a host CA bundle is passed
  // for networks that re-sign TLS. The apt cache is not lent: a build with it kept the downloaded packages out of
  // the image's layer (1.19 GB) where a user's build without it kept them in (1.53 GB), and the image is measured
  // as a user builds it.
  const caches = [[path.join(os.homedir(), '.npm'), '/root/.npm']]
    .filter(([host]) => existsSync(host!))
    .flatMap(([host, inside]) => ['--volume', `${host}:${inside}`]);
  const ca = existsSync('/etc/ssl/certs/ca-certificates.crt')
    ? ['--secret', 'id=hostca,src=/etc/ssl/certs/ca-certificates.crt']
    : [];
  const build = () =>
    run('podman', [
      ...RUN_FLAGS,
      'build',
      '--format',
      'docker',
      '--network',
      'host',
      ...LIMITS,
      ...ca,
      ...caches,
      '-t',
      result.tag,
      '.',
    ]);
  // Tried a second time after a failure (a lock on the shared apt cache, a mirror's hiccup), within the same budget.
  await build().catch((err: Error) => {
    console.log(`image-build: the first build failed, trying again: ${err.message.split('\n').slice(-3).join(' ')}`);
    return build();
  });
  result.buildSeconds = (performance.now() - since) / 1000;
  result.bytes = Number((await run('podman', ['image', 'inspect', result.tag, '--format', '{{.Size}}'])).trim());
  result.ok = true;
} catch (err) {
  result.error = (err as Error).message;
}
if (values.out) writeFileSync(values.out, JSON.stringify(result));
console.log(
  result.ok
    ? `image-build: ${result.tag} built: base ${result.baseSeconds.toFixed(0)} s, build ${result.buildSeconds.toFixed(0)} s, ${(result.bytes / 1e9).toFixed(2)} GB`
    : `image-build: ${result.tag} failed after ${((budgetMs - (deadline - Date.now())) / 1000).toFixed(0)} s: ${result.error?.split('\n')[0]}`,
);
process.exit(result.ok ? 0 : 1);
