// Refract beside the Microlink peer (../shared/peers/microlink, started here) and the bare library floor, on the
// same loopback fixture pages, interleaved in one run: every iteration runs each contender once, in a rotating
// order, so that the load of this shared 2-core machine weighs on all of them alike. Figures: p50 per contender
// and the median of per-iteration ratios (the steadiest figure on a busy machine).
import type http from 'node:http';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { chromium, type Browser, type PageScreenshotOptions } from 'playwright-core';
import { gotScraping } from 'got-scraping';
import { parseHtml } from '../../engine/kernel/html.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';
import { CHROME_ARGS } from '../../engine/browser/pool.ts';
import { startChild } from '../util/child.ts';
import { get, serveArticle, stats, type Stats } from './lib.ts';
import { startPeer, type Peer } from './peer.ts';
import { benchRealPages } from './versus-pages.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = process.env.CHROME_PATH || '/usr/bin/chromium';

type Run = (i: number) => Promise<unknown>;
interface Contender {
  name: string;
  run: Run;
}
interface Series {
  name: string;
  samples: number[];
  stats: Stats;
}

/**
 * A quiet moment after every call, the same for all contenders: work a server does after it has answered (Refract
 * opens its next warm page, the peer closes its context) must not be billed to whichever contender runs next on
 * this 2-core machine. Requests then arrive as to a server that is not saturated; saturation is measured apart
 * (the bursts below), where nothing can be done ahead of need.
 */
const GAP_MS = Number(process.env.REFRACT_BENCH_GAP_MS ?? 400);

/**
 * The order of contenders in each round: every permutation in turn (then again), so that each contender follows
 * each other one equally often. A rotation (0123, 1230, ...) keeps the cyclic order, so the same contender always
 * ran right after the same other one: the third row here always followed the peer's capture and paid for its
 * Chromium's clean-up, which biased the per-round ratio of rows 3 and 4 by ~8%.
 */
function orders(count: number): number[][] {
  const all: number[][] = [];
  const permute = (prefix: number[], rest: number[]) => {
    if (!rest.length) all.push(prefix);
    for (const [k, c] of rest.entries()) permute([...prefix, c], [...rest.slice(0, k), ...rest.slice(k + 1)]);
  };
  permute(
    [],
    Array.from({ length: count }, (_, k) => k),
  );
  return all;
}

/**
 * Runs every contender `n` times, interleaved in balanced orders (see `orders`), after `warm` untimed rounds, with
 * a quiet `gapMs` after each call (a browser's background work after a capture is not charged to the next one).
 */
async function sideBySide(contenders: Contender[], n: number, warm = 3, gapMs = GAP_MS): Promise<Series[]> {
  for (let i = 0; i < warm; i++) for (const c of contenders) await c.run(-1 - i);
  const samples = contenders.map(() => [] as number[]);
  const wall = contenders.map(() => 0);
  const schedule = orders(contenders.length);
  for (let i = 0; i < n; i++) {
    for (const c of schedule[i % schedule.length]!) {
      const t = performance.now();
      await contenders[c]!.run(i);
      const took = performance.now() - t;
      samples[c]!.push(took);
      wall[c]! += took;
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    }
  }
  return contenders.map((c, k) => ({ name: c.name, samples: samples[k]!, stats: stats(samples[k]!, wall[k]!) }));
}

/** The median of the per-iteration ratios a/b. */
function ratio(a: Series, b: Series): number {
  const r = a.samples.map((v, i) => v / b.samples[i]!).sort((x, y) => x - y);
  return r[Math.floor(r.length / 2)]!;
}

function line(s: Series): string {
  return `  ${s.name.padEnd(46)} n=${String(s.stats.n).padStart(4)}  p50 ${s.stats.p50.toFixed(1).padStart(8)} ms  p95 ${s.stats.p95.toFixed(1).padStart(8)} ms`;
}

function verdict(label: string, value: number, limit: number, within = true): string {
  const ok = within ? value <= limit : value >= limit;
  return `  ${label.padEnd(58)} ${value.toFixed(2)}x  (target ${within ? '≤' : '≥'} ${limit}x: ${ok ? 'met' : 'NOT MET'})`;
}

