// `npm run bench soak`: 1,000 mixed requests at concurrency 8 against the real server process (REFRACT_SOAK_REQUESTS
// for a longer run), the resident memory of the server and of its Chromium processes every 250 requests, then a
// SIGTERM: no Chromium process may be left after it. The same soak runs in the reliability suite (soak.test.ts),
// there with the server's heap read after full collections; here nothing disturbs the server's own collector.
import { soak, growth, mb } from '../util/soak.ts';

export async function benchSoak(): Promise<string[]> {
  const total = Math.max(500, Number(process.env.REFRACT_SOAK_REQUESTS ?? 1000));
  const r = await soak({ total, concurrency: 8, idleMs: 60_000 });
  const out = r.marks.map(
    (m) => `  after ${String(m.at).padStart(4)}: ${mb(m.serverRss)} server, ${mb(m.chromiumRss)} Chromium`,
  );
  const last = r.marks.at(-1)!.at;
  out.push(
    `  ${total} requests at concurrency 8 in ${r.seconds.toFixed(1)} s, ${r.failed} failed${r.failures.length ? ` (${r.failures.join('; ')})` : ''}`,
  );
  out.push(
    `  growth from 250 to ${last}: server + Chromium ${growth(r.marks, (m) => m.serverRss + m.chromiumRss).toFixed(1)}% (target < 10%), server ${growth(r.marks, (m) => m.serverRss).toFixed(1)}%, Chromium ${growth(r.marks, (m) => m.chromiumRss).toFixed(1)}%`,
  );
  out.push(
    `  at the end: ${r.browserPages} pages in use, ${r.contexts} contexts and ${r.browsers} browser(s) kept warm, ${r.chromiumProcesses} Chromium processes`,
  );
  out.push(
    `  browsers launched: ${r.launches} (target: no launch storm; one per ${'REFRACT_BROWSER_RETIRE_AFTER'} pages and after a memory ceiling)`,
  );
  out.push(
    `  Chromium processes: ${r.chromiumProcesses} at the end of the load, ${r.chromiumAfterIdle} a minute later with no request (retired browsers reaped)`,
  );
  for (const [kind, k] of Object.entries(r.kinds))
    out.push(
      `  ${kind.padEnd(10)} n=${String(k.n).padStart(4)}  p50 ${k.p50.toFixed(0).padStart(5)} ms  p95 ${k.p95.toFixed(0).padStart(5)} ms  (p95/p50 ${(k.p95 / k.p50).toFixed(1)}x${kind === 'screenshot' ? ', target <= 3x' : ''})`,
    );
  out.push(
    `  after SIGTERM: exit code ${r.exitCode}, Chromium processes left after 5 s: ${r.chromiumLeft} of ${r.chromiumProcesses}`,
  );
  return out;
}
