// 1,000 monitors on a hand-moved clock (issue 54): the work of scheduling them (a tick with nothing due, a tick
// with all due), reads counted at the target (one each a tick), and the memory they take (heap after a full GC).
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { serveFixtures } from '../util/serve.ts';
import { manualClock, startRefract } from '../util/refract.ts';
import { createMonitors } from '../../crawl/index.ts';

const N = 1000;
const HOUR = 3_600_000;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

export async function benchMonitors(): Promise<string[]> {
  let reads = 0;
  const read = new EventEmitter();
  const fx = await serveFixtures({
    '/watched': (_, res) => {
      reads++;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Watched</title></head><body><main><p>A page that stays the same.</p></main></body></html>',
      );
      read.emit('read');
    },
  });
  const app = await startRefract();
  const clock = manualClock();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-bench-monitors-'));
  const monitors = await createMonitors({
    engine: app.engine,
    dir,
    clock,
    webhookSecret: '',
    perKey: N,
    historyMax: 100,
    historyAgeMs: 30 * 86_400_000,
  });
  const until = async (n: number) => {
    while (reads < n) await once(read, 'read');
  };
  const rows: string[] = [];
  try {
    const before = heap();
    let started = performance.now();
    for (let i = 0; i < N; i++)
      await monitors.create(`owner-${i % 10}`, { url: `${fx.url}/watched?${i}`, query: 'meta=false', every: HOUR });
    const created = performance.now() - started;
    await until(N);
    const firstRound = performance.now() - started;
    const kept = heap() - before;
    rows.push(
      `create ${N} monitors                          ${created.toFixed(0)} ms (${(created / N).toFixed(2)} ms each, a file each: ${readdirSync(dir).length})`,
    );
    rows.push(
      `first round: ${N} reads, 2 at once            ${firstRound.toFixed(0)} ms; reads at the target ${reads}`,
    );
    rows.push(
      `heap kept for ${N} monitors                   ${(kept / 2 ** 20).toFixed(1)} MiB (${(kept / N / 1024).toFixed(1)} KiB each: the monitor, its first report and the response cache's entry of its read)`,
    );
    clock.advance(HOUR / 2);
    const idle: number[] = [];
    for (let i = 0; i < 50; i++) {
      started = performance.now();
      await monitors.tick();
      idle.push(performance.now() - started);
    }
    idle.sort((a, b) => a - b);
    rows.push(
      `a tick with nothing due (of ${N})              p50 ${idle[25]!.toFixed(2)} ms, max ${idle[49]!.toFixed(2)} ms; reads ${reads}`,
    );
    clock.advance(HOUR / 2);
    started = performance.now();
    await monitors.tick();
    await until(2 * N);
    rows.push(
      `a tick with all ${N} due                        ${(performance.now() - started).toFixed(0)} ms; reads at the target ${reads} (one each a tick)`,
    );
    rows.push(`heap after two rounds                          ${((heap() - before) / 2 ** 20).toFixed(1)} MiB`);
  } finally {
    await monitors.close();
    await app.close();
    await fx.close();
  }
  return rows;
}