/** A GET that must answer 200 (with `x-cache-status` when `cache` is given). */
async function ok(url: string, cache?: string): Promise<http.IncomingHttpHeaders> {
  const r = await get(url);
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
  if (cache && r.headers['x-cache-status'] !== cache)
    throw new Error(`${url}: expected ${cache}, got ${r.headers['x-cache-status']}`);
  return r.headers;
}

/** Adds the phases of an answer's Server-Timing header (`name;dur=ms, ...`) to `into`. */
function collectTiming(headers: http.IncomingHttpHeaders, into: Map<string, number[]>): void {
  for (const part of String(headers['server-timing'] ?? '').split(',')) {
    const m = /^\s*([\w.-]+);dur=([\d.]+)/.exec(part);
    if (!m) continue;
    if (!into.has(m[1]!)) into.set(m[1]!, []);
    into.get(m[1]!)!.push(Number(m[2]));
  }
}

/** The proportional set size (kB) of a process and all its descendants: shared pages counted once, in parts. */
async function treePss(root: number): Promise<number> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid)!.push(Number(entry));
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    total += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Runs `burst` requests at once, `rounds` times; resolves with requests per second (median) and failures. */
async function bursts(burst: number, rounds: number, run: Run): Promise<{ rps: number; failed: number }> {
  const rates: number[] = [];
  let failed = 0;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const results = await Promise.allSettled(Array.from({ length: burst }, (_, i) => run(r * 1000 + i)));
    rates.push(burst / ((performance.now() - t) / 1000));
    failed += results.filter((x) => x.status === 'rejected').length;
  }
  return { rps: rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!, failed };
}

