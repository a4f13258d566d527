import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serveFixtures, type Fixture } from '../util/serve.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
// A real page (334 kB) whose absolute media hosts are pointed at the loopback fixture server, so that the media
// probes are real requests; without the corpus beside the checkout, the fixture article.
const CORPUS_PAGE = path.resolve(ROOT, '../shared/corpus/metascraper/dev/the-verge/page.html');
const FALLBACK_PAGE = path.join(ROOT, 'fixtures/sites/article/index.html');

/** Serves the fixtures, plus `route`: the real article with its CDN pointed back here, every image answering. */
export async function serveArticle(route: string): Promise<{ fx: Fixture; bytes: number }> {
  const image = await readFile(path.join(ROOT, 'fixtures/sites/article/images/hero.png'));
  // The small article too is answered from memory, as the large one: read from disk on every request (a file open
  // and read through the thread pool of this process), the origin's own cost weighed on every contender alike and
  // was ~1 ms of a ~8 ms small-page request after the quiet gap between calls.
  const small = await readFile(FALLBACK_PAGE);
  let page = '';
  const html = (body: string | Buffer) => (_: unknown, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  };
  const fx = await serveFixtures(
    {
      [route]: (req, res) => html(page)(req, res),
      '/sites/article/index.html': html(small),
    },
    (req, res) => {
      // Every image the page links (its CDN and its icons) answers, as on the real site.
      if (!req.url?.startsWith('/cdn/') && !/\.(png|ico|jpe?g|svg)(\?|$)/i.test(req.url ?? '')) return false;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length });
      res.end(image);
      return true;
    },
  );
  page = (await readFile(CORPUS_PAGE, 'utf8').catch(() => readFile(FALLBACK_PAGE, 'utf8'))).replace(
    /https?:\/\/(cdn\.vox-cdn\.com|www\.theverge\.com)/g,
    `${fx.url}/cdn`,
  );
  return { fx, bytes: page.length };
}

/** Latency summary of a series of timings in milliseconds. */
export interface Stats {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  rps: number;
}

/** Summarizes timings; `wallMs` is the elapsed time of the whole series (for requests per second). */
export function stats(samples: number[], wallMs: number): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), mean, rps: (sorted.length / wallMs) * 1000 };
}

/** Runs `fn` `n` times with `concurrency` in flight and returns the per-call timings. */
export async function measure(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<Stats> {
  const samples: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return stats(samples, performance.now() - start);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** GETs a URL over a keep-alive agent and resolves with the status and body. */
export function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
        );
      })
      .on('error', reject);
  });
}

/** Formats one result row. */
export function row(name: string, s: Stats): string {
  return `${name.padEnd(44)} n=${String(s.n).padStart(4)}  p50 ${s.p50.toFixed(2).padStart(8)} ms  p95 ${s.p95.toFixed(2).padStart(8)} ms  ${s.rps.toFixed(1).padStart(7)} req/s`;
}
