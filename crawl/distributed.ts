// Crawls past one machine: the pages go on a BullMQ queue in Redis, any number of `refract worker` processes
// visit them, and each page's result is committed exactly once to a Redis stream that the coordinator reads.
import { createHash } from 'node:crypto';
// BullMQ (~220 modules) loads when a distributed crawl starts, not with every process of the engine.
import { connect, connectChecked } from './redis-connect.ts';
import {
  admit,
  admitted,
  commit,
  keys,
  KEEP_SECS,
  markCancelled,
  QUEUE,
  type CrawlSpec,
  type PageJob,
} from './distributed-keys.ts';
import { failure, inputUrl, pageKey } from './pages.ts';
import { createWalk, type CrawlInput, type CrawlOptions, type CrawlResult, type Walk } from './walk.ts';
import type { Engine } from '../engine/index.ts';

/** The options that define a crawl (what its workers need), without those of this process or this run. */
function specOptions(options: CrawlOptions & Partial<DistributedCrawlOptions>): CrawlSpec['options'] {
  const {
    stateDir: _s,
    done: _d,
    concurrency: _c,
    onKnown: _k,
    redis: _r,
    id: _i,
    pollMs: _p,
    signal: _a,
    ...spec
  } = options;
  return spec;
}

/** A crawl's id: the same input and options give the same id, so running the same command again resumes it. */
export function crawlId(input: CrawlInput, options: CrawlOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ input, options: specOptions(options) }))
    .digest('hex')
    .slice(0, 16);
}

export interface DistributedCrawlOptions extends CrawlOptions {
  redis: string;
  /** The crawl's id (default: derived from the input and options). */
  id?: string;
  /** How often the coordinator looks for pages whose jobs failed for good (default 2 s). */
  pollMs?: number;
  /** Stops reading results (within a second): the crawl stays in Redis, and running it again goes on. */
  signal?: AbortSignal;
}

/** Cancels a distributed crawl (Redis at `redis`, as the crawl's): workers drop its queued pages instead of visiting them. */
export async function cancelCrawl(redis: string, id: string): Promise<void> {
  const client = await connectChecked(redis);
  try {
    await markCancelled(client, id);
  } finally {
    client.disconnect();
  }
}

/**
 * The coordinator: stores the crawl, queues its seeds, and yields every page's result as the workers commit it,
 * until every admitted page has one. Results already in `done` (for example, an existing output file) are skipped,
 * so running the same crawl again resumes it; a page whose job failed for good (its worker died too often) gets
 * an error line instead of going missing.
 */
export async function* crawlDistributed(
  engine: Engine,
  input: CrawlInput,
  options: DistributedCrawlOptions,
): AsyncGenerator<CrawlResult> {
  const id = options.id ?? crawlId(input, options);
  const k = keys(id);
  const redis = await connectChecked(options.redis);
  const reader = await connect(options.redis);
  const queue = new (await import('bullmq')).Queue(QUEUE, { connection: redis });
  queue.on('error', () => undefined); // commands that fail reject where they are made; reconnects are the client's
  const written = new Set<string>();
  for (const url of options.done ?? []) written.add(pageKey(url));
  let walk: Walk | undefined;
  try {
    walk = createWalk(engine, input, options);
    await redis.set(k.spec, JSON.stringify({ input, options: specOptions(options) } satisfies CrawlSpec));
    let seeds: Awaited<ReturnType<Walk['seeds']>>;
    try {
      seeds = await walk.seeds();
    } catch (err) {
      yield failure(inputUrl(input), err);
      return;
    }
    // Bad seeds are pages of the crawl too: admitted (they count toward the cap) and committed at once.
    for (const i of await admitted(
      redis,
      id,
      options.maxPages,
      seeds.invalid.map((r) => r.url),
    ))
      await commit(redis, id, seeds.invalid[i]!);
    await admit(
      redis,
      queue,
      id,
      options.maxPages,
      seeds.valid.map((url) => ({ url, depth: 0 })),
    );

    let cursor = '0';
    let lastPoll = 0;
    let finishing = false;
    for (;;) {
      if (options.signal?.aborted) return;
      const batch = (
        finishing
          ? await reader.xread('COUNT', 500, 'STREAMS', k.results, cursor)
          : await reader.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', k.results, cursor)
      ) as [string, [string, string[]][]][] | null;
      for (const [, entries] of batch ?? []) {
        for (const [entryId, fields] of entries) {
          cursor = entryId;
          const page = fields[fields.indexOf('page') + 1]!;
          if (written.has(page)) continue;
          written.add(page);
          yield JSON.parse(fields[fields.indexOf('result') + 1]!) as CrawlResult;
        }
      }
      if (finishing && !batch) break;
      const [admittedCount, doneCount] = await Promise.all([redis.scard(k.admitted), redis.scard(k.done)]);
      options.onKnown?.(admittedCount);
      if (batch || finishing) continue;
      // Nothing new for a second. A page's commit adds it to the done set and the stream at once, so once every
      // admitted page is done, what is left to read is in the stream already: read it without waiting, and stop.
      if (doneCount >= admittedCount) {
        finishing = true;
        continue;
      }
      if (Date.now() - lastPoll > (options.pollMs ?? 2000)) {
        lastPoll = Date.now();
        for (const job of await queue.getJobs(['failed'])) {
          const data = job.data as PageJob;
          if (data.crawl !== id) continue;
          await commit(redis, id, {
            url: data.url,
            status: 'error',
            code: 'EFATAL',
            message: `The page's job failed: ${job.failedReason}`,
          });
        }
      }
    }
    await Promise.all([k.spec, k.admitted, k.done, k.results].map((key) => redis.expire(key, KEEP_SECS)));
  } finally {
    await walk?.close();
    await queue.close();
    redis.disconnect();
    reader.disconnect();
  }
}
