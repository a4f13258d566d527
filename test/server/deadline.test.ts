// refract-test: alone (it measures answers against their deadlines, which a second file on two cores would delay)
// A request's `timeout` runs from when it reached the engine: time spent waiting for a free slot counts, so a
// queued request answers ETIMEOUT at its deadline instead of starting its whole budget over once it gets a slot.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

const SLOW_MS = 2500;
const TIMEOUT_MS = 4000;
let fx: Fixture;
let app: Handlers;

test.before(async () => {
  fx = await serveFixtures({
    // The target itself takes SLOW_MS to answer: a property of the page, not a wait of the test's.
    '/slow': (_: IncomingMessage, res: ServerResponse) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<title>Slow page</title>');
      }, SLOW_MS);
    },
  });
  // One request at a time: the second waits for the first.
  app = await startHandlers({ REFRACT_CONCURRENCY: '1' });
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('a request that waited for a slot answers ETIMEOUT at its own deadline, counted from its arrival', async () => {
  const send = async (n: number) => {
    const started = performance.now();
    const res = await call(app.free, `url=${q(`${fx.url}/slow?n=${n}`)}&prerender=false&timeout=${TIMEOUT_MS}`);
    return {
      status: res.status,
      code: res.body.code as string | undefined,
      title: res.body.data?.title as string | undefined,
      ms: performance.now() - started,
    };
  };
  const [first, second] = await Promise.all([send(1), send(2)]);
  assert.is(first.status, 200);
  assert.is(first.title, 'Slow page');
  // The second waited SLOW_MS for the slot and would need SLOW_MS more: past its 4 s, it is a time-out at 4 s.
  assert.is(second.status, 408, JSON.stringify(second));
  assert.is(second.code, 'ETIMEOUT');
  assert.ok(second.ms <= TIMEOUT_MS * 1.1, `answered after ${Math.round(second.ms)} ms`);
});

test.run();
