import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createExecutor, SYSTEM_INFO_INTERVAL_MS } from '../../engine/request/queue.ts';

test('tasks run inside Crawlee with a session, concurrently, and handled requests are not kept', async () => {
  const executor = await createExecutor({ concurrency: 8, proxyUrls: [], handlerTimeoutSecs: 30 });
  try {
    let inFlight = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        executor.run(`http://127.0.0.1/${i}`, async ({ session }) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setImmediate(r));
          inFlight--;
          assert.ok(session, 'a session is leased');
          return i * 2;
        }),
      ),
    );
    assert.equal(
      results,
      Array.from({ length: 40 }, (_, i) => i * 2),
    );
    assert.ok(peak > 1, `tasks overlapped (peak ${peak})`);
    // Crawlee marks a request handled just after its task settled: once it has, nothing is kept.
    await executor.drained();
    assert.is(await executor.storedRequests(), 0, 'handled requests do not accumulate');
    // Nor the domains of the targets (Crawlee's same-domain delay, which the executor does not use, kept every one).
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => executor.run(`https://site-${i}.example.com/`, async () => i)),
    );
    assert.is((executor.crawler as unknown as { domainAccessedTime: Map<string, number> }).domainAccessedTime.size, 0);
  } finally {
    await executor.close();
  }
});

test('the executor does not sample the system every second (Crawlee ran `ps -A` for it; its concurrency is fixed)', async () => {
  const executor = await createExecutor({ concurrency: 2, proxyUrls: [], handlerTimeoutSecs: 30 });
  try {
    const interval = executor.crawler.config.get('systemInfoIntervalMillis') ?? 0;
    assert.ok(interval >= 3_600_000, `system info every ${interval} ms`);
    assert.is(interval, SYSTEM_INFO_INTERVAL_MS);
  } finally {
    await executor.close();
  }
});

test('a task that throws rejects only its own caller', async () => {
  const executor = await createExecutor({ concurrency: 2, proxyUrls: [], handlerTimeoutSecs: 30 });
  try {
    const [bad, good] = await Promise.allSettled([
      executor.run('http://127.0.0.1/a', async () => {
        throw new Error('nope');
      }),
      executor.run('http://127.0.0.1/b', async () => 'fine'),
    ]);
    assert.is(bad.status, 'rejected');
    assert.is((bad as PromiseRejectedResult).reason.message, 'nope');
    assert.equal(good, { status: 'fulfilled', value: 'fine' });
  } finally {
    await executor.close();
  }
});

test('a crawler that stops on its own settles every task waiting with EBUSY and refuses new ones; the one running finishes', async () => {
  const executor = await createExecutor({ concurrency: 1, proxyUrls: [], handlerTimeoutSecs: 30 });
  try {
    let release!: () => void;
    let began!: () => void;
    const running = new Promise<void>((r) => {
      began = r;
    });
    const first = executor.run('http://127.0.0.1/first', async () => {
      began();
      await new Promise<void>((r) => {
        release = r;
      });
      return 'done';
    });
    await running;
    const waiting = executor.run('http://127.0.0.1/waiting', async () => 'never');
    assert.ok(executor.alive());
    executor.crawler.autoscaledPool!.abort();
    const refused = await waiting.then(
      () => undefined,
      (err: { code?: string }) => err.code,
    );
    assert.is(refused, 'EBUSY', 'the waiting task is settled, not left hanging');
    assert.is(executor.alive(), false);
    assert.is(
      await executor
        .run('http://127.0.0.1/after', async () => 'x')
        .then(
          () => undefined,
          (err: { code?: string }) => err.code,
        ),
      'EBUSY',
    );
    release();
    assert.is(await first, 'done');
  } finally {
    await executor.close();
  }
});

test.run();
