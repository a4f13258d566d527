// Main-content speed on the articles corpus (no network): the Markdown of `markdown` / `data.body.attr=markdown`
// per page beside the floor of parsing the page once (linkedom, which the extractor parses with; cheerio, the
// engine's own parser), and beside Readability with turndown alone (the extractor before its rules).
import { readdir, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { load } from 'cheerio';
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import { fragmentToMarkdown, pageToMarkdown } from '../../plugins/shared/content/markdown.ts';

const DIR = path.resolve(import.meta.dirname, '../../fixtures/corpus/articles/dev');
const ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchContent(): Promise<string[]> {
  const files = (await readdir(DIR).catch(() => [] as string[])).sort();
  if (!files.length) return ['(no articles corpus in fixtures/corpus/articles)'];
  const pages = await Promise.all(
    files.map(async (f) => ({
      url: `http://127.0.0.1/a/${f}/`,
      html: gunzipSync(await readFile(path.join(DIR, f))).toString('utf8'),
    })),
  );
  const cases: [string, (p: { url: string; html: string }) => unknown][] = [
    ['parse floor (linkedom)', (p) => parseHTML(p.html)],
    ['parse floor (cheerio)', (p) => load(p.html)],
    [
      'Readability + turndown alone',
      (p) => {
        const article = new Readability(parseHTML(p.html).document as unknown as Document).parse();
        return article?.content ? fragmentToMarkdown(article.content, p.url) : '';
      },
    ],
    ['Refract main content (markdown)', (p) => pageToMarkdown(p.html, p.url)],
  ];
  // Interleaved: each page runs every case in turn, ROUNDS times; a case's figure is the median over pages of its
  // per-page median.
  const perPage = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (const page of pages) {
    const runs = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, fn] of cases) {
        const t = performance.now();
        fn(page);
        runs.get(name)!.push(performance.now() - t);
      }
    }
    for (const [name, values] of runs) perPage.get(name)!.push(median(values));
  }
  const floor = median(perPage.get('parse floor (linkedom)')!);
  const engineFloor = median(perPage.get('parse floor (cheerio)')!);
  // The bound: at most 2x the time of parsing the page (by the engine's parser, cheerio, and by linkedom's).
  return [...perPage].map(
    ([name, values]) =>
      `${name.padEnd(34)} ${median(values).toFixed(2).padStart(7)} ms/page  ${(median(values) / floor).toFixed(2)}x the linkedom parse, ${(median(values) / engineFloor).toFixed(2)}x the cheerio parse  (${pages.length} pages, median of ${ROUNDS} each)`,
  );
}
