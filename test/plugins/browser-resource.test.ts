import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q } from '../util/refract.ts';

/** PIDs of the Chromium processes this test process started (direct children), newest last. */
function chromiumChildren(): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([, comm]) => comm && /chrom/.test(comm))
      .map(([pid]) => Number(pid));
  } catch {
    return [];
  }
}

let fx: Fixture;
let crashes = 0;
let release: (() => void) | undefined;
let reached: (() => void) | undefined;

test.before(async () => {
  fx = await serveFixtures({
    '/crash': (_, res) => {
      // The first visit kills the browser that is loading it; the retry is answered normally.
      if (crashes++ === 0) for (const pid of chromiumChildren()) process.kill(pid, 'SIGKILL');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Survived</title><body style="background:rgb(0,128,0)">ok</body>');
    },
    '/hold': (_, res) => {
      reached?.();
      release = () => {
        release = undefined;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Held</title>');
      };
    },
  });
});

test.after(async () => {
  release?.();
  await fx.close();
});

test('a Chromium killed mid-request is replaced and the request retried; no process is left behind', async () => {
  const app = await startHandlers();
  try {
    const { status, body } = await call(app.free, `url=${q(`${fx.url}/crash`)}&screenshot&retry=2`);
    assert.is(status, 200, JSON.stringify(body).slice(0, 300));
    assert.is(body.data.title, 'Survived');
    assert.is(crashes, 2, 'the page was loaded twice: once in the killed browser, once in its replacement');
    assert.ok(app.engine.browsers.stats().launched >= 2, 'a new browser was launched');
    const again = await call(app.free, `url=${q(`${fx.url}/sites/browser/clear.html`)}&screenshot`);
    assert.is(again.status, 200);
  } finally {
    await app.close();
  }
  assert.equal(chromiumChildren(), [], 'no Chromium outlives the server');
});

test('browsers are recycled after their page count', async () => {
  const app = await startHandlers({ REFRACT_BROWSER_RETIRE_AFTER: '2' });
  try {
    for (let i = 0; i < 5; i++) {
      const { status } = await call(app.free, `url=${q(`${fx.url}/sites/browser/clear.html?i=${i}`)}&screenshot`);
      assert.is(status, 200);
    }
    assert.ok(app.engine.browsers.stats().launched >= 2, `launched ${app.engine.browsers.stats().launched}`);
  } finally {
    await app.close();
  }
});

test('browsers are replaced once their memory passes the ceiling', async () => {
  const app = await startHandlers({ REFRACT_BROWSER_MAX_MEMORY: String(1024 * 1024) });
  try {
    for (let i = 0; i < 3; i++) {
      const { status } = await call(app.free, `url=${q(`${fx.url}/sites/browser/clear.html?m=${i}`)}&screenshot`);
      assert.is(status, 200);
    }
    assert.ok(
      app.engine.browsers.stats().launched >= 3,
      `a fresh browser for each page past a 1 MB ceiling: ${app.engine.browsers.stats().launched}`,
    );
  } finally {
    await app.close();
  }
});

test('past the browser queue a request is refused at once with EBUSY (503)', async () => {
  const app = await startHandlers({ REFRACT_BROWSER_CONCURRENCY: '1', REFRACT_BROWSER_QUEUE: '0' });
  try {
    const reachedHold = new Promise<void>((r) => {
      reached = r;
    });
    let firstDone = false;
    const first = call(app.free, `url=${q(`${fx.url}/hold`)}&screenshot`).finally(() => {
      firstDone = true;
    });
    await reachedHold;
    const clearHits = fx.hits.filter((h) => h.includes('clear.html')).length;
    const second = await call(app.free, `url=${q(`${fx.url}/sites/browser/clear.html`)}&screenshot`);
    assert.is(second.status, 503);
    assert.is(second.body.code, 'EBUSY');
    assert.is(second.body.status, 'error');
    // Answered while the only browser slot was still held (the first request waits for `release`), and never fetched.
    assert.is(firstDone, false, 'answered at once, not after the slot came free');
    assert.is(fx.hits.filter((h) => h.includes('clear.html')).length, clearHits);
    assert.is(second.headers.get('retry-after'), '1', 'a client backs off for a second');
    assert.is(second.headers.get('x-rate-limit-reset'), null, 'no reset time on a 503: clients would retry at it');
    release?.();
    assert.is((await first).status, 200);
  } finally {
    await app.close();
  }
});

test.run();
