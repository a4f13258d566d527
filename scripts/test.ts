// Runs the uvu suites with Node 24, one process per test file, and ends with the plain `N passed, N failed` line
// that CI reads. A file that crashes its process (an unhandled rejection, a hung handle) costs that file only: it is
// counted as failed and the next file runs. Each file's duration is printed, slowest last, so the suite's time is
// visible where it goes.
//
//   node scripts/test.ts [pattern]      pattern: a regular expression on the file's path under test/
//
// The suite is CPU-bound on two cores (Chromium renders in nearly every file): files run one at a time, as a second
// one only slows both and makes answers miss their deadlines. Marks on a file's first line change that:
//   `// refract-test: beside`   runs from the start beside the others, and must be done before any `alone` file starts
//   `// refract-test: image`    needs the container image: the runner builds it first (scripts/image-build.ts, mostly
//                               waiting on downloads and disk, with a budget of its own: a cold build takes ~30 min),
//                               beside the others, then runs the file beside them with its own deadline for its tests
//   `// refract-test: alone`    runs last, with nothing beside it (it measures answers against their deadlines)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const uvu = path.join(root, 'node_modules/uvu/bin.js');
const testTimer = path.join(root, 'scripts/test-timer.ts');
const pattern = new RegExp(process.argv[2] ?? '\\.test\\.ts$');
const perFileTimeout = Number(process.env.REFRACT_TEST_FILE_TIMEOUT_MS) || 10 * 60_000;
/** How long a file may take to exit once uvu printed its summary. */
const LINGER_MS = 20_000;

interface Result {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  crashed?: string;
  /** It printed its summary but held the process open past LINGER_MS (a handle left open): ended then. */
  lingered?: boolean;
  slow: { ms: number; name: string }[];
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, 'test', dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (entry.name !== 'util' && entry.name !== 'bench' && entry.name !== 'artifacts') out.push(...testFiles(rel));
    } else if (/\.test\.ts$/.test(entry.name) && pattern.test(rel)) out.push(rel);
  }
  return out.sort();
}

const mark = (file: string) =>
  /^\/\/ refract-test: (alone|beside|image)/.exec(readFileSync(path.join(root, 'test', file), 'utf8'))?.[1];

// Node's compile cache, shared by every process of the run (test files, servers and CLIs they start): each loads the
// engine's few thousand modules, which costs ~0.8 s less per process once they are compiled.
const env: NodeJS.ProcessEnv = {
  ...process.env,
  CRAWLEE_PERSIST_STORAGE: 'false',
  CRAWLEE_LOG_LEVEL: 'WARNING',
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'refract-test-compile-cache'),
};
delete env.FORCE_COLOR;

/** Runs one file in its own uvu process; its output is printed whole when it ends, so parallel files do not interleave. */
function runFile(file: string, slot: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> {
  const started = performance.now();
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Each slot has its own database on a shared Redis, so files that flush it do not meet.
  const slotEnv = { ...env, ...extraEnv, REFRACT_TEST_REDIS_DB: String(15 - slot) };
  const child = spawn(
    process.execPath,
    [
      '--no-node-snapshot',
      '--conditions=refract-source',
      '--import',
      testTimer,
      uvu,
      'test',
      `^${escaped}$`,
      '-i',
      'util',
      '-i',
      'bench',
    ],
    {
      cwd: root,
      env: slotEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  /** Ends the file's process and its own children (servers, browsers): it leads a process group of its own. */
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  };
  let output = '';
  // A file that printed its summary but does not exit holds a handle open (a server a failed test did not close):
  // it is ended shortly after, rather than at the file's timeout.
  let lingered = false;
  let linger: NodeJS.Timeout | undefined;
  const collect = (chunk: Buffer) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character starts the colour codes removed here.
    output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, '');
    if (!linger && /\n\s*Total:[\s\S]*Duration:/.test(output))
      linger = setTimeout(() => {
        lingered = true;
        killGroup();
      }, LINGER_MS);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, perFileTimeout);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(linger);
      // The file's own children (servers, browsers) go with it.
      killGroup();
      const ms = performance.now() - started;
      const read = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? NaN);
      const total = read('Total');
      const passed = read('Passed');
      const skipped = read('Skipped') || 0;
      const body = output.replace(/\n\s*Total:[\s\S]*$/, '\n');
      const slow = [...output.matchAll(/^ {2}slow test: ([0-9.]+) s {2}(.*)$/gm)].map((m) => ({
        ms: Number(m[1]) * 1000,
        name: m[2]!,
      }));
      process.stdout.write(`${body.trimEnd()}\n  (${(ms / 1000).toFixed(1)} s)\n\n`);
      if (Number.isNaN(total) || Number.isNaN(passed) || timedOut) {
        // The tests it passed before it ended, as uvu's per-suite `(passed / total)` lines say.
        const dots = [...output.matchAll(/\((\d+) \/ \d+\)/g)].reduce((n, m) => n + Number(m[1]), 0);
        const why = timedOut
          ? `timed out after ${perFileTimeout / 1000} s`
          : `exited (${signal ?? code}) before its summary`;
        process.stdout.write(`  FAIL  ${file}: ${why}\n\n`);
        resolve({ file, passed: dots, failed: 1, skipped: 0, ms, crashed: why, slow });
        return;
      }
      const failed = total - passed - skipped;
      // Its tests are counted as they ended; what it left open is named, among the files that lingered at the end.
      if (lingered) process.stdout.write(`  LINGERED  ${file}: ended ${LINGER_MS / 1000} s after its summary\n\n`);
      resolve({ file, passed, failed, skipped, ms, slow, ...(lingered ? { lingered: true } : {}) });
    });
  });
}