/** A bare node:http server in its own process answering every request with the same bytes and headers. */
async function bareServer(body: Buffer, headers: Record<string, string>): Promise<{ url: string; stop(): void }> {
  const source = `
    const http = require('node:http');
    const body = Buffer.from(${JSON.stringify(body.toString('base64'))}, 'base64');
    const headers = ${JSON.stringify(headers)};
    const s = http.createServer((req, res) => { res.writeHead(200, headers); res.end(body); });
    s.keepAliveTimeout = 60000;
    s.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (c: Buffer) => resolve(c.toString().trim())),
  );
  return { url, stop: () => child.kill() };
}

async function cannon(url: string, seconds = 5): Promise<{ rps: number; p50: number; errors: number }> {
  const result = await autocannon({ url, connections: 8, duration: seconds, pipelining: 1 });
  return { rps: result.requests.average, p50: result.latency.p50, errors: result.errors + result.non2xx };
}

/** Runs the side-by-side benchmark, printing its lines as they come (each block takes a while). */
export async function benchVersus(
  print: (line: string) => void,
  scale = Number(process.env.REFRACT_BENCH_SCALE ?? 1),
): Promise<void> {
  const out = {
    push: (...lines: string[]) => {
      for (const l of lines) print(l);
    },
  };
  const { fx } = await serveArticle('/page');
  const peer = await startPeer();
  if (!peer) return print('  the peer is not beside this checkout (../shared/peers/microlink): nothing to compare');
  const app = await startChild(ROOT, {
    PORT: '0',
    PRO_PORT: '0',
    HOST: '127.0.0.1',
    REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    REFRACT_FREE_QUOTA: '100000000',
    REFRACT_LOG_LEVEL: 'info',
    REFRACT_ASSETS_DIR: path.join(ROOT, '.assets-bench'),
  });
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROME_ARGS, headless: true });
  const n = (k: number) => Math.max(3, Math.round(k * scale));
  // REFRACT_VERSUS=shot,media,small,meta,hit,burst,pages,memory runs some blocks only (all by default).
  const only = process.env.REFRACT_VERSUS?.split(',');
  const on = (block: string) => !only || only.includes(block);
  try {
    const page = (tag: string, i: number) => encodeURIComponent(`${fx.url}/page?${tag}=${i}`);
    const article = (tag: string, i: number) => encodeURIComponent(`${fx.url}/sites/article/index.html?${tag}=${i}`);
    const refract =
      (query: string, cache = 'MISS') =>
      (tag: string): Run =>
      (i) =>
        ok(`${app.url}/?url=${article(tag, i)}&${query}`, cache);
    const atPeer =
      (query: string): Run =>
      (i) =>
        ok(`${peer.url}/?url=${article('p', i)}&${query}`);
    // The library floor of metadata: fetch the page, parse it, run the metadata rules.
    const floorMeta =
      (path: string): Run =>
      async (i) => {
        const res = await gotScraping({
          url: `${fx.url}${path}?f=${i}`,
          http2: false,
          retry: { limit: 0 },
          headerGeneratorOptions: {
            browsers: [{ name: 'chrome', minVersion: 120 }],
            devices: ['desktop'],
            operatingSystems: ['windows'],
          },
        });
        return extractMeta(createDoc(parseHtml(res.body, res.url), res.url));
      };
    const floorShot =
      (options: PageScreenshotOptions | 'pdf'): Run =>
      async (i) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        await page.goto(`${fx.url}/sites/article/index.html?f=${i}`);
        if (options === 'pdf') await page.pdf({ format: 'A4' });
        else await page.screenshot(options);
        await context.close();
      };

    if (on('shot')) {
      // 1. Screenshot, default options.
      out.push('', '## screenshot PNG 1280x800, meta=false, cache MISS (sequential, interleaved)');
      const shots = await sideBySide(
        [
          { name: 'floor: playwright-core context+goto+PNG', run: floorShot({ type: 'png' }) },
          { name: 'peer: defaults (adblock + autoconsent)', run: atPeer('screenshot&meta=false') },
          { name: 'refract: defaults (adblock + consent)', run: refract('screenshot&meta=false')('d') },
          { name: 'refract: adblock=false', run: refract('screenshot&meta=false&adblock=false')('a') },
        ],
        n(24),
      );
      out.push(...shots.map(line));
      out.push(verdict('refract defaults / peer', ratio(shots[2]!, shots[1]!), 0.8));
      out.push(verdict('refract defaults / floor', ratio(shots[2]!, shots[0]!), 1.25));
      out.push(verdict('refract defaults / refract adblock=false (no banner page)', ratio(shots[2]!, shots[3]!), 1.1));
    }
    if (on('media')) {
      // 2. Full page, JPEG, PDF.
      for (const [label, query, options] of [
        ['full-page PNG', 'screenshot&screenshot.fullPage&meta=false', { type: 'png', fullPage: true }],
        ['JPEG', 'screenshot&screenshot.type=jpeg&meta=false', { type: 'jpeg' }],
        ['pdf', 'pdf&meta=false', 'pdf'],
      ] as const) {
        out.push('', `## ${label}, meta=false, cache MISS (sequential, interleaved)`);
        const s = await sideBySide(
          [
            { name: 'floor: playwright-core', run: floorShot(options as PageScreenshotOptions | 'pdf') },
            { name: 'peer: defaults', run: atPeer(query) },
            { name: 'refract: defaults', run: refract(query)(label[0]!) },
          ],
          n(12),
        );
        out.push(...s.map(line));
        out.push(verdict('refract / peer', ratio(s[2]!, s[1]!), 0.8));
      }
    }
    if (on('small')) {
      // 3a. The fixed cost of a request: a small article (fixtures/sites/article, 1.4 kB), no browser; after the quiet
      // gap (a server at low traffic: caches and idle CPUs cold), then back to back (a server that is busy but not
      // saturated). Neither side does work after its answer here (no browser), so the second needs no gap to be fair.
      for (const [label, gap, tag] of [
        [`after a quiet ${GAP_MS} ms`, GAP_MS, 's'],
        ['back to back', 0, 'b'],
      ] as const) {
        out.push(
          '',
          `## metadata of a small article (1.4 kB), prerender=false, cache MISS, ${label} (sequential, interleaved)`,
        );
        const phases = new Map<string, number[]>();
        const small = await sideBySide(
          [
            { name: 'floor: got-scraping + cheerio + rules', run: floorMeta('/sites/article/index.html') },
            {
              name: 'peer: prerender=false',
              run: (i) => ok(`${peer.url}/?url=${article(`p${tag}`, i)}&prerender=false`),
            },
            {
              name: 'refract: prerender=false',
              run: async (i) => {
                const headers = await ok(`${app.url}/?url=${article(`r${tag}`, i)}&prerender=false`, 'MISS');
                if (i >= 0) collectTiming(headers, phases);
              },
            },
          ],
          n(60),
          3,
          gap,
        );
        out.push(...small.map(line));
        // Where Refract's time went inside the server (Server-Timing, medians): what the client saw beyond `total` is
        // the HTTP exchange and the wait for the process to be scheduled.
        out.push(
          `  refract Server-Timing medians: ${[...phases].map(([name, v]) => `${name} ${[...v].sort((x, y) => x - y)[v.length >> 1]!.toFixed(2)}`).join(', ')} ms`,
        );
        out.push(verdict(`refract / peer, small page, ${label}`, ratio(small[2]!, small[1]!), 0.7));
        out.push(verdict(`refract / floor, small page, ${label}`, ratio(small[2]!, small[0]!), 2.5));
      }
    }
    if (on('meta')) {
      // 3. Metadata.
      out.push('', '## metadata of a 334 kB article, cache MISS (sequential, interleaved)');
      const meta = await sideBySide(
        [
          { name: 'floor: got-scraping + cheerio + rules', run: floorMeta('/page') },
          { name: 'peer: prerender=false', run: (i) => ok(`${peer.url}/?url=${page('p', i)}&prerender=false`) },
          {
            name: 'refract: prerender=false',
            run: (i) => ok(`${app.url}/?url=${page('r', i)}&prerender=false`, 'MISS'),
          },
        ],
        n(60),
      );
      out.push(...meta.map(line));
      out.push(verdict('refract / peer', ratio(meta[2]!, meta[1]!), 0.7));
      out.push(verdict('refract / floor', ratio(meta[2]!, meta[0]!), 2));
      const auto = await sideBySide(
        [
          { name: 'peer: prerender=auto (default)', run: (i) => ok(`${peer.url}/?url=${page('pa', i)}`) },
          { name: 'refract: prerender=auto (default)', run: (i) => ok(`${app.url}/?url=${page('ra', i)}`, 'MISS') },
        ],
        n(8),
        1,
      );
      out.push(...auto.map(line));
      out.push(verdict('refract / peer, default prerender', ratio(auto[1]!, auto[0]!), 0.1));
    }
    if (on('hit')) {
      // 4. Cache HIT.
      out.push('', '## cache HIT (the peer has no cache): latency, then 8 connections for 5 s beside bare node:http');
      const hitUrl = `${app.url}/?url=${page('hit', 0)}&prerender=false`;
      await ok(hitUrl);
      const hit = await sideBySide(
        [{ name: 'refract HIT, sequential keep-alive', run: () => ok(hitUrl, 'HIT') }],
        n(1000),
        50,
        0,
      );
      out.push(line(hit[0]!));
      out.push(
        `  ${'refract HIT p50'.padEnd(58)} ${hit[0]!.stats.p50.toFixed(2)} ms  (target ≤ 1 ms: ${hit[0]!.stats.p50 <= 1 ? 'met' : 'NOT MET'})`,
      );
      const sample = await get(hitUrl);
      const headers = Object.fromEntries(
        Object.entries(sample.headers)
          .filter(([k]) => !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k))
          .map(([k, v]) => [k, String(v)]),
      );
      const bare = await bareServer(sample.body, headers);
      try {
        const b = await cannon(bare.url);
        const r = await cannon(hitUrl);
        const b2 = await cannon(bare.url);
        const r2 = await cannon(hitUrl);
        const [bareRps, ourRps] = [(b.rps + b2.rps) / 2, (r.rps + r2.rps) / 2];
        out.push(
          `  bare node:http, same ${sample.body.length} bytes: ${bareRps.toFixed(0)} req/s (p50 ${b.p50} ms); refract HIT: ${ourRps.toFixed(0)} req/s (p50 ${r.p50} ms), errors ${r.errors + r2.errors}`,
        );
        out.push(verdict('refract HIT throughput / bare node:http', ourRps / bareRps, 0.5, false));
      } finally {
        bare.stop();
      }
    }
    if (on('burst')) {
      // 5. Concurrency.
      out.push('', '## concurrency: bursts of requests at once, throughput (median of bursts)');
      const burstShots: Record<string, { rps: number; failed: number }> = {};
      for (let round = 0; round < 3; round++) {
        for (const [name, run] of [
          ['peer', atPeer('screenshot&meta=false')],
          ['refract', refract('screenshot&meta=false')('c')],
        ] as const) {
          const b = await bursts(16, 1, (i) => run(round * 100 + i));
          const prev = burstShots[name];
          burstShots[name] = { rps: (prev?.rps ?? 0) + b.rps / 3, failed: (prev?.failed ?? 0) + b.failed };
        }
      }
      out.push(
        `  16 screenshots at once: peer ${burstShots.peer!.rps.toFixed(2)} req/s (${burstShots.peer!.failed} failed), refract ${burstShots.refract!.rps.toFixed(2)} req/s (${burstShots.refract!.failed} failed)`,
      );
      out.push(
        verdict('refract / peer, 16 screenshots at once', burstShots.refract!.rps / burstShots.peer!.rps, 1.5, false),
      );
      const burstMeta: Record<string, { rps: number; failed: number }> = {};
      for (let round = 0; round < 3; round++) {
        for (const [name, base] of [
          ['peer', peer.url],
          ['refract', app.url],
        ] as const) {
          const b = await bursts(64, 1, (i) => ok(`${base}/?url=${page(`b${name}${round}`, i)}&prerender=false`));
          const prev = burstMeta[name];
          burstMeta[name] = { rps: (prev?.rps ?? 0) + b.rps / 3, failed: (prev?.failed ?? 0) + b.failed };
        }
      }
      out.push(
        `  64 metadata MISS at once: peer ${burstMeta.peer!.rps.toFixed(1)} req/s (${burstMeta.peer!.failed} failed), refract ${burstMeta.refract!.rps.toFixed(1)} req/s (${burstMeta.refract!.failed} failed)`,
      );
      out.push(
        verdict('refract / peer, 64 metadata MISS at once', burstMeta.refract!.rps / burstMeta.peer!.rps, 2, false),
      );
    }
    if (on('pages'))
      await benchRealPages(
        [
          { name: 'peer', url: peer.url },
          { name: 'refract', url: app.url },
        ],
        (...lines) => out.push(...lines),
      );
    if (on('memory')) {
      // 6. Memory after 500 mixed requests (4 in flight): 70% metadata, 20% screenshots, 10% PDFs.
      out.push('', '## memory: PSS of the server and its browser processes after 500 mixed requests, 4 in flight');
      const mixed =
        (base: string, tag: string): Run =>
        (i) => {
          const target = i % 10 < 7 ? page(`${tag}m`, i) : article(`${tag}s`, i);
          const query =
            i % 10 < 6
              ? '&prerender=false'
              : i % 10 < 7
                ? ''
                : i % 10 < 9
                  ? '&screenshot&meta=false'
                  : '&pdf&meta=false';
          return ok(`${base}/?url=${target}${query}`);
        };
      const memory: Record<string, number> = {};
      for (const [name, base, pid] of [
        ['peer', peer.url, peer.pid],
        ['refract', app.url, app.pid],
      ] as const) {
        const before = await treePss(pid);
        const started = performance.now();
        const result = await bursts(4, 125, mixed(base, name));
        memory[name] = await treePss(pid);
        out.push(
          `  ${name}: ${(before / 1024).toFixed(0)} MiB before, ${(memory[name]! / 1024).toFixed(0)} MiB after (${((performance.now() - started) / 1000).toFixed(1)} s, ${result.failed} failed)`,
        );
      }
      out.push(verdict('refract / peer, memory after 500 requests', memory.refract! / memory.peer!, 1));
    }
  } finally {
    await browser.close();
    await app.stop();
    await peer.stop();
    await fx.close();
  }
}

export type { Peer };
