import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { deadline, stepCutoff } from '../../engine/kernel/deadline.ts';
import { fetchTarget } from '../../engine/fetch/http.ts';
import { createGuard } from '../../engine/fetch/guard.ts';
import { serveFixtures } from '../util/serve.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

test('a step leaves a second to each step after it, but keeps at least its even share of the time left', () => {
  assert.is(stepCutoff(0, 10_000, 0), 10_000, 'the last step runs to the cutoff');
  assert.is(stepCutoff(0, 10_000, 2), 8000);
  assert.is(stepCutoff(1000, 3200, 1), 2200, '2.2 s left, one step after: 1.2 s');
  assert.is(stepCutoff(0, 1500, 2), 500, 'short of time: an even share each');
  assert.is(stepCutoff(500, 500, 3), 500, 'no time left: none');
});

test('a deadline aborts with a TimeoutError when its time is up', async () => {
  const { signal } = deadline(20);
  const reason = await aborted(signal);
  assert.instance(reason, DOMException);
  assert.is((reason as DOMException).name, 'TimeoutError');
});

test("a parent's abort passes on with its reason, and an aborted parent aborts at once", async () => {
  const parent = new AbortController();
  const { signal } = deadline(60_000, parent.signal);
  const why = new Error('the request ended');
  parent.abort(why);
  assert.is(signal.reason, why);
  assert.is(getEventListeners(parent.signal, 'abort').length, 0, 'the parent forgot it');
  assert.is(deadline(60_000, parent.signal).signal.reason, why);
});

test('dispose clears the timer and the link to the parents: the signal never aborts', async () => {
  const parent = new AbortController();
  const { signal, dispose } = deadline(30, parent.signal);
  dispose();
  assert.is(getEventListeners(parent.signal, 'abort').length, 0);
  parent.abort();
  // A deadline of 40 ms started after it has fired once the disposed one would have.
  await aborted(deadline(40).signal);
  assert.not.ok(signal.aborted);
});

test('a fetch bounded by a long deadline leaves nothing reachable once it is disposed', async () => {
  // With AbortSignal.timeout(60 s) Node keeps the signal for the full minute, and whatever listens on it: got left its
  // abort listener there, so the soak's heap held 500 requests (request, socket, response). A disposed deadline's
  // signal is collected, whichever HTTP client took it.
  const fx = await serveFixtures({
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><body>${'x'.repeat(256 * 1024)}</body></html>`);
    },
  });
  try {
    const guard = createGuard(['127.0.0.1'], async () => [{ address: '127.0.0.1', family: 4 }]);
    const refs: WeakRef<AbortSignal>[] = [];
    const fetchOnce = async (i: number) => {
      const bound = deadline(60_000);
      const res = await fetchTarget(`${fx.url}/big?i=${i}`, { guard, signal: bound.signal, maxBytes: 1 << 20 });
      assert.is(res.statusCode, 200);
      refs.push(new WeakRef(bound.signal));
      bound.dispose();
    };
    for (let i = 0; i < 5; i++) await fetchOnce(i);
    // Finalization needs a few turns of the event loop (sockets close, timers of the client end).
    let alive = refs.length;
    for (let round = 0; round < 50 && alive > 0; round++) {
      await new Promise((r) => setImmediate(r));
      gc();
      alive = refs.filter((r) => r.deref() !== undefined).length;
    }
    assert.is(
      alive,
      0,
      `${alive} of ${refs.length} signals still reachable (${refs.map((r) => (r.deref() ? 1 : 0)).join('')})`,
    );
  } finally {
    await fx.close();
  }
});

test.run();
