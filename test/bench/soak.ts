// `npm run bench soak`: 1,000 mixed requests at concurrency 8 against the real server process, with the resident
// memory of the server and of its Chromium processes at 250, 500, 750 and 1,000, then a SIGTERM: no Chromium
// process may be left after it.
import path from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { serveArticle } from './lib.ts';
import { startChild } from '../util/child.ts';
import { descendantsRss } from '../../engine/browser/memory.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// REFRACT_SOAK_REQUESTS runs a longer soak (marks every 250 requests, growth from the first mark to the last).
const TOTAL = Math.max(500, Number(process.env.REFRACT_SOAK_REQUESTS ?? 1000));
const CONCURRENCY = 8;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

/** Every process: pid, parent and command name (from /proc). */
function processes(): { pid: number; ppid: number; comm: string }[] {
  return readdirSync('/proc').filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      return [{ pid: Number(e), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) }];
    } catch { return []; }
  });
}

/** The Chromium processes descended from `root`. */
function chromiumUnder(root: number): number[] {
  const all = processes();
  const parent = new Map(all.map((p) => [p.pid, p.ppid]));
  return all.filter((p) => /chrom/i.test(p.comm) && (() => {
    for (let at = parent.get(p.pid), depth = 0; at && depth < 8; at = parent.get(at), depth++) if (at === root) return true;
    return false;
  })()).map((p) => p.pid);
}

export async function benchSoak(): Promise<string[]> {
  const { fx } = await serveArticle('/page');
  const app = await startChild(ROOT, {
    PORT: '0', PRO_PORT: '0', HOST: '127.0.0.1', REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1', REFRACT_FREE_QUOTA: '100000000',
    REFRACT_LOG_LEVEL: 'info', REFRACT_ASSETS_DIR: path.join(ROOT, '.assets-bench'),
  });
  const out: string[] = [];
  try {
    const page = (i: number) => encodeURIComponent(`${fx.url}/sites/article/index.html?soak=${i}`);
    // One in eight a screenshot, one in eight a cache HIT, one in sixteen a PDF, the rest metadata MISSes.
    const query = (i: number) => {
      if (i % 8 === 0) return `url=${page(i)}&screenshot&meta=false`;
      if (i % 8 === 1) return `url=${page(0)}`;
      if (i % 16 === 2) return `url=${page(i)}&pdf&meta=false`;
      if (i % 16 === 3) return `url=${page(i)}&prerender=true`;
      return `url=${page(i)}&prerender=false`;
    };
    let next = 0;
    let failed = 0;
    const marks = new Map<number, string>();
    const started = performance.now();
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        const res = await fetch(`${app.url}/?${query(i)}`).catch(() => undefined);
        if (!res || res.status !== 200) failed++;
        await res?.arrayBuffer().catch(() => undefined);
        const done = i + 1;
        if (done % 250 === 0) marks.set(done, `${mb(rssOf(app.pid))} server, ${mb(await descendantsRss(app.pid))} Chromium`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    for (let at = 250; at <= TOTAL; at += 250) out.push(`  after ${String(at).padStart(4)}: ${marks.get(at) ?? 'n/a'}`);
    const first = Number(/^(\d+) MB server, (\d+)/.exec(marks.get(250) ?? '')?.slice(1).reduce((a, b) => String(Number(a) + Number(b))));
    const last = Number(/^(\d+) MB server, (\d+)/.exec(marks.get(Math.floor(TOTAL / 250) * 250) ?? '')?.slice(1).reduce((a, b) => String(Number(a) + Number(b))));
    out.push(`  ${TOTAL} requests at concurrency ${CONCURRENCY} in ${seconds.toFixed(1)} s, ${failed} failed; growth from 250 to ${Math.floor(TOTAL / 250) * 250}: ${(((last - first) / first) * 100).toFixed(1)}% (target < 10%)`);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    const chromium = chromiumUnder(app.pid);
    out.push(`  kept warm at the end: ${/refract_browser_contexts (\d+)/.exec(metrics)?.[1]} contexts, ${/refract_browsers (\d+)/.exec(metrics)?.[1]} browser(s), ${chromium.length} Chromium processes`);
    await app.stop();
    // Browsers end after the server does (their children a moment later): looked for again for up to 5 s.
    const left = () => { const alive = new Set(processes().filter((p) => /chrom/i.test(p.comm)).map((p) => p.pid)); return chromium.filter((pid) => alive.has(pid)).length; };
    for (const until = Date.now() + 5000; left() > 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    out.push(`  after SIGTERM: exit code ${await app.exited}, Chromium processes left after 5 s: ${left()} of ${chromium.length}`);
  } finally {
    await app.stop();
    await fx.close();
  }
  return out;
}
