// Crawl jobs' state in Redis: a job's hash (its spec, status and counts) and its result lines (a list, with the set
// of pages already in it), each change one atomic script: a page's line appended once, a job moved to an end once.
import type { Redis } from 'ioredis';
import { pageKey } from './pages.ts';
import type { CrawlResult } from './walk.ts';
import { isJobId, type Job, type JobStatus } from './job.ts';

/** Finished jobs stay readable this long (their pages' keys in Redis last as long). */
export const KEEP_SECS = 7 * 24 * 3600;

export const keysOf = (id: string) => ({
  job: `refract:job:${id}`,
  results: `refract:job:${id}:results`,
  emitted: `refract:job:${id}:emitted`,
});

/**
 * Appends a page's result line once: the first append of a page adds its line and counts it; later ones, and any
 * to a job that ended (a cancel is seen by its coordinator up to a second later), do nothing.
 */
const APPEND = `
local s = redis.call('HGET', KEYS[3], 'status')
if s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
return 1`;

/** Moves a job that has not ended to a status (with its end time, and code, when given); an ended job stays as it is. */
const MOVE = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s or s == 'completed' or s == 'failed' or s == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'finishedAt', ARGV[2], 'queued', 0) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'code', ARGV[3], 'message', ARGV[4]) end
return 1`;

export type End = { status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>; code?: string; message?: string };

/** Jobs' state (a hash) and result lines (a list, with the set of pages already in it) in Redis. */
export class RedisJobStore {
  readonly redis: Redis;
  constructor(redis: Redis) {
    this.redis = redis;
  }

  async load(id: string): Promise<Job | undefined> {
    if (!isJobId(id)) return undefined;
    const h = await this.redis.hgetall(keysOf(id).job);
    if (!h.spec) return undefined;
    const spec = JSON.parse(h.spec) as Pick<Job, 'id' | 'owner' | 'request' | 'policy' | 'createdAt'>;
    return {
      ...spec,
      status: h.status as JobStatus,
      finishedAt: h.finishedAt || null,
      pages: { done: Number(h.done ?? 0), failed: Number(h.failed ?? 0), queued: Number(h.queued ?? 0) },
      ...(h.code ? { code: h.code, message: h.message } : {}),
    };
  }

  async create(job: Job): Promise<void> {
    const { id, owner, request, policy, createdAt } = job;
    await this.redis.hset(keysOf(id).job, {
      spec: JSON.stringify({ id, owner, request, policy, createdAt }),
      status: job.status,
      finishedAt: '',
      done: 0,
      failed: 0,
      queued: 0,
    });
  }

  /** Moves a job that has not ended to `status` (an ended one keeps its keys KEEP_SECS); false when it had ended. */
  async move(id: string, status: JobStatus, end?: End): Promise<boolean> {
    const moved =
      (await this.redis.eval(
        MOVE,
        1,
        keysOf(id).job,
        status,
        end ? new Date().toISOString() : '',
        end?.code ?? '',
        end?.message ?? '',
      )) === 1;
    if (end) await Promise.all(Object.values(keysOf(id)).map((key) => this.redis.expire(key, KEEP_SECS)));
    return moved;
  }

  /** Appends a page's line once (see APPEND); true when this call added it. */
  async append(id: string, line: CrawlResult): Promise<boolean> {
    const k = keysOf(id);
    return (
      (await this.redis.eval(
        APPEND,
        3,
        k.emitted,
        k.results,
        k.job,
        pageKey(line.url),
        JSON.stringify(line),
        line.status === 'success' ? 'done' : 'failed',
      )) === 1
    );
  }

  async results(id: string, cursor: number, limit: number): Promise<{ lines: string[]; next: number; more: boolean }> {
    const last = limit >= Number.MAX_SAFE_INTEGER ? -1 : cursor + limit;
    const lines = await this.redis.lrange(keysOf(id).results, cursor, last);
    const more = last >= 0 && lines.length > limit;
    if (more) lines.pop();
    return { lines, next: cursor + lines.length, more };
  }
}
