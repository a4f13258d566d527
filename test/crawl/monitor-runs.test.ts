// Two reads of one monitor that overlap (in Redis, a read that outlasts its tick runs beside the next tick's read, on
// another process): each is applied to the monitor as stored when it is saved (applyRun), so neither loses the
// other's. The clean CI of c474df2 lost a monitor's first read this way (its history held `changed` alone).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChangeReport } from '../../engine/index.ts';
import { applyRun, newKept, type Kept, type MonitorsOptions } from '../../crawl/monitors.ts';

const clock = { now: () => Date.parse('2026-11-28T10:00:10Z') };
const opts = { clock, historyMax: 50, historyAgeMs: 86_400_000 } as unknown as MonitorsOptions;
const report = (status: ChangeReport['status'], second: number): ChangeReport => ({
  status,
  tag: null,
  checkedAt: `2026-11-28T10:00:0${second}Z`,
  previousAt: null,
});
/** The monitor as a read leaves it, from the state it loaded. */
const after = (loaded: Kept, r: ChangeReport): Kept => {
  const k = structuredClone(loaded);
  k.monitor.runs++;
  k.monitor.lastRunAt = r.checkedAt;
  k.monitor.lastStatus = r.status;
  if (r.status === 'new' || r.status === 'changed') k.changes.push(r);
  return k;
};

test('two reads begun from the same state: both counted, the first read kept, the latest status said', () => {
  const stored = newKept('key-a', { url: 'https://example.org/', query: '', every: 2000 } as never, clock);
  const first = report('new', 1);
  const second = report('same', 3);
  // The second read (begun a tick later, from the same stored state) is saved first; the first one lands on it.
  let now = applyRun(structuredClone(stored), after(stored, second), second, opts);
  now = applyRun(now, after(stored, first), first, opts);
  assert.is(now.monitor.runs, 2);
  assert.equal(
    now.changes.map((c) => c.status),
    ['new'],
  );
  assert.is(now.monitor.lastStatus, 'same', 'the later read says the status, whichever was saved last');
  assert.is(now.monitor.lastRunAt, second.checkedAt);
  // A change read next is kept after it, in the order the reads were made.
  const changed = report('changed', 5);
  now = applyRun(now, after(now, changed), changed, opts);
  assert.equal(
    now.changes.map((c) => c.status),
    ['new', 'changed'],
  );
});

test.run();
