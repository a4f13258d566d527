// Main-content speed on the articles corpus (no network): the Markdown of `markdown` / `data.body.attr=markdown`
// per page beside the floor of parsing the page once (linkedom, which the extractor parses with; cheerio, the
// engine's own parser), and beside Readability with turndown alone (the extractor before its rules).
import { readdir, readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { load } from 'cheerio';
import { parseHTML } from 'refract-linkedom';
import { Readability } from 'refract-readability';
import { fragmentToMarkdown, pageToMarkdown } from '../../plugins/shared/content/markdown.ts';
import { WCXB, wcxbPagesDir } from '../../scripts/wcxb-pages.ts';

const DIR = path.resolve(import.meta.dirname, '../../../shared/corpus/articles/dev');
const ROUNDS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchContent(): Promise<string[]> {
  const files = (await readdir(DIR).catch(() => [] as string[])).sort();
  if (!files.length) return ['(no articles corpus in ../shared/corpus/articles)'];
  const pages = await Promise.all(
    files.map(async (f) => ({
      url: `http://127.0.0.1/a/${f}/`,
      html: gunzipSync(await readFile(path.join(DIR, f))).toString('utf8'),
    })),
  );
  return measure(pages, ROUNDS);
}

/** Each case on each page, interleaved; a case's figure is the median over pages of its per-page median. */
function measure(pages: { url: string; html: string }[], rounds: number): string[] {
  const cases: [string, (p: { url: string; html: string }) => unknown][] = [
    ['parse floor (linkedom)', (p) => parseHTML(p.html)],
    ['parse floor (cheerio)', (p) => load(p.html)],
    [
      'Readability + turndown alone',
      (p) => {
        try {
          const article = new Readability(parseHTML(p.html).document as unknown as Document).parse();
          return article?.content ? fragmentToMarkdown(article.content, p.url) : '';
        } catch {
          return ''; // Readability throws on a few pages (content after </body>)
        }
      },
    ],
    ['Refract main content (markdown)', (p) => pageToMarkdown(p.html, p.url)],
  ];
  // Interleaved: each page runs every case in turn, ROUNDS times; a case's figure is the median over pages of its
  // per-page median.
  const perPage = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  for (const page of pages) {
    const runs = new Map<string, number[]>(cases.map(([name]) => [name, []]));
    for (let r = 0; r < rounds; r++) {
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
      `${name.padEnd(34)} ${median(values).toFixed(2).padStart(7)} ms/page  ${(median(values) / floor).toFixed(2)}x the linkedom parse, ${(median(values) / engineFloor).toFixed(2)}x the cheerio parse  (${pages.length} pages, median of ${rounds} each)`,
  );
}

/**
 * The same cases on pages of every kind (the WCXB split in ../shared, every seventh page: 214 of seven kinds): the
 * content step beside the parse floor there, where most pages are read twice (one container, and the body).
 */
export async function benchContentKinds(): Promise<string[]> {
  let dir: string;
  try {
    dir = wcxbPagesDir();
  } catch {
    return [`(no WCXB corpus at ${WCXB})`];
  }
  const labels = JSON.parse(gunzipSync(await readFile(path.join(WCXB, 'labels.json.gz'))).toString('utf8')) as {
    id: string;
  }[];
  const pages = await Promise.all(
    labels
      .filter((_, i) => i % 7 === 0)
      .map(async (l) => ({
        url: `http://127.0.0.1/p/${l.id}/`,
        html: (await readFile(path.join(dir, `${l.id}.html`))).toString('utf8'),
      })),
  );
  return measure(pages, 3);
}
