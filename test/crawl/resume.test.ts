import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { allPages, pageUrl, sitePages } from '../util/site.ts';
import { jsonLines, startCli, untilLines } from '../util/cli.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The site has 300 pages; the screenshot crawl stops at depth 4 of its binary tree: pages 0 to 30.
const SITE = 300;
const PAGES = 31;
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-resume-'));
let fx: Fixture;

test.before(async () => {
  fx = await serveFixtures({}, sitePages(SITE));
});

test.after(async () => {
  await fx.close();
});

type Line = {
  url: string;
  status: string;
  data?: { wordCount?: { words: number }; screenshot?: { url: string; type: string } };
};

test(`a ${PAGES}-page crawl with a plugin and screenshots, killed midway, finishes on the second run: every page once, none redone`, async () => {
  const out = path.join(dir, 'site.jsonl');
  writeFileSync(out, '');
  const args = [
    'crawl',
    pageUrl(fx.url, 0),
    '--out',
    out,
    '--state',
    path.join(dir, 'state'),
    '--max-depth',
    '4',
    '--include',
    `${fx.url}/site/p/**`,
    '--query',
    'screenshot&wordCount.selector=main p&meta=false',
  ];
  const env = { REFRACT_PLUGINS: path.join(ROOT, 'fixtures/plugins/word-count/index.ts') };

  const first = startCli(args, env);
  await untilLines(out, 10, first.exited);
  first.kill('SIGKILL');
  assert.is(await first.exited, -1, 'the first run was killed');
  const before = new Set(jsonLines<Line>(out).map((l) => l.url));
  assert.ok(before.size >= 10 && before.size < PAGES, `killed midway: ${before.size} pages written`);
  const hitsBefore = fx.hits.length;

  const second = startCli(args, env);
  assert.is(await second.exited, 0, second.stderrText());
  const lines = jsonLines<Line>(out);
  const urls = lines.map((l) => l.url);
  assert.is(lines.length, PAGES, `lines: ${lines.length}`);
  assert.equal([...new Set(urls)].sort(), allPages(fx.url, PAGES).sort(), 'every page exactly once');
  for (const l of lines) {
    assert.is(l.status, 'success', l.url);
    assert.is(l.data?.wordCount?.words, 8, l.url);
    assert.is(l.data?.screenshot?.type, 'png', l.url);
  }
  // The second run fetched exactly the pages the first had not written (the assets of both runs are on disk).
  const fetched = new Set(
    fx.hits
      .slice(hitsBefore)
      .filter((h) => h.startsWith('/site/p/'))
      .map((h) => `${fx.url}${h}`),
  );
  assert.equal(
    [...fetched].sort(),
    allPages(fx.url, PAGES)
      .filter((u) => !before.has(u))
      .sort(),
  );
  // Each screenshot links its file in the folder beside the output.
  for (const l of lines)
    assert.ok(
      existsSync(fileURLToPath(l.data!.screenshot!.url)) &&
        l.data!.screenshot!.url.startsWith(pathToFileURL(`${out}.assets`).href),
      l.data!.screenshot!.url,
    );
  assert.match(
    second.stderrText(),
    new RegExp(`done: ${PAGES - before.size} pages, 0 failed.*\\(${before.size} done before, skipped\\)`),
  );
  assert.match(second.stderrText(), new RegExp(`resuming: ${before.size} pages already in .* are not done again`));
});

test("Ctrl-C stops a crawl saying how to resume (not Crawlee's advice), exit 130; a crawl whose every page failed exits 1; unknown options are named once", async () => {
  const out = path.join(dir, 'interrupted.jsonl');
  writeFileSync(out, '');
  const args = [
    'crawl',
    pageUrl(fx.url, 0),
    '--out',
    out,
    '--state',
    path.join(dir, 'state-int'),
    '--max-depth',
    '20',
    '--include',
    `${fx.url}/site/p/**`,
    '--query',
    'meta=true&screenshot.fulPage=true&screenshot=false',
  ];
  const run = startCli(args);
  await untilLines(out, 20, run.exited);
  run.kill('SIGINT');
  assert.is(await run.exited, 130, run.stderrText());
  const written = jsonLines<Line>(out).length;
  assert.match(run.stderrText(), /stopped: \d+ pages written; run the same command again to resume/);
  assert.not.match(run.stderrText(), /CRAWLEE_PURGE_ON_START/);
  assert.is(run.stderrText().split('unknown options ignored: screenshot.fulPage').length, 2, 'the typo is named once');
  assert.ok(written >= 20);
  const failing = startCli(['crawl', '--urls', '-'], {});
  failing.stdin!.end('http://127.0.0.2:9/a\nnot a url\n');
  assert.is(await failing.exited, 1, failing.stderrText());
  assert.match(failing.stderrText(), /done: 2 pages, 2 failed/);
});

test.run();
