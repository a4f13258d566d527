// The soak of the reliability suite: 320 mixed requests at concurrency 8 through the real server and Chromium, the
// server's heap read after full collections every 80 requests (a leak of anything a request holds shows there
// whatever the collector's timing), then SIGTERM: nothing of the browsers may be left. `npm run bench soak` runs
// 1,000 and more of the same requests without the inspector and reports resident memory alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { soak, growth, mb } from '../util/soak.ts';

const TOTAL = 320;
const STRETCH = 80;

test(`${TOTAL} mixed requests at concurrency 8: none fails, the heap stays flat, nothing is left after SIGTERM`, async () => {
  const r = await soak({ total: TOTAL, concurrency: 8, inspect: true, stretch: STRETCH });
  for (const m of r.marks) {
    console.log(
      `  soak after ${String(m.at).padStart(4)}: server ${mb(m.serverRss)} (${mb(m.serverRssAfterGc!)} after a full GC, heap ${mb(m.heapUsedAfterGc!)}), Chromium ${mb(m.chromiumRss)}`,
    );
  }
  console.log(
    `  soak: ${r.seconds.toFixed(1)} s; growth from ${STRETCH} to ${TOTAL}: heap ${growth(r.marks, (m) => m.heapUsedAfterGc!).toFixed(1)}%, server RSS after GC ${growth(r.marks, (m) => m.serverRssAfterGc!).toFixed(1)}%, server + Chromium RSS ${growth(r.marks, (m) => m.serverRss + m.chromiumRss).toFixed(1)}%`,
  );
  assert.is(r.failed, 0, `failed: ${r.failures.join('; ')}`);
  assert.is(r.marks.length, TOTAL / STRETCH);
  // Before the deadline fix each metadata request kept ~25 kB for its whole timeout: 6 MB over these 240 requests,
  // 7% of the ~85 MB heap after a full collection (measured without it: 1.1% to 2.0% over the same requests).
  assert.ok(growth(r.marks, (m) => m.heapUsedAfterGc!) < 5, 'heap growth over the last 240 requests under 5%');
  assert.ok(growth(r.marks, (m) => m.serverRssAfterGc!) < 15, 'server RSS after a full GC grows less than 15%');
  assert.is(r.browserPages, 0, 'no page in use once every answer is in');
  // ~50 browser pages, under the 100 a browser serves: one launch (the memory ceiling read summed RSS and launched
  // a browser after nearly every page: 54 in 1,000 requests).
  assert.ok(r.launches <= 2, `browsers launched: ${r.launches}`);
  assert.is(r.exitCode, 0, 'SIGTERM ends the server cleanly');
  assert.ok(r.chromiumProcesses > 0, 'Chromium processes were found under the server');
  assert.is(r.chromiumLeft, 0, 'no Chromium process outlives the server');
});

test.run();
