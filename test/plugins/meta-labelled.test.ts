// Metadata as people read it: the labelled corpus (../shared/corpus/labelled, beside the checkout:
// pages of htmldate's and trafilatura's evaluation sets, whose date, title, author and description people wrote
// down) scored by its own scorer on the
// extraction core (scripts/labelled-extract.ts, no network). Each figure has a floor at what was reached, less half
// a point, so that it cannot slip back; the other half of the sets is scored elsewhere.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCORER = path.join(ROOT, '../shared/corpus/labelled/score.mjs');
/**
 * Reached on 2026-11-27 (F in percent; title and author exact, description by word overlap), less half a point. The
 * title's since 2026-11-28: the publisher's chosen title (the contract's), 77.5% where the labels read the headline
 * (83.3% when a page's one h1 worded otherwise replaced it: docs/metadata.md). The author's since 2026-11-28: 74.5%
 * (75.0% before) once a page's declared writer (`twitter:label1` "Written by") comes first and may be the site itself,
 * as WCXB's labels read it (77.4% -> 80.4% on its first 500 pages) and as two newsrooms here are not labelled. The
 * dates' since 2026-11-29: htmldate's F 93.7, trafilatura's 87.8 (a day stored as its local midnight east of UTC, an
 * embedded video's upload date after the page's own, schema.org data in an untyped script). The title's 78.0% since
 * 2026-11-29: a blog's post heading (`entry-title`) is one of the page's headlines, and an <h1> that links to the
 * site's home names the site. The author's 75.0% since 2026-11-29: a first name alone is completed by its JSON-LD
 * person's description (`Nils` described `Nils Pickert ist freier Autor`). The dates' since 2026-11-29 too:
 * htmldate's F 94.2, trafilatura's 88.3 (the day a page's canonical address states); the author's 75.3% (an author
 * box's name; a page's body is no box); the author's 75.8% (a graph's person by id on a site of their name;
 * structured data's login the page never shows is no author); 76.0% since 2026-12-02 (a quoted customer's name, in a
 * testimonial, a customer's quote or a quotation, is no byline). The dates' since 2026-12-04: htmldate's F 94.8,
 * trafilatura's 88.6 (a date the text labels as published: `Veröffentlicht am`, `Submitted by … on`). The author's
 * 76.3% since 2026-12-06 (a long story's closing byline read); the title's 78.3% (an h1 replaces only a title that is
 * nothing but the site's name). The author's 77.5% since 2026-12-07 (a byline naming several people answered whole,
 * as the page writes it). The dates' since 2026-12-07: htmldate's F 95.8, trafilatura's 89.4 (a page inside one form, a
 * labelled last change, Arabic script, the date shown under the headline over a markup date shown nowhere).
 * Later on 2026-12-07: trafilatura's dates F 89.7 (a word with a figure is no date), the author's 79.8% (a site's team
 * as the writer, Drupal's submitted line, hidden bylines, a login between `von` and the day), the title's 78.8% (a
 * post's permalink heading where the page declares only the blog's name).
 */
const FLOOR = { htmldateF: 95.3, trafilaturaF: 89.2, title: 78.3, author: 79.3, description: 75.0 };

test('dates, titles, authors and descriptions agree with people at least as often as they did', async () => {
  assert.ok(existsSync(SCORER), `the labelled corpus is in the checkout: ${SCORER}`);
  const child = spawn(
    process.execPath,
    ['--conditions=refract-source', SCORER, '--module', path.join(ROOT, 'scripts/labelled-extract.ts')],
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
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const got = {
    htmldateF: num(/^htmldate dates: .* F ([\d.]+)/m),
    trafilaturaF: num(/^trafilatura: dates .* F ([\d.]+)/m),
    title: num(/title ([\d.]+)%/),
    author: num(/author ([\d.]+)%/),
    description: num(/description ([\d.]+)%/),
  };
  console.log(`  labelled: ${JSON.stringify(got)}`);
  for (const [field, floor] of Object.entries(FLOOR))
    assert.ok(
      got[field as keyof typeof got] >= floor,
      `${field}: ${got[field as keyof typeof got]} < ${floor}\n${out}`,
    );
  assert.match(out, /pages 870, failed 0/);
});

test.run();
