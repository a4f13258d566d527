// The process's rule for a promise a dependency leaves rejecting (server/rejections.ts): logged, and the process goes
// on. Without the rule, Node ends this test's process at the first rejection and the file fails.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { logRejections } from '../../server/rejections.ts';

test('a rejection nobody handles is logged once, and the process goes on to answer', async () => {
  const logged: [string, unknown][] = [];
  let seen!: () => void;
  const logging = new Promise<void>((resolve) => (seen = resolve));
  logRejections({
    error: (message, err) => {
      logged.push([message, err]);
      seen();
    },
  });
  // Held once a process: a second logger is not added beside the first.
  logRejections({ error: () => assert.unreachable('a second logger was added') });
  const cause = new Error('Target.setAutoAttach: Target closed');
  void Promise.reject(cause);
  await logging;
  assert.equal(logged, [['unhandled rejection', cause]]);
  assert.is(await Promise.resolve('still answering'), 'still answering');
});

test.run();
