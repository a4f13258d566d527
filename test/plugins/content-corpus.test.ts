// The guard on main-content quality: 88 real articles with human-labelled bodies (../shared/corpus/articles, from the
// article-extraction-benchmark project) scored by their scorer in module mode, on the Markdown the API answers
// (the title heading included), and on the body alone. A change that brings back boilerplate or loses body text
// fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
/**
 * Reached on 2026-11-26: F1 0.966 (precision 0.948, recall 0.984) as the API answers (the title heading first), and
 * F1 0.978 (precision 0.973, recall 0.984) for the body alone; the floors are a little under.
 */
const FLOOR = { f1: 0.96, bodyF1: 0.972, recall: 0.978 };

interface Figures {
  f1: number;
  precision: number;
  recall: number;
  out: string;
}
const scored = new Map<string, Promise<Figures>>();

/** The scorer's figures for an extractor module of scripts/ (scored once per run). */
function score(module: string): Promise<Figures> {
  if (!scored.has(module)) scored.set(module, run(module));
  return scored.get(module)!;
}

async function run(module: string): Promise<Figures> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=refract-source',
      path.join(ROOT, '../shared/corpus/articles/score.mjs'),
      '--module',
      path.join(ROOT, 'scripts', module),
      '--verbose',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c;
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0, out);
  const m = /^F1 ([\d.]+) \(precision ([\d.]+), recall ([\d.]+)\)/m.exec(out);
  assert.ok(m, out);
  assert.match(out, /pages 88, errors 0/);
  return { f1: Number(m![1]), precision: Number(m![2]), recall: Number(m![3]), out };
}

test(`main content on the articles corpus: F1 at or above ${FLOOR.f1}, recall at or above ${FLOOR.recall}`, async () => {
  const { f1, recall, out } = await score('content-extract.ts');
  assert.ok(f1 >= FLOOR.f1, out);
  assert.ok(recall >= FLOOR.recall, out);
});

test(`the body alone (no title heading, as the labels): F1 at or above ${FLOOR.bodyF1}, and the title costs only precision`, async () => {
  const [body, whole] = await Promise.all([score('content-body.ts'), score('content-extract.ts')]);
  assert.ok(body.f1 >= FLOOR.bodyF1, body.out);
  assert.ok(body.precision > whole.precision, `${body.out}\n${whole.out}`);
  assert.is(body.recall, whole.recall);
});

test.run();
