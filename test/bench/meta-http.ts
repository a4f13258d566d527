// Metadata over HTTP: Refract (a child process, real server) MISS and HIT beside the floor of
// got-scraping + cheerio + the same rules called in this process (no server, no Crawlee).
import path from 'node:path';
import { gotScraping } from 'got-scraping';
import { imageSize } from 'image-size';
import { parseHtml } from '../../engine/kernel/html.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';
import { measure, get, row, serveArticle, stats, type Stats } from './lib.ts';
import { startChild as spawnServer } from '../util/child.ts';
import { loadConfig, createEngine } from '../../lib/index.ts';
import { parseQuery } from '../../engine/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs the metadata benchmark and returns its rows. */
export async function benchMetaHttp(n = 200): Promise<string[]> {
  const { fx, bytes } = await serveArticle('/sites/article/page');
  const env = {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '1000000',
    REFRACT_LOG_LEVEL: 'info',
  };
  const app = await spawnServer(ROOT, env);
  const bare = await spawnServer(ROOT, { ...env, REFRACT_PROBE_TIMEOUT: '0' });
  const engine = await createEngine({ config: loadConfig({ ...env, REFRACT_LOG_LEVEL: 'silent' }) });
  try {
    const target = (i: number) => encodeURIComponent(`${fx.url}/sites/article/page?i=${i}`);
    const floor = async (i: number) => {
      const res = await gotScraping({
        url: `${fx.url}/sites/article/page?f=${i}`,
        http2: false,
        retry: { limit: 0 },
        headerGeneratorOptions: {
          browsers: [{ name: 'chrome', minVersion: 120 }],
          devices: ['desktop'],
          operatingSystems: ['windows'],
        },
      });
      const $ = parseHtml(res.body, res.url);
      return extractMeta(createDoc($, res.url));
    };
    // The floor of the same work with media probes: the same fetch and rules, then a ranged GET of the chosen
    // image and logo at once over a keep-alive agent, with image-size reading their dimensions.
    const floorProbed = async (i: number) => {
      const meta = (await floor(i)) as { image?: { url: string } | null; logo?: { url: string } | null };
      await Promise.all(
        [meta.image?.url, meta.logo?.url]
          .filter((u): u is string => !!u)
          .map(async (u) => {
            const r = await get(u, { range: 'bytes=0-262143' });
            try {
              imageSize(new Uint8Array(r.body));
            } catch {
              /* not an image */
            }
          }),
      );
    };
    const missOn = (base: string) => async (i: number) => {
      const r = await get(`${base}/?url=${target(i)}`);
      if (r.status !== 200 || r.headers['x-cache-status'] !== 'MISS')
        throw new Error(`unexpected ${r.status} ${r.headers['x-cache-status']}`);
    };
    const miss = missOn(app.url);
    const missBare = missOn(bare.url);
    const inProcess = async (i: number) => engine.run(engine.plan(parseQuery(`url=${target(i)}`)));
    const hit = async () => {
      const r = await get(`${app.url}/?url=${target(0)}`);
      if (r.headers['x-cache-status'] !== 'HIT') throw new Error('expected HIT');
    };
    for (let i = 0; i < 20; i++) {
      await floor(-i - 1);
      await miss(100000 + i);
      await missBare(100000 + i);
    }
    const rows: [string, Stats][] = [];
    // Side by side: every iteration runs each contender once, in a rotating order, so that the load of this
    // shared machine (it moves a lot within a second) weighs on all of them alike.
    const contenders = [floor, miss, missBare, inProcess, floorProbed];
    const samples: number[][] = contenders.map(() => []);
    const wall = contenders.map(() => 0);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = (i + k) % contenders.length;
        const t = performance.now();
        await contenders[c]!(i * 10 + c);
        const took = performance.now() - t;
        samples[c]!.push(took);
        wall[c]! += took;
      }
    }
    const [floorStats, missStats, bareStats, engineStats, probedStats] = samples.map((list, c) =>
      stats(list, wall[c]!),
    ) as [Stats, Stats, Stats, Stats, Stats];
    rows.push(['floor: got-scraping + cheerio + rules', floorStats]);
    rows.push(['floor + probes of image and logo', probedStats]);
    rows.push(['refract MISS (HTTP, Crawlee, media probes)', missStats]);
    rows.push(['refract MISS, media probing off', bareStats]);
    rows.push(['engine.run in process (Crawlee, probes, no HTTP)', engineStats]);
    // The ratio of each iteration (same moment, same load), then its median: the steadiest figure on a busy machine.
    const ratios = (list: number[], base = samples[0]!) => {
      const r = list.map((v, i) => v / base[i]!).sort((a, b) => a - b);
      return r[Math.floor(r.length / 2)]!;
    };
    await get(`${app.url}/?url=${target(0)}`);
    rows.push(['refract HIT', await measure(n, 1, hit)]);
    rows.push(['floor, 8 concurrent', await measure(n, 8, (i) => floor(50000 + i))]);
    rows.push(['refract MISS, 8 concurrent', await measure(n, 8, (i) => miss(50000 + i))]);
    rows.push(['refract HIT, 8 concurrent', await measure(n * 5, 8, hit)]);
    const out = rows.map(([name, s]) => row(name, s));
    out.push(
      `ratio MISS p50 / floor p50: ${(missStats.p50 / floorStats.p50).toFixed(2)}x with media probes, ${(bareStats.p50 / floorStats.p50).toFixed(2)}x without (page ${bytes} bytes)`,
    );
    out.push(`ratio MISS p50 / floor-with-probes p50: ${(missStats.p50 / probedStats.p50).toFixed(2)}x`);
    out.push(
      `median of per-iteration ratios: MISS with probes / floor with probes ${ratios(samples[1]!, samples[4]!).toFixed(2)}x, MISS without probes / floor ${ratios(samples[2]!).toFixed(2)}x, MISS with probes / floor ${ratios(samples[1]!).toFixed(2)}x`,
    );
    return out;
  } finally {
    await app.stop();
    await bare.stop();
    await engine.close();
    await fx.close();
  }
}
