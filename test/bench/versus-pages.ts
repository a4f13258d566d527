// Metadata of real saved pages under concurrency, Refract beside the peer: the labelled corpus's pages
// (../shared/corpus/labelled, read there, never copied) served on loopback, whose images and icons point at hosts
// that do not resolve here, asked for with prerender=false at 1, 4 and 8 at once. Pages/s, p50 and p95 per side.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { serveFixtures } from '../util/serve.ts';
import { get, measure } from './lib.ts';

const PAGES = path.resolve(import.meta.dirname, '../../../shared/corpus/labelled/pages');

/** The block: lines as `print` takes them; `bases` are the servers compared (peer first). */
export async function benchRealPages(
  bases: { name: string; url: string }[],
  print: (...lines: string[]) => void,
  count = Number(process.env.REFRACT_BENCH_PAGES ?? 180),
): Promise<void> {
  const names = (await readdir(PAGES).catch(() => [] as string[])).filter((n) => n.endsWith('.html.gz')).sort();
  if (!names.length) return print('  the labelled corpus is not beside this checkout: no real pages to serve');
  const chosen = names.slice(0, count);
  const bodies = new Map<string, Buffer>();
  for (const name of chosen)
    bodies.set(name.replace(/\.html\.gz$/, ''), gunzipSync(await readFile(path.join(PAGES, name))));
  const site = await serveFixtures({}, (req, res) => {
    const id = /^\/p\/(\w+)/.exec(req.url ?? '')?.[1];
    const body = id ? bodies.get(id) : undefined;
    if (!body) return false;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
    return true;
  });
  const ids = [...bodies.keys()];
  print('', `## metadata of ${ids.length} real saved pages (labelled corpus), prerender=false, cache MISS, at once`);
  try {
    const rates: Record<string, number> = {};
    for (const width of [1, 4, 8]) {
      for (const { name, url } of bases) {
        let failed = 0;
        // What the answers that were not 200 were (a status and the error's code, or the client's error), counted.
        const why = new Map<string, number>();
        const run = await measure(ids.length, width, async (i) => {
          const target = encodeURIComponent(`${site.url}/p/${ids[i]}?${name}${width}`);
          const reason = await get(`${url}/?url=${target}&prerender=false`).then(
            (r) =>
              r.status === 200
                ? undefined
                : `${r.status} ${/"code":"(\w+)"/.exec(r.body.toString())?.[1] ?? ''}`.trim(),
            (error: Error & { code?: string }) => `client ${error.code ?? error.message}`,
          );
          if (reason === undefined) return;
          failed++;
          why.set(reason, (why.get(reason) ?? 0) + 1);
        });
        rates[`${name}${width}`] = run.rps;
        print(
          `  ${`${name}, ${width} at once`.padEnd(24)} ${run.rps.toFixed(2).padStart(7)} pages/s  p50 ${run.p50.toFixed(0).padStart(5)} ms  p95 ${run.p95.toFixed(0).padStart(6)} ms  (${failed} not 200${failed ? `: ${[...why].map(([r, k]) => `${k} ${r}`).join(', ')}` : ''})`,
        );
      }
    }
    const [peer, ours] = bases.map((b) => b.name);
    for (const width of [1, 4, 8])
      print(
        `  refract / peer pages/s, ${width} at once: ${(rates[`${ours}${width}`]! / rates[`${peer}${width}`]!).toFixed(2)}x`,
      );
  } finally {
    await site.close();
  }
}
