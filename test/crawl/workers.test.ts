import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { allPages, pageUrl, sitePages } from '../util/site.ts';
import { jsonLines, startCli } from '../util/cli.ts';
import { startRedis, type TestRedis } from '../util/redis.ts';
import { createEngine, loadConfig, startWorker, crawlDistributed } from '../../lib/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = 80;
const HELD = 40;
const dir = mkdtempSync(path.join(os.tmpdir(), 'refract-workers-'));
let fx: Fixture;
let redis: TestRedis;
/** Resolves when a worker is in the middle of the held page: its request reached the site and got no answer. */
let heldPage: Promise<void>;

test.before(async () => {
  redis = await startRedis();
  let held: (() => void) | undefined;
  heldPage = new Promise((resolve) => {
    held = resolve;
  });
  const site = sitePages(PAGES);
  fx = await serveFixtures({}, (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === `/site/p/${HELD}` && held) {
      // The first visit of this page never gets an answer: its worker is killed while it waits.
      const release = held;
      held = undefined;
      release();
      return true;
    }
    return site(req, res);
  });
});

test.after(async () => {
  await fx.close();
  await redis.close();
});

type Line = { url: string; status: string; data?: { wordCount?: { words: number } } };

test('two workers share an 80-page crawl through Redis; one is killed mid-page; every page is done exactly once', async () => {
  const out = path.join(dir, 'site.jsonl');
  writeFileSync(out, '');
  const env = { REFRACT_PLUGINS: path.join(ROOT, 'fixtures/plugins/word-count/index.ts') };
  const coordinator = startCli(
    [
      'crawl',
      pageUrl(fx.url, 0),
      '--redis',
      redis.url,
      '--crawl-id',
      'two-workers',
      '--out',
      out,
      '--max-depth',
      '20',
      '--include',
      `${fx.url}/site/p/**`,
      '--query',
      'wordCount.selector=main p&meta=false',
    ],
    env,
  );
  const worker = (name: string) =>
    startCli(['worker', '--redis', redis.url, '--name', name, '--lock-ms', '2000', '--concurrency', '4'], env);
  const workers = { a: worker('a'), b: worker('b') };
  const client = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue('refract-crawl', { connection: client });
  try {
    // Kill whichever worker holds the held page, while it waits for it.
    await heldPage;
    const active = await queue.getJobs(['active']);
    const holder = active.find((j) => (j.data as { url: string }).url === pageUrl(fx.url, HELD))?.processedBy as
      | 'a'
      | 'b'
      | undefined;
    assert.ok(holder === 'a' || holder === 'b', `the held page is active on a worker: ${holder}`);
    workers[holder].kill('SIGKILL');
    assert.is(await workers[holder].exited, -1);
    const survivorName = holder === 'a' ? 'b' : 'a';
    const survivor = workers[survivorName];

    assert.is(await coordinator.exited, 0, coordinator.stderrText());
    const lines = jsonLines<Line>(out);
    assert.is(lines.length, PAGES, `lines: ${lines.length}`);
    assert.equal(
      [...new Set(lines.map((l) => l.url))].sort(),
      allPages(fx.url, PAGES).sort(),
      'every page exactly once',
    );
    for (const l of lines) {
      assert.is(l.status, 'success', l.url);
      assert.is(l.data?.wordCount?.words, 8, l.url);
    }
    // The held page was redone by the survivor; the shared sink holds each page once. How many other pages the
    // killed worker finished first depends on which worker started sooner (none, on a slow machine), so what shows
    // the sharing is the held page itself: taken by one worker, completed by the other.
    assert.is(fx.hits.filter((h) => h === `/site/p/${HELD}`).length, 2);
    assert.is(await client.xlen('refract:crawl:two-workers:results'), PAGES);
    const completed = await queue.getJobs(['completed'], 0, -1);
    assert.is(completed.length, PAGES);
    const redone = completed.find((j) => (j.data as { url: string }).url === pageUrl(fx.url, HELD));
    assert.is(redone?.processedBy, survivorName, 'the survivor completed the page the killed worker held');
    for (const j of completed) assert.ok(j.processedBy === 'a' || j.processedBy === 'b', String(j.processedBy));
    assert.is((await queue.getJobs(['failed'])).length, 0);

    survivor.kill('SIGTERM');
    assert.is(await survivor.exited, 0, survivor.stderrText());
  } finally {
    // A failed assertion must not leave a process holding the test file open.
    for (const child of [coordinator, workers.a, workers.b])
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await queue.close();
    client.disconnect();
  }
});

test('through Redis too: a list with bad URLs gives a line for each, --max-pages caps a walk exactly, a rerun writes nothing new', async () => {
  const worker = startCli(['worker', '--redis', redis.url, '--name', 'c', '--lock-ms', '2000']);
  try {
    const list = [pageUrl(fx.url, 1), 'not a url', 'http://127.0.0.2:9/private', pageUrl(fx.url, 2)].join('\n');
    const listed = startCli(['crawl', '--urls', '-', '--redis', redis.url, '--query', 'meta=true']);
    listed.stdin!.end(list);
    assert.is(await listed.exited, 0, listed.stderrText());
    const lines = listed
      .stdoutText()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line & { code?: string });
    const by = (u: string) => lines.find((l) => l.url === u);
    assert.is(lines.length, 4);
    assert.is(by(pageUrl(fx.url, 1))?.status, 'success');
    assert.is(by(pageUrl(fx.url, 2))?.status, 'success');
    assert.is(by('not a url')?.code, 'EINVALURL');
    assert.is(by('http://127.0.0.2:9/private')?.code, 'EFORBIDDENURL');

    const out = path.join(dir, 'capped.jsonl');
    const args = [
      'crawl',
      pageUrl(fx.url, 0),
      '--redis',
      redis.url,
      '--out',
      out,
      '--max-pages',
      '25',
      '--max-depth',
      '20',
      '--include',
      `${fx.url}/site/p/**`,
      '--query',
      'meta=false',
    ];
    const capped = startCli(args);
    assert.is(await capped.exited, 0, capped.stderrText());
    assert.is(new Set(jsonLines<Line>(out).map((l) => l.url)).size, 25);
    assert.is(jsonLines(out).length, 25);
    const again = startCli(args);
    assert.is(await again.exited, 0, again.stderrText());
    assert.is(jsonLines(out).length, 25, 'the same crawl run again adds nothing');
  } finally {
    worker.kill('SIGTERM');
    assert.is(await worker.exited, 0, worker.stderrText());
  }
});

test('a worker lets go of a crawl none of whose pages came for walkIdleMs (its walk closed), and takes it up again', async () => {
  await redis.flush();
  const engine = await createEngine({
    config: loadConfig({ REFRACT_ALLOW_PRIVATE_HOSTS: '127.0.0.1', REFRACT_LOG_LEVEL: 'silent', REDIS_URL: '' }),
  });
  const worker = await startWorker(engine, { redis: redis.url, walkIdleMs: 300 });
  try {
    const urls = [1, 2, 3].map((i) => pageUrl(fx.url, i));
    const run = async () => {
      const lines: string[] = [];
      for await (const line of crawlDistributed(
        engine,
        { urls },
        { redis: redis.url, id: `idle-${lines.length}-${Date.now()}` },
      ))
        lines.push(line.url);
      return lines.sort();
    };
    assert.equal(await run(), [...urls].sort());
    const deadline = Date.now() + 5000;
    while (worker.walks() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.is(worker.walks(), 0, "the finished crawl's walk was let go");
    assert.equal(await run(), [...urls].sort(), 'a later crawl is served again');
  } finally {
    await worker.close();
    await engine.close();
  }
});

test.run();
