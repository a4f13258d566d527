import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { untilAborted } from '../../engine/kernel/deadline.ts';

test('untilAborted: past an abort the work is not started, and nothing is left to reject unobserved', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    let started = false;
    const aborted = AbortSignal.abort();
    const err = await untilAborted(async () => {
      started = true;
      throw new Error('page closed');
    }, aborted).catch((e: unknown) => e);
    assert.is((err as { code?: string }).code, 'ETIMEOUT');
    assert.not.ok(started, 'the work never ran');
    // Aborted while running: the caller gets ETIMEOUT at once; the work's own failure afterwards is absorbed.
    const controller = new AbortController();
    let fail!: (e: Error) => void;
    const running = untilAborted(
      () =>
        new Promise<never>((_, reject) => {
          fail = reject;
        }),
      controller.signal,
    );
    controller.abort();
    assert.is(((await running.catch((e: unknown) => e)) as { code?: string }).code, 'ETIMEOUT');
    fail(new Error('net::ERR_ABORTED'));
    // Two macrotask turns: Node reports an unhandled rejection after the microtask queue drains.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.equal(unhandled, []);
    assert.is(await untilAborted(() => 42, new AbortController().signal), 42);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test.run();
