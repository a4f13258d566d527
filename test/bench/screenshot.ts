// Screenshot latency on a fixture page: Refract over HTTP beside the floor (bare playwright-core on an already
// open browser: new context, goto, screenshot) and beside launching a browser per request, in one run.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serveFixtures } from '../util/serve.ts';
import { startChild } from '../util/child.ts';
import { measure, get, row, type Stats } from './lib.ts';
import { CHROME_ARGS } from '../../engine/browser/pool.ts';
const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs the screenshot benchmark and returns its rows. */
export async function benchScreenshot(n = 40): Promise<string[]> {
  const fx = await serveFixtures();
  const page = `${fx.url}/sites/article/index.html`;
  const app = await startChild(ROOT, {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '1000000',
    REFRACT_LOG_LEVEL: 'info',
    REFRACT_ASSETS_DIR: path.join(ROOT, '.assets-bench'),
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_ARGS, headless: true });
  try {
    const floor = async (i: number) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const p = await context.newPage();
      await p.goto(`${page}?floor=${i}`);
      await p.screenshot({ type: 'png' });
      await context.close();
    };
    const launch = async (i: number) => {
      const b = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_ARGS, headless: true });
      const p = await b.newPage({ viewport: { width: 1280, height: 800 } });
      await p.goto(`${page}?launch=${i}`);
      await p.screenshot({ type: 'png' });
      await b.close();
    };
    const refractWith = (extra: string) => async (i: number) => {
      const r = await get(
        `${app.url}/?url=${encodeURIComponent(`${page}?r=${i}${extra}`)}&screenshot&meta=false${extra}`,
      );
      if (r.status !== 200) throw new Error(`refract answered ${r.status}: ${r.body.toString().slice(0, 200)}`);
    };
    // Like for like with the floor: no ad blocking or banner dismissal (both on by default on the free endpoint).
    const refract = refractWith('&adblock=false');
    const refractDefault = refractWith('');
    for (let i = 0; i < 5; i++) {
      await floor(-1 - i);
      await refract(-1 - i);
    }
    const floors: Stats[] = [];
    const ours: Stats[] = [];
    for (let round = 0; round < 4; round++) {
      floors.push(await measure(n / 4, 1, (i) => floor(round * 100 + i)));
      ours.push(await measure(n / 4, 1, (i) => refract(round * 100 + i)));
    }
    const launches = await measure(8, 1, launch);
    const defaults = await measure(n / 2, 1, (i) => refractDefault(1000 + i));
    const merge = (list: Stats[]): Stats => {
      const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      return {
        n: list.reduce((a, s) => a + s.n, 0),
        p50: mid(list.map((s) => s.p50)),
        p95: mid(list.map((s) => s.p95)),
        mean: 0,
        rps: list.reduce((a, s) => a + s.rps, 0) / list.length,
      };
    };
    const f = merge(floors);
    const o = merge(ours);
    return [
      row('floor: open browser, context+goto+PNG', f),
      row('refract: HTTP screenshot (MISS, adblock=false)', o),
      row('refract: free defaults (adblock + consent)', defaults),
      row('launch a browser per request', launches),
      `ratio refract p50 / floor p50: ${(o.p50 / f.p50).toFixed(2)}x; launch-per-request / floor: ${(launches.p50 / f.p50).toFixed(2)}x`,
    ];
  } finally {
    await browser.close();
    await app.stop();
    await fx.close();
  }
}
