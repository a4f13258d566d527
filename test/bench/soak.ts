// `npm run bench soak`: 1,000 mixed requests at concurrency 8 against the real server process (REFRACT_SOAK_REQUESTS
// for a longer run), the resident memory of the server and of its Chromium processes every 250 requests, then a
// SIGTERM: no Chromium process may be left after it. The same soak runs in the reliability suite (soak.test.ts),
// there with the server's heap read after full collections; here nothing disturbs the server's own collector.
import { soak, growth, mb } from '../util/soak.ts';

export async function benchSoak(): Promise<string[]> {
  const total = Math.max(500, Number(process.env.REFRACT_SOAK_REQUESTS ?? 1000));
  const r = await soak({ total, concurrency: 8 });
  const out = r.marks.map((m) => `  after ${String(m.at).padStart(4)}: ${mb(m.serverRss)} server, ${mb(m.chromiumRss)} Chromium`);
  const last = r.marks.at(-1)!.at;
  out.push(`  ${total} requests at concurrency 8 in ${r.seconds.toFixed(1)} s, ${r.failed} failed${r.failures.length ? ` (${r.failures.join('; ')})` : ''}`);
  out.push(`  growth from 250 to ${last}: server + Chromium ${growth(r.marks, (m) => m.serverRss + m.chromiumRss).toFixed(1)}% (target < 10%), server ${growth(r.marks, (m) => m.serverRss).toFixed(1)}%, Chromium ${growth(r.marks, (m) => m.chromiumRss).toFixed(1)}%`);
  out.push(`  at the end: ${r.browserPages} pages in use, ${r.contexts} contexts and ${r.browsers} browser(s) kept warm, ${r.chromiumProcesses} Chromium processes`);
  out.push(`  after SIGTERM: exit code ${r.exitCode}, Chromium processes left after 5 s: ${r.chromiumLeft} of ${r.chromiumProcesses}`);
  return out;
}
