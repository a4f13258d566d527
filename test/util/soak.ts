// The soak shared by `npm run bench soak` and the reliability suite: mixed requests at a fixed concurrency against
// the real server process, the resident memory of the server and of its Chromium processes every stretch of requests,
// then a SIGTERM after which no Chromium process may be left.
import path from 'node:path';
import { serveFixtures } from './serve.ts';
import { startChild, rssOf } from './child.ts';
import { inspector } from './inspector.ts';
import { descendantsOf, descendantsRss, processTable } from '../../engine/browser/memory.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Memory at one mark, in bytes. */
export interface SoakMark {
  at: number;
  serverRss: number;
  chromiumRss: number;
  /** With `inspect`: the server's V8 heap in use and its RSS, both after a full garbage collection. */
  heapUsedAfterGc?: number;
  serverRssAfterGc?: number;
}

/** What a soak saw. */
export interface SoakResult {
  marks: SoakMark[];
  failed: number;
  /** The first failures (status or error), for the report. */
  failures: string[];
  seconds: number;
  /** After the last request, before SIGTERM: as `/metrics` tells. */
  browserPages: number;
  contexts: number;
  browsers: number;
  chromiumProcesses: number;
  exitCode: number | null;
  /** Chromium processes of the server still alive 5 s after it exited. */
  chromiumLeft: number;
  /** Browsers launched over the run (1: never replaced), as `/metrics` tells. */
  launches: number;
  /** With `idleMs`: Chromium processes under the server after that long with no request (retired browsers reaped). */
  chromiumAfterIdle?: number;
  /** Latency by kind of request (ms): p50 and p95 of the successful answers. */
  kinds: Record<string, { n: number; p50: number; p95: number }>;
}

/** The Chromium processes descended from `root`. */
const chromiumUnder = async (root: number) =>
  descendantsOf(await processTable(), root)
    .filter((p) => /chrom/i.test(p.comm))
    .map((p) => p.pid);

/**
 * Runs `total` requests at `concurrency`: one in eight a cache HIT, one in sixteen a PNG screenshot, one in
 * thirty-two each a JPEG screenshot, a PDF and prerendered metadata, the rest metadata MISSes (~155 browser pages
 * in 1,000 requests). With `inspect` the server runs under the inspector and each mark also reads its heap after a
 * full collection (which the plain RSS figures then reflect).
 */
export async function soak(opts: {
  total: number;
  concurrency: number;
  inspect?: boolean;
  stretch?: number;
  idleMs?: number;
}): Promise<SoakResult> {
  const stretch = opts.stretch ?? 250;
  const fx = await serveFixtures();
  const app = await startChild(
    ROOT,
    {
      PORT: '0',
      PRO_PORT: '0',
      HOST: '127.0.0.1',
      REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      REFRACT_FREE_QUOTA: '100000000',
      REFRACT_LOG_LEVEL: 'info',
      REFRACT_ASSETS_DIR: path.join(ROOT, '.assets-soak'),
      ...(opts.inspect ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}),
    },
    { keepLog: opts.inspect },
  );
  const devtools = opts.inspect ? await inspector(app) : undefined;
  try {
    const page = (i: number) => encodeURIComponent(`${fx.url}/sites/article/index.html?soak=${i}`);
    const query = (i: number) => {
      if (i % 16 === 0) return `url=${page(i)}&screenshot&meta=false`;
      if (i % 8 === 1) return `url=${page(0)}`;
      if (i % 32 === 2) return `url=${page(i)}&pdf&meta=false`;
      if (i % 32 === 3) return `url=${page(i)}&prerender=true`;
      if (i % 32 === 4) return `url=${page(i)}&screenshot&screenshot.type=jpeg&meta=false`;
      return `url=${page(i)}&prerender=false`;
    };
    const kindOf = (i: number) =>
      i % 16 === 0
        ? 'screenshot'
        : i % 8 === 1
          ? 'hit'
          : i % 32 === 2
            ? 'pdf'
            : i % 32 === 3
              ? 'prerender'
              : i % 32 === 4
                ? 'jpeg'
                : 'meta';
    const times = new Map<string, number[]>();
    let next = 0;
    const failures: string[] = [];
    let failed = 0;
    const marks: SoakMark[] = [];
    const started = performance.now();
    // The requests run in stretches (250 by default), each mark read between them (nothing in flight while it is read).
    for (let at = stretch; at <= opts.total; at += stretch) {
      const worker = async () => {
        while (next < at) {
          const i = next++;
          const sent = performance.now();
          const res = await fetch(`${app.url}/?${query(i)}`).catch((err: Error) => err);
          if (res instanceof Error || res.status !== 200) {
            failed++;
            if (failures.length < 5)
              failures.push(`${query(i)}: ${res instanceof Error ? res.message : `${res.status} ${await res.text()}`}`);
          } else {
            await res.arrayBuffer();
            const list = times.get(kindOf(i)) ?? [];
            times.set(kindOf(i), list);
            list.push(performance.now() - sent);
          }
        }
      };
      await Promise.all(Array.from({ length: opts.concurrency }, worker));
      const mark: SoakMark = { at, serverRss: rssOf(app.pid), chromiumRss: await descendantsRss(app.pid) };
      if (devtools) {
        mark.heapUsedAfterGc = await devtools.heapAfterGc();
        mark.serverRssAfterGc = rssOf(app.pid);
      }
      marks.push(mark);
    }
    const seconds = (performance.now() - started) / 1000;
    const metrics = await (await fetch(`${app.proUrl}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    const chromium = await chromiumUnder(app.pid);
    // A bench waits with nothing to do: retired browsers must be gone by then (a process table read, not a guess).
    let chromiumAfterIdle: number | undefined;
    if (opts.idleMs) {
      await new Promise((resolve) => setTimeout(resolve, opts.idleMs));
      chromiumAfterIdle = (await chromiumUnder(app.pid)).length;
    }
    const pct = (list: number[], q: number) =>
      [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))]!;
    const kinds = Object.fromEntries(
      [...times].map(([k, list]) => [k, { n: list.length, p50: pct(list, 0.5), p95: pct(list, 0.95) }]),
    );
    devtools?.close();
    await app.stop();
    // Browsers end after the server does (their children a moment later): looked for again for up to 5 s.
    const left = async () => {
      const alive = new Set((await processTable()).filter((p) => /chrom/i.test(p.comm)).map((p) => p.pid));
      return chromium.filter((pid) => alive.has(pid)).length;
    };
    for (const until = Date.now() + 5000; (await left()) > 0 && Date.now() < until; )
      await new Promise((r) => setTimeout(r, 100));
    return {
      marks,
      failed,
      failures,
      seconds,
      browserPages: gauge('refract_browser_pages'),
      contexts: gauge('refract_browser_contexts'),
      browsers: gauge('refract_browsers'),
      chromiumProcesses: chromium.length,
      exitCode: await app.exited,
      chromiumLeft: await left(),
      launches: gauge('refract_browser_launches_total'),
      chromiumAfterIdle,
      kinds,
    };
  } finally {
    devtools?.close();
    await app.stop();
    await fx.close();
  }
}

/** Growth between the first and the last mark, in percent. */
export function growth(marks: readonly SoakMark[], of: (m: SoakMark) => number): number {
  const first = of(marks[0]!);
  return ((of(marks.at(-1)!) - first) / first) * 100;
}

export const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
