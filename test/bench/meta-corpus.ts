// Extraction speed on the corpus pages (no network): Refract's whole meta extraction per page against the
// floor of parsing the same page once with cheerio, and (when installed) metascraper in the same process.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { load } from 'cheerio';
import { parseHtml } from '../../engine/kernel/html.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';

const CASES = path.resolve(import.meta.dirname, '../../../shared/corpus/metascraper/dev');

interface Page {
  id: string;
  url: string;
  html: string;
}

async function pages(): Promise<Page[]> {
  const ids = (await readdir(CASES).catch(() => [] as string[])).sort();
  return Promise.all(
    ids.map(async (id) => ({
      id,
      url: JSON.parse(await readFile(path.join(CASES, id, 'case.json'), 'utf8')).url as string,
      html: await readFile(path.join(CASES, id, 'page.html'), 'utf8'),
    })),
  );
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function timePerPage(list: Page[], rounds: number, fn: (p: Page) => unknown): Promise<number[]> {
  const perPage: number[] = [];
  for (const page of list) {
    const runs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      await fn(page);
      runs.push(performance.now() - t);
    }
    perPage.push(median(runs));
  }
  return perPage;
}

type Extractor = (p: Page) => Promise<unknown>;

async function loadMetascraper(): Promise<{ full: Extractor; offline: Extractor } | undefined> {
  const names = [
    'author',
    'date',
    'description',
    'image',
    'lang',
    'logo',
    'publisher',
    'title',
    'url',
    'audio',
    'video',
    'logo-favicon',
  ];
  try {
    const core = (await import('metascraper')).default as (
      rules: unknown[],
    ) => (o: { url: string; html: string }) => Promise<unknown>;
    const bundles = await Promise.all(
      names.map(async (n) => [n, ((await import(`metascraper-${n}`)).default as () => unknown)()] as const),
    );
    const offlineNames = new Set(['author', 'date', 'description', 'lang', 'publisher', 'title', 'url']);
    const full = core(bundles.map(([, b]) => b));
    const offline = core(bundles.filter(([n]) => offlineNames.has(n)).map(([, b]) => b));
    return { full: (p) => full({ url: p.url, html: p.html }), offline: (p) => offline({ url: p.url, html: p.html }) };
  } catch {
    return undefined;
  }
}

/** Runs the corpus extraction benchmark and returns its rows. */
export async function benchMetaCorpus(rounds = 5): Promise<string[]> {
  const list = await pages();
  if (list.length === 0) return ['corpus not found beside the checkout; skipped'];
  for (const p of list.slice(0, 5)) {
    load(p.html);
    extractMeta(createDoc(parseHtml(p.html, p.url), p.url));
  }
  const floor = await timePerPage(list, rounds, (p) => load(p.html));
  const ours = await timePerPage(list, rounds, (p) =>
    extractMeta(createDoc(parseHtml(p.html, p.url), p.url), { audio: true, video: true }),
  );
  const out = [
    `floor: cheerio.load once                     median ${median(floor).toFixed(1)} ms/page (${list.length} pages)`,
    `refract: parse + every meta rule             median ${median(ours).toFixed(1)} ms/page  ratio ${(median(ours) / median(floor)).toFixed(2)}x floor`,
  ];
  const ms = await loadMetascraper();
  if (ms) {
    const offline = await timePerPage(list, 1, ms.offline);
    out.push(
      `metascraper, bundles that need no network  median ${median(offline).toFixed(1)} ms/page  refract is ${(median(offline) / median(ours)).toFixed(1)}x faster`,
    );
    const full = await timePerPage(list.slice(0, 12), 1, (p) =>
      Promise.race([ms.full(p), new Promise((r) => setTimeout(r, 5000))]),
    );
    out.push(
      `metascraper, full bundle set (12 pages)    median ${median(full).toFixed(1)} ms/page (each page capped at 5 s: its network probes stall offline)  refract is ${(median(full) / median(ours)).toFixed(0)}x faster`,
    );
  } else out.push('metascraper not installed (npm i --no-save metascraper and its bundles to compare)');
  return out;
}
