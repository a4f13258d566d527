// The guard on main content by kind of page: the WCXB development split (../shared/corpus/wcxb, 1,497 real pages
// of seven kinds with human-reviewed main content; read there, never copied) scored by its own scorer in module
// mode (scripts/wcxb-extract.ts: the `text` output as the API answers it with prerender=false) on its six kinds
// that are not articles, the first 20 pages of each (articles are guarded by content-corpus.test.ts; the whole
// split is scored by hand, see docs/content.md). A change that loses a thread's posts, a listing's cards or a
// service page's sections fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCORER = path.resolve(ROOT, '../shared/corpus/wcxb/score.mjs');
/**
 * Reached on 2026-12-04 (e9934b8) on the first 20 pages of each kind (word F1): forum 0.897, product 0.685,
 * collection 0.653, listing 0.832, documentation 0.969, service 0.931; the floors are a little under (20 pages keep the suite's time:
 * 40 took 51 s of it).
 */
const FLOOR: Record<string, number> = {
  forum: 0.885,
  product: 0.675,
  collection: 0.64,
  listing: 0.82,
  documentation: 0.955,
  service: 0.92,
};
const PAGES = 20;

test('main content of forums, products, collections, listings, documentation and service pages: word F1 by kind at its floor', async () => {
  assert.ok(existsSync(SCORER), `the WCXB corpus is read from ${SCORER} (../shared beside the checkout)`);
  const score = async (kind: string) => {
    const args = ['--module', path.join(ROOT, 'scripts/wcxb-extract.ts'), '--type', kind, '--limit', String(PAGES)];
    const { stdout } = await run(process.execPath, ['--conditions=refract-source', SCORER, ...args]);
    assert.match(stdout, /failed 0,/, stdout);
    return [kind, Number(new RegExp(`by type: ${kind} ([0-9.]+)`).exec(stdout)?.[1])] as const;
  };
  // The first scorer unpacks the pages into the temp folder (once per machine); the others then read them at once.
  const [first, ...rest] = Object.keys(FLOOR);
  const scores = [await score(first!), ...(await Promise.all(rest.map(score)))];
  for (const [kind, f1] of scores) assert.ok(f1 >= FLOOR[kind]!, `${kind}: F1 ${f1} under its floor ${FLOOR[kind]}`);
});

test.run();
