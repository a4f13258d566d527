// Preloaded into every test process by scripts/test.ts: times each test of the file's default uvu suite and prints
// the slow ones (`  slow test: 12.3 s  name`), which the runner gathers into its "Slowest tests:" list.
import { test } from 'uvu';

const SLOW_MS = Number(process.env.REFRACT_TEST_SLOW_MS) || 5000;
let started = 0;
test.before.each(() => {
  started = performance.now();
});
test.after.each((state: { __test__?: string }) => {
  const ms = performance.now() - started;
  if (ms >= SLOW_MS) process.stdout.write(`\n  slow test: ${(ms / 1000).toFixed(1)} s  ${state.__test__ ?? '?'}\n`);
});

// A `before` hook that throws fails every test of the file, and uvu prints only `(0 / N)`, without the error (its
// runner drops it): the hook's error is printed here, where the runner's output shows it.
type Hook = (state: unknown) => unknown;
const before = test.before;
test.before = Object.assign(
  (fn: Hook) =>
    before(async (state: unknown) => {
      try {
        await fn(state);
      } catch (err) {
        process.stdout.write(`\n  FAIL  the file's before hook threw: ${(err as Error)?.stack ?? String(err)}\n`);
        throw err;
      }
    }),
  { each: before.each },
) as typeof test.before;
