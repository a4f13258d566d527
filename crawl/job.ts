// A crawl job as the API keeps it, whatever its store (jobs.ts on disk, jobs-redis.ts in Redis): its request, its
// state, what its owner reads of it, its webhook, and the Jobs interface both stores give.
import { randomBytes } from 'node:crypto';
import type { Engine } from '../engine/index.ts';
import { crawlQuery } from './pages.ts';
import type { CrawlInput } from './walk.ts';
import { createWebhook, type WebhookEvent } from './webhooks.ts';

/** A caller's quota, as the server keeps it: so many requests a window of so many milliseconds. */
export interface QuotaPolicy {
  limit: number;
  window: number | 'month';
}
/**
 * Counts one page of a job against its owner's quota (the server's quota, handed in: crawls know nothing of how it
 * is kept); `exceeded` ends the job with ERATE.
 */
export type Charge = (owner: string, policy: QuotaPolicy) => Promise<{ exceeded: boolean }>;

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** What `POST /crawls` asked for, validated (see crawls.ts). */
export interface JobRequest {
  input: CrawlInput;
  options: {
    maxPages?: number;
    maxDepth?: number;
    include?: string[];
    exclude?: string[];
    anyHost?: boolean;
    robots?: boolean;
    /** The pages' query options, as query text (`checkedQuery` writes any accepted shape so). */
    query?: string;
  };
  webhook?: { url: string; events: string[] };
}

/** A job as it is kept on disk (`<data>/crawls/<id>/job.json`) and answered (without `owner` and `request`). */
export interface Job {
  id: string;
  status: JobStatus;
  owner: string;
  request: JobRequest;
  policy: QuotaPolicy;
  pages: { done: number; failed: number; queued: number };
  createdAt: string;
  finishedAt: string | null;
  code?: string;
  message?: string;
}

export const TERMINAL = new Set<JobStatus>(['completed', 'failed', 'cancelled']);
const ID = /^[a-z0-9]{20}$/;
/** Whether a string has the shape of a job's id (anything else is no job, and names no file or key). */
export const isJobId = (id: string) => ID.test(id);

export const isTerminal = (status: JobStatus) => TERMINAL.has(status);

/** A new job, queued; a bad query option is the caller's error, said now rather than on every page. */
export function newJob(engine: Engine, owner: string, policy: QuotaPolicy, request: JobRequest): Job {
  crawlQuery(engine, request.options.query);
  return {
    id: randomBytes(10).toString('hex'),
    status: 'queued',
    owner,
    request,
    policy,
    pages: { done: 0, failed: 0, queued: 0 },
    createdAt: new Date().toISOString(),
    finishedAt: null,
  };
}

/** A job's webhook (one that sends nothing when the job has none): its events carry the job's id. */
export function jobWebhook(job: Job, deps: { engine: Engine; webhookSecret: string }) {
  const webhook =
    job.request.webhook &&
    createWebhook({
      ...job.request.webhook,
      secret: deps.webhookSecret,
      guard: deps.engine.guard,
      onGiveUp: (event, reason) =>
        deps.engine.logger.warn('webhook delivery given up', { job: job.id, type: event.type, reason }),
    });
  const send = (event: Omit<WebhookEvent, 'id'>) => webhook?.send({ ...event, id: job.id } as WebhookEvent);
  return {
    send,
    /** The event of a job that ended: completed, failed (with its code) or cancelled by its owner. */
    ended(ended: Job) {
      if (ended.status === 'completed')
        send({ type: 'crawl.completed', pages: ended.pages, finishedAt: ended.finishedAt });
      else if (ended.status === 'failed')
        send({
          type: 'crawl.failed',
          pages: ended.pages,
          code: ended.code,
          message: ended.message,
          finishedAt: ended.finishedAt,
        });
      else if (ended.status === 'cancelled')
        send({ type: 'crawl.cancelled', pages: ended.pages, finishedAt: ended.finishedAt });
    },
    settled: async () => {
      await webhook?.settled();
    },
  };
}

/** Tells a job's webhook that it ended, where no walk of it runs to do so (a job cancelled before it started). */
export function tellEnded(job: Job, deps: { engine: Engine; webhookSecret: string }): void {
  const webhook = jobWebhook(job, deps);
  webhook.ended(job);
  void webhook.settled();
}

/** The job as its owner reads it. */
export const publicJob = ({ id, status, pages, createdAt, finishedAt, code, message }: Job) => ({
  id,
  status,
  pages,
  createdAt,
  finishedAt,
  ...(code ? { code, message } : {}),
});

/** Where crawl jobs run: in this process (createJobs), or through Redis (createRedisJobs). */
export interface Jobs {
  create(owner: string, policy: QuotaPolicy, request: JobRequest): Promise<Job>;
  get(owner: string, id: string): Promise<Job | undefined>;
  results(job: Job, cursor: number, limit: number): Promise<{ lines: string[]; next: number; more: boolean }>;
  cancel(job: Job): Promise<Job>;
  resume(): Promise<number>;
  close(): Promise<void>;
  isTerminal(status: JobStatus): boolean;
}
