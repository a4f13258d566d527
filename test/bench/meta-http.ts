// Metadata over HTTP: Refract (a child process, real server) MISS and HIT beside the floor of
// got-scraping + cheerio + the same rules called in this process (no server, no Crawlee).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gotScraping } from 'got-scraping';
import { parseHtml } from '../../engine/html.ts';
import { serveFixtures } from '../util/serve.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/meta/helpers.ts';
import { measure, get, row, type Stats } from './lib.ts';
import { startChild as spawnServer } from './child.ts';
import { loadConfig, createEngine, parseQuery } from '../../engine/index.ts';
import { defaultPlugins } from '../../plugins/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// A real page (334 kB) whose absolute media hosts are pointed at the loopback fixture server, so that
// the media probes are real requests; without the corpus beside the checkout, the fixture article.
const CORPUS_PAGE = path.resolve(ROOT, '../shared/corpus/metascraper/dev/the-verge/page.html');
const FALLBACK_PAGE = path.join(ROOT, 'fixtures/sites/article/index.html');

/** Runs the metadata benchmark and returns its rows. */
export async function benchMetaHttp(n = 200): Promise<string[]> {
  const image = await readFile(path.join(ROOT, 'fixtures/sites/article/images/hero.png'));
  let page = '';
  const fx = await serveFixtures({
    '/sites/article/page': (_, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(page); },
  }, (req, res) => {
    // Every image the page links (its CDN and its icons) answers, as on the real site.
    if (!req.url?.startsWith('/cdn/') && !/\.(png|ico|jpe?g|svg)(\?|$)/i.test(req.url ?? '')) return false;
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length });
    res.end(image);
    return true;
  });
  page = (await readFile(CORPUS_PAGE, 'utf8').catch(() => readFile(FALLBACK_PAGE, 'utf8'))).replace(/https?:\/\/(cdn\.vox-cdn\.com|www\.theverge\.com)/g, `${fx.url}/cdn`);
  const env = { PORT: '0', PRO_PORT: '0', HOST: '127.0.0.1', REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1', REFRACT_FREE_QUOTA: '1000000', REFRACT_LOG_LEVEL: 'info' };
  const app = await spawnServer(ROOT, env);
  const bare = await spawnServer(ROOT, { ...env, REFRACT_PROBE_TIMEOUT: '0' });
  const engine = await createEngine({ config: loadConfig({ ...env, REFRACT_LOG_LEVEL: 'silent' }), plugins: defaultPlugins });
  try {
    const target = (i: number) => encodeURIComponent(`${fx.url}/sites/article/page?i=${i}`);
    const floor = async (i: number) => {
      const res = await gotScraping({ url: `${fx.url}/sites/article/page?f=${i}`, http2: false, retry: { limit: 0 }, headerGeneratorOptions: { browsers: [{ name: 'chrome', minVersion: 120 }], devices: ['desktop'], operatingSystems: ['windows'] } });
      const $ = parseHtml(res.body, res.url);
      return extractMeta(createDoc($, res.url));
    };
    const missOn = (base: string) => async (i: number) => {
      const r = await get(`${base}/?url=${target(i)}`);
      if (r.status !== 200 || r.headers['x-cache-status'] !== 'MISS') throw new Error(`unexpected ${r.status} ${r.headers['x-cache-status']}`);
    };
    const miss = missOn(app.url);
    const missBare = missOn(bare.url);
    const inProcess = async (i: number) => engine.run(engine.plan(parseQuery(`url=${target(i)}`)));
    const hit = async () => {
      const r = await get(`${app.url}/?url=${target(0)}`);
      if (r.headers['x-cache-status'] !== 'HIT') throw new Error('expected HIT');
    };
    for (let i = 0; i < 20; i++) { await floor(-i - 1); await miss(100000 + i); await missBare(100000 + i); }
    const rows: [string, Stats][] = [];
    // Interleave the floor and Refract in rounds so that machine load affects both alike.
    const floorSamples: Stats[] = [];
    const missSamples: Stats[] = [];
    const bareSamples: Stats[] = [];
    const engineSamples: Stats[] = [];
    for (let round = 0; round < 4; round++) {
      floorSamples.push(await measure(n / 4, 1, (i) => floor(round * 1000 + i)));
      missSamples.push(await measure(n / 4, 1, (i) => miss(round * 1000 + i)));
      bareSamples.push(await measure(n / 4, 1, (i) => missBare(round * 1000 + i)));
      engineSamples.push(await measure(n / 4, 1, (i) => inProcess(200000 + round * 1000 + i)));
    }
    const merge = (list: Stats[]): Stats => {
      const p50s = list.map((s) => s.p50).sort((a, b) => a - b);
      const p95s = list.map((s) => s.p95).sort((a, b) => a - b);
      return { n: list.reduce((a, s) => a + s.n, 0), p50: p50s[Math.floor(p50s.length / 2)]!, p95: p95s[Math.floor(p95s.length / 2)]!, mean: 0, rps: list.reduce((a, s) => a + s.rps, 0) / list.length };
    };
    const floorStats = merge(floorSamples);
    const missStats = merge(missSamples);
    rows.push(['floor: got-scraping + cheerio + rules', floorStats]);
    const bareStats = merge(bareSamples);
    rows.push(['refract MISS (HTTP, Crawlee, media probes)', missStats]);
    rows.push(['refract MISS, media probing off', bareStats]);
    rows.push(['engine.run in process (Crawlee, probes, no HTTP)', merge(engineSamples)]);
    rows.push(['refract HIT', await measure(n, 1, hit)]);
    rows.push(['floor, 8 concurrent', await measure(n, 8, (i) => floor(50000 + i))]);
    rows.push(['refract MISS, 8 concurrent', await measure(n, 8, (i) => miss(50000 + i))]);
    rows.push(['refract HIT, 8 concurrent', await measure(n * 5, 8, hit)]);
    const out = rows.map(([name, s]) => row(name, s));
    out.push(`ratio MISS p50 / floor p50: ${(missStats.p50 / floorStats.p50).toFixed(2)}x with media probes, ${(bareStats.p50 / floorStats.p50).toFixed(2)}x without (page ${page.length} bytes)`);
    return out;
  } finally {
    await app.stop();
    await bare.stop();
    await engine.close();
    await fx.close();
  }
}
