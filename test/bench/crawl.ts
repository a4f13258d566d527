// Crawl throughput (pages per minute) on a loopback fixture site, followed by links: Refract's engine.crawl beside
// the floor of a bare Crawlee crawler doing the same fetch and a title read, in one run (rounds alternate).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CheerioCrawler } from '@crawlee/cheerio';
import { PlaywrightCrawler } from '@crawlee/playwright';
import { Configuration } from '@crawlee/core';
import { MemoryStorage } from '@crawlee/memory-storage';
import { chromium } from 'playwright-core';
import { serveFixtures } from '../util/serve.ts';
import { sitePages } from '../util/site.ts';
import { createEngine, crawl, loadConfig } from '../../lib/index.ts';
import { CHROME_ARGS } from '../../engine/browser/pool.ts';
const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';

const CONCURRENCY = 4;

/** A page that the browser builds: the title and links are written by a script. */
function renderedPages(pages: number) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const m = /^\/app\/p\/(\d+)(?:\?.*)?$/.exec(req.url ?? '');
    if (!m) return false;
    const i = Number(m[1]);
    const links = [2 * i + 1, 2 * i + 2].filter((n) => n < pages);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Loading</title></head><body><div id="root"></div><script>
      document.title = 'Page ${i}';
      document.getElementById('root').innerHTML = '<main><p>Rendered page ${i}</p>' + ${JSON.stringify(links)}.map((n) => '<a href="/app/p/' + n + '">page ' + n + '</a>').join(' ') + '</main>';
    </script></body></html>`);
    return true;
  };
}

const fresh = () =>
  new Configuration({
    persistStorage: false,
    purgeOnStart: true,
    storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs the crawl benchmark and returns its rows. */
export async function benchCrawl(staticPages = 300, renderedCount = 120, rounds = 3): Promise<string[]> {
  const site = sitePages(staticPages);
  const app = renderedPages(renderedCount);
  const fx = await serveFixtures({}, (req, res) => site(req, res) || app(req, res));
  const engine = await createEngine({
    config: loadConfig({
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_LOG_LEVEL: 'silent',
      REFRACT_ASSETS_DIR: '.assets-bench',
    }),
  });
  let round = 0;
  const timed = async (expected: number, fn: () => Promise<number>) => {
    const t = performance.now();
    const pages = await fn();
    if (pages !== expected) throw new Error(`a crawl saw ${pages} pages, expected ${expected}`);
    return (pages / (performance.now() - t)) * 60_000;
  };
  const refract = (start: string, query: string, expected: number) =>
    timed(expected, async () => {
      let n = 0;
      round++;
      for await (const r of crawl(
        engine,
        { start: `${start}?round=${round}` },
        {
          // Every page computed again (force): the pages after the start page are the same in every round.
          query: `${query}${query ? '&' : ''}force`,
          maxDepth: 50,
          robots: false,
          concurrency: CONCURRENCY,
          include: [`${fx.url}/${start.includes('/app/') ? 'app' : 'site'}/p/**`],
        },
      )) {
        if (r.status !== 'success' || !/^Page \d+$/.test(String((r.data as { title?: string }).title)))
          throw new Error(`bad page ${JSON.stringify(r).slice(0, 300)}`);
        n++;
      }
      return n;
    });
  const cheerio = (start: string, expected: number) =>
    timed(expected, async () => {
      let n = 0;
      round++;
      const crawler = new CheerioCrawler(
        {
          maxConcurrency: CONCURRENCY,
          minConcurrency: CONCURRENCY,
          maxRequestRetries: 0,
          statusMessageLoggingInterval: 3600,
          async requestHandler({ $, enqueueLinks }) {
            if (!$('title').text()) throw new Error('no title');
            n++;
            await enqueueLinks({ strategy: 'same-hostname', globs: [`${fx.url}/site/p/**`] });
          },
        },
        fresh(),
      );
      await crawler.run([`${start}?round=${round}`]);
      return n;
    });
  const playwright = (start: string, expected: number) =>
    timed(expected, async () => {
      let n = 0;
      round++;
      const crawler = new PlaywrightCrawler(
        {
          maxConcurrency: CONCURRENCY,
          minConcurrency: CONCURRENCY,
          maxRequestRetries: 0,
          statusMessageLoggingInterval: 3600,
          launchContext: {
            launcher: chromium,
            launchOptions: { executablePath: CHROMIUM, args: CHROME_ARGS, headless: true },
          },
          async requestHandler({ page, enqueueLinks }) {
            if (!(await page.title()).startsWith('Page')) throw new Error('not rendered');
            n++;
            await enqueueLinks({ strategy: 'same-hostname', globs: [`${fx.url}/app/p/**`] });
          },
        },
        fresh(),
      );
      await crawler.run([`${start}?round=${round}`]);
      return n;
    });

  const rows: string[] = [];
  try {
    const staticStart = `${fx.url}/site/p/0`;
    const appStart = `${fx.url}/app/p/0`;
    const lists: Record<string, number[]> = {};
    const add = (name: string, v: number) => {
      (lists[name] ??= []).push(v);
    };
    // No round is served from Refract's cache: the start page carries a round marker, and every page is forced.
    for (let r = 0; r < rounds; r++) {
      add('floor: CheerioCrawler, title read', await cheerio(staticStart, staticPages));
      add(
        'refract: engine.crawl, title rule',
        await refract(staticStart, 'meta=false&data.title.selector=title', staticPages),
      );
      add('refract: engine.crawl, full metadata', await refract(staticStart, '', staticPages));
    }
    for (let r = 0; r < rounds; r++) {
      add('floor: PlaywrightCrawler, title read', await playwright(appStart, renderedCount));
      add(
        'refract: engine.crawl prerender, title rule',
        await refract(appStart, 'prerender=true&meta=false&data.title.selector=title', renderedCount),
      );
    }
    for (const [name, values] of Object.entries(lists))
      rows.push(
        `${name.padEnd(46)} ${median(values).toFixed(0).padStart(6)} pages/min (median of ${values.length}: ${values.map((v) => v.toFixed(0)).join(', ')})`,
      );
    const ratio = (floor: string, ours: string) => median(lists[floor]!) / median(lists[ours]!);
    rows.push(
      `static (${staticPages} pages): floor / refract title rule = ${ratio('floor: CheerioCrawler, title read', 'refract: engine.crawl, title rule').toFixed(2)}x, floor / full metadata = ${ratio('floor: CheerioCrawler, title read', 'refract: engine.crawl, full metadata').toFixed(2)}x (target <= 1.3x)`,
    );
    rows.push(
      `browser-rendered (${renderedCount} pages): floor / refract = ${ratio('floor: PlaywrightCrawler, title read', 'refract: engine.crawl prerender, title rule').toFixed(2)}x (target <= 1.3x); concurrency ${CONCURRENCY} for all`,
    );
  } finally {
    await engine.close();
    await fx.close();
  }
  return rows;
}