/** Builds the container image once (its own budget, its own log), then runs the files that use it, one at a time. */
async function withImage(imageFiles: string[], slot: number): Promise<void> {
  if (!imageFiles.length) return;
  const out = path.join(os.tmpdir(), `refract-image-build-${process.pid}.json`);
  const started = performance.now();
  // At the lowest CPU priority (`nice`, which its podman and the build's steps inherit): the build has a budget of
  // its own and nobody waits on it but the container files, while the files beside it answer against deadlines.
  const build = spawn('nice', ['-n', '19', process.execPath, 'scripts/image-build.ts', '--out', out], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  build.stdout.on('data', (c: Buffer) => {
    log += c;
  });
  build.stderr.on('data', (c: Buffer) => {
    log += c;
  });
  await new Promise((resolve) => build.on('close', resolve));
  process.stdout.write(`${log.trim()}\n  (image build: ${((performance.now() - started) / 1000).toFixed(0)} s)\n\n`);
  for (const file of imageFiles) results.push(await runFile(file, slot, { REFRACT_IMAGE_BUILD_RESULT: out }));
}

const files = testFiles('');
const results: Result[] = [];
const started = performance.now();
const besideFiles = files.filter((f) => mark(f) === 'beside');
const beside = Promise.all([
  ...besideFiles.map((f, i) =>
    runFile(f, i + 1).then((r) => {
      results.push(r);
    }),
  ),
  withImage(
    files.filter((f) => mark(f) === 'image'),
    besideFiles.length + 1,
  ),
]);
for (const file of files.filter((f) => !mark(f))) results.push(await runFile(file, 0));
await beside;
for (const file of files.filter((f) => mark(f) === 'alone')) results.push(await runFile(file, 0));

const sum = (key: 'passed' | 'failed' | 'skipped') => results.reduce((n, r) => n + r[key], 0);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 12);
console.log('Slowest files:');
for (const r of slowest) console.log(`  ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.file}`);
const slowTests = results
  .flatMap((r) => r.slow.map((t) => ({ ...t, file: r.file })))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 15);
if (slowTests.length) console.log('Slowest tests:');
for (const t of slowTests)
  console.log(`  ${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.file}: ${t.name.slice(0, 100)}`);
const lingering = results.filter((r) => r.lingered).map((r) => r.file);
if (lingering.length) console.log(`Files that held their process open after their tests: ${lingering.join(', ')}`);
const failedFiles = results.filter((r) => r.failed > 0).map((r) => r.file + (r.crashed ? ` (${r.crashed})` : ''));
if (failedFiles.length) console.log(`Files with failures: ${failedFiles.join(', ')}`);
console.log(`Duration: ${((performance.now() - started) / 1000).toFixed(0)} s over ${results.length} files`);
const failed = sum('failed');
const skipped = sum('skipped');
console.log(`${sum('passed')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || results.length === 0 ? 1 : 0);
