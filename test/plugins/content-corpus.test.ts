// The guard on main-content quality: 88 real articles with human-labelled bodies (fixtures/corpus/articles, from the
// article-extraction-benchmark project) scored by their scorer in module mode, on the Markdown the API answers
// (the title heading included). A change that brings back boilerplate or loses body text fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Reached on 2026-11-26: F1 0.965 (precision 0.948, recall 0.984); the floors are a little under. */
const FLOOR = { f1: 0.960, recall: 0.978 };

test(`main content on the articles corpus: F1 at or above ${FLOOR.f1}, recall at or above ${FLOOR.recall}`, async () => {
  const child = spawn(process.execPath, ['--conditions=refract-source', path.join(ROOT, 'fixtures/corpus/articles/score.mjs'), '--module', path.join(ROOT, 'scripts/content-extract.ts'), '--verbose'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c; });
  child.stderr.on('data', (c: Buffer) => { out += c; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, out);
  const m = /^F1 ([\d.]+) \(precision ([\d.]+), recall ([\d.]+)\)/m.exec(out);
  assert.ok(m, out);
  assert.match(out, /pages 88, errors 0/);
  assert.ok(Number(m![1]) >= FLOOR.f1, out);
  assert.ok(Number(m![3]) >= FLOOR.recall, out);
});

test.run();
