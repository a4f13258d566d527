// The Redis monitors' sweep (crawl/monitors-redis.ts), on a real Redis and BullMQ's own queue: the due job of a
// schedule is found by the id the sweep builds (`repeat:<scheduler>:<due ms>`, BullMQ's, which an upgrade could
// change), a due job still waiting is left alone however overdue, and one taken with no job after it is scheduled again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { startRedis, type TestRedis } from '../util/redis.ts';
import { sweep, TAKEN_MS } from '../../crawl/monitors-redis.ts';

let redis: TestRedis;
let connection: Redis;
let queue: Queue;

test.before(async () => {
  redis = await startRedis();
  connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  queue = new Queue('refract-monitors-sweep-test', { connection });
});

test.after(async () => {
  await queue.close();
  connection.disconnect();
  await redis.close();
});

const dueId = async (key: string) => {
  const s = await queue.getJobScheduler(key);
  assert.ok(s?.next, `${key} has a next run`);
  return `repeat:${key}:${s.next}`;
};

test('the due job of an interval and of a cron schedule is found by the id the sweep builds', async () => {
  await queue.upsertJobScheduler('every', { every: 60_000 }, { name: 'read', data: { id: 'every' } });
  await queue.upsertJobScheduler('cron', { pattern: '0 0 1 1 *', tz: 'UTC' }, { name: 'read', data: { id: 'cron' } });
  for (const key of ['every', 'cron']) {
    const id = await dueId(key);
    const job = await queue.getJob(id);
    assert.ok(job, `${id} is a job`);
    assert.equal(job.data, { id: key });
    assert.ok(['waiting', 'delayed', 'prioritized'].includes(await queue.getJobState(id)), id);
  }
});

test('an overdue due job that waits is left alone; once taken with no next job, it is scheduled again', async () => {
  const swept: string[] = [];
  const run = () => sweep(queue, async (key) => void swept.push(key));
  const id = await dueId('every');
  const next = (await queue.getJobScheduler('every'))!.next!;
  // The interval's first run is due at once; nothing takes it (no worker), so it waits and grows overdue.
  while (Date.now() <= next + TAKEN_MS) {
    await run();
    await new Promise((r) => setTimeout(r, 100));
  }
  await run();
  assert.equal(swept, [], 'a waiting job is not taken: nothing is scheduled again');
  assert.is(await queue.getJobState(id), 'waiting');
  // As a process leaves it that took it (moveToActive) and was killed before BullMQ added the next one: the due job
  // active, and no job after it. BullMQ has no call that takes a job without scheduling the next (the worker's
  // getNextJob does both), so the test moves it between the queue's own lists.
  assert.is(await connection.lmove(queue.keys.wait!, queue.keys.active!, 'RIGHT', 'LEFT'), id);
  assert.is(await queue.getJobState(id), 'active');
  await run();
  assert.equal(swept, ['every'], 'only the overdue schedule whose due job is gone; the cron one is not due');
});

test.run();
