// A distributed crawl in Redis, as its coordinator (distributed.ts) and its workers (worker.ts) both see it: the
// queue's name, the crawl's keys, its spec, and the two atomic steps of a page: admitting pages (each once, under
// the crawl's cap) and committing a page's result (the first commit wins).
import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { pageKey } from './pages.ts';
import type { CrawlInput, CrawlOptions, CrawlResult, Link } from './walk.ts';

export const QUEUE = 'refract-crawl';
/** Finished crawls' keys and jobs are kept this long (a rerun of the same crawl within it writes nothing new). */
export const KEEP_SECS = 7 * 24 * 3600;

/** A page job: which crawl, which page, how deep. */
export interface PageJob {
  crawl: string;
  url: string;
  depth: number;
}

/** What a crawl stores for its workers: its input and options (without the local-only ones). */
export interface CrawlSpec {
  input: CrawlInput;
  options: Omit<CrawlOptions, 'stateDir' | 'done' | 'concurrency' | 'onKnown'>;
}

export const keys = (id: string) => ({
  spec: `refract:crawl:${id}:spec`,
  admitted: `refract:crawl:${id}:admitted`,
  done: `refract:crawl:${id}:done`,
  results: `refract:crawl:${id}:results`,
  cancelled: `refract:crawl:${id}:cancelled`,
});

/**
 * Admits pages to a crawl, atomically: a page already admitted stays admitted (so a redone page re-adds the
 * same jobs); a new page is admitted while the crawl has room under its page cap. Returns the indexes admitted.
 */
const ADMIT = `
local out = {}
local max = tonumber(ARGV[1])
for i = 2, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    table.insert(out, i - 2)
  elseif max < 0 or redis.call('SCARD', KEYS[1]) < max then
    redis.call('SADD', KEYS[1], ARGV[i])
    table.insert(out, i - 2)
  end
end
return out`;

/** Commits a page's result once: the first commit of a page appends it to the results stream, later ones do nothing. */
const COMMIT = `
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 then
  redis.call('XADD', KEYS[2], '*', 'page', ARGV[1], 'result', ARGV[2])
  return 1
end
return 0`;

/** The job of a page: one id per crawl and page, so adding a page twice adds one job. */
function jobOf(id: string, link: Link) {
  const hash = createHash('sha256').update(pageKey(link.url)).digest('hex').slice(0, 32);
  return {
    name: 'page',
    data: { crawl: id, url: link.url, depth: link.depth } satisfies PageJob,
    opts: { jobId: `${id}-${hash}` },
  };
}

/** Admits pages (see ADMIT) and returns the indexes of those admitted. */
export async function admitted(
  redis: Redis,
  id: string,
  maxPages: number | undefined,
  urls: readonly string[],
): Promise<number[]> {
  if (!urls.length) return [];
  return (await redis.eval(ADMIT, 1, keys(id).admitted, String(maxPages ?? -1), ...urls.map(pageKey))) as number[];
}

/** Admits pages and queues a job for each admitted one (a job that exists already is not added again). */
export async function admit(
  redis: Redis,
  queue: Queue,
  id: string,
  maxPages: number | undefined,
  links: readonly Link[],
): Promise<void> {
  const indexes = await admitted(
    redis,
    id,
    maxPages,
    links.map((l) => l.url),
  );
  if (indexes.length) await queue.addBulk(indexes.map((i) => jobOf(id, links[i]!)));
}

export async function commit(redis: Redis, id: string, result: CrawlResult): Promise<void> {
  const k = keys(id);
  await redis.eval(COMMIT, 2, k.done, k.results, pageKey(result.url), JSON.stringify(result));
}

/** Marks a crawl cancelled: workers drop its queued pages instead of visiting them. */
export async function markCancelled(redis: Redis, id: string): Promise<void> {
  await redis.set(keys(id).cancelled, '1', 'EX', KEEP_SECS);
}
