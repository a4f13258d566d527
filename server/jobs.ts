import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { crawlQuery, type CrawlInput, type CrawlResult, type Engine, type RawObject } from '../engine/index.ts';
import type { Quota, QuotaPolicy } from './quota.ts';
import { createWebhook, type WebhookEvent } from './webhooks.ts';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** What `POST /crawls` asked for, validated (see crawls.ts). */
export interface JobRequest {
  input: CrawlInput;
  options: { maxPages?: number; maxDepth?: number; include?: string[]; exclude?: string[]; anyHost?: boolean; robots?: boolean; query?: string | RawObject };
  webhook?: { url: string; events: string[] };
}

/** A job as it is kept on disk (`<data>/crawls/<id>/job.json`) and answered (without `owner` and `request`). */
export interface Job {
  id: string; status: JobStatus; owner: string; request: JobRequest; policy: QuotaPolicy;
  pages: { done: number; failed: number; queued: number };
  createdAt: string; finishedAt: string | null; code?: string; message?: string;
}

/** How often a running job's counts are written to disk (its results are written at once). */
const SAVE_EVERY_MS = 1000;
const TERMINAL = new Set<JobStatus>(['completed', 'failed', 'cancelled']);
const ID = /^[a-z0-9]{20}$/;

export const isTerminal = (status: JobStatus) => TERMINAL.has(status);

/** A new job, queued; a bad query option is the caller's error, said now rather than on every page. */
export function newJob(engine: Engine, owner: string, policy: QuotaPolicy, request: JobRequest): Job {
  crawlQuery(engine, request.options.query);
  return {
    id: randomBytes(10).toString('hex'), status: 'queued', owner, request, policy,
    pages: { done: 0, failed: 0, queued: 0 }, createdAt: new Date().toISOString(), finishedAt: null,
  };
}

/** A job's webhook (one that sends nothing when the job has none): its events carry the job's id. */
export function jobWebhook(job: Job, deps: { engine: Engine; webhookSecret: string }) {
  const webhook = job.request.webhook && createWebhook({
    ...job.request.webhook, secret: deps.webhookSecret, guard: deps.engine.guard,
    onGiveUp: (event, reason) => deps.engine.logger.warn('webhook delivery given up', { job: job.id, type: event.type, reason }),
  });
  const send = (event: Omit<WebhookEvent, 'id'>) => webhook?.send({ ...event, id: job.id } as WebhookEvent);
  return {
    send,
    /** The event of a job that ended (a cancelled one has none: its owner asked for it). */
    ended(ended: Job) {
      if (ended.status === 'completed') send({ type: 'crawl.completed', pages: ended.pages, finishedAt: ended.finishedAt });
      else if (ended.status === 'failed') send({ type: 'crawl.failed', pages: ended.pages, code: ended.code, message: ended.message, finishedAt: ended.finishedAt });
    },
    settled: async () => { await webhook?.settled(); },
  };
}

/** The job as its owner reads it. */
export const publicJob = ({ id, status, pages, createdAt, finishedAt, code, message }: Job) => ({ id, status, pages, createdAt, finishedAt, ...(code ? { code, message } : {}) });

/**
 * Crawl jobs of the embedded default: each runs in this process on the engine's crawl (the same walk as `refract
 * crawl`), its state and result lines on disk under `<dataDir>/crawls/<id>/`, its journal beside them, so that a
 * restarted process resumes unfinished jobs without redoing or losing a page. Every page is one request of the
 * owner's quota; past it the job fails with ERATE.
 */
export function createJobs(deps: { engine: Engine; quota: Quota; dataDir: string; webhookSecret: string }): Jobs {
  const root = path.join(deps.dataDir, 'crawls');
  const running = new Map<string, { job: Job; cancel: () => void; pause: () => void; done: Promise<void> }>();
  const dirOf = (id: string) => path.join(root, id);
  const save = async (job: Job) => {
    const file = path.join(dirOf(job.id), 'job.json');
    await writeFile(`${file}.tmp`, JSON.stringify(job));
    await rename(`${file}.tmp`, file);
  };
  const load = async (id: string): Promise<Job | undefined> => (ID.test(id) ? readFile(path.join(dirOf(id), 'job.json'), 'utf8').then((t) => JSON.parse(t) as Job, () => undefined) : undefined);

  /**
   * The results already written (a resumed job neither writes them again nor counts them twice). A kill during a
   * write leaves at most a torn last line: it is cut off, and that page is done again.
   */
  async function written(id: string): Promise<{ urls: string[]; done: number; failed: number }> {
    const file = path.join(dirOf(id), 'results.jsonl');
    const out = { urls: [] as string[], done: 0, failed: 0 };
    const text = await readFile(file, 'utf8').catch(() => '');
    const whole = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (whole.length !== text.length) await truncate(file, Buffer.byteLength(whole));
    for (const line of whole.split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as CrawlResult;
      out.urls.push(r.url);
      if (r.status === 'success') out.done++; else out.failed++;
    }
    return out;
  }

  async function run(job: Job): Promise<void> {
    const dir = dirOf(job.id);
    const webhook = jobWebhook(job, deps);
    const send = webhook.send;
    let cancelled = false;
    let savedAt = Date.now();
    const stop = new AbortController();
    const done = (async () => {
      const already = await written(job.id);
      job.pages.done = already.done;
      job.pages.failed = already.failed;
      if (job.status === 'queued') send({ type: 'crawl.started', createdAt: job.createdAt });
      job.status = 'running';
      await save(job);
      const crawl = deps.engine.crawl(job.request.input, {
        ...job.request.options, stateDir: path.join(dir, 'state'), done: already.urls,
        onKnown: (n) => { job.pages.queued = Math.max(0, n - job.pages.done - job.pages.failed); },
      });
      // One handle for the job's result lines (each line one write: a kill tears at most the last).
      const out = await open(path.join(dir, 'results.jsonl'), 'a');
      try {
        for await (const line of crawl) {
          const rate = await deps.quota.consume(job.owner, job.policy);
          if (rate.exceeded) { job.status = 'failed'; job.code = 'ERATE'; job.message = 'The key\'s request quota ran out; the pages done so far are in the results'; break; }
          await out.write(`${JSON.stringify(line)}\n`);
          if (line.status === 'success') job.pages.done++; else job.pages.failed++;
          job.pages.queued = Math.max(0, job.pages.queued - 1);
          send({ type: 'crawl.page', page: line });
          // The counts on disk are for a status read by another process; the results file is the truth on resume.
          if (Date.now() - savedAt > SAVE_EVERY_MS) { savedAt = Date.now(); await save(job); }
          if (cancelled || stop.signal.aborted) break;
        }
        // The process is stopping: the job stays running, and the next start resumes it.
        if (stop.signal.aborted && !cancelled) { await save(job); await webhook.settled(); return; }
        if (job.status === 'running') job.status = cancelled ? 'cancelled' : 'completed';
      } catch (err) {
        job.status = 'failed';
        job.code = 'EFATAL';
        job.message = (err as Error).message;
      } finally {
        await out.close();
      }
      job.finishedAt = new Date().toISOString();
      job.pages.queued = 0;
      await save(job);
      webhook.ended(job);
      await webhook.settled();
    })().catch((err) => deps.engine.logger.error('crawl job failed unexpectedly', err)).finally(() => running.delete(job.id));
    running.set(job.id, { job, cancel: () => { cancelled = true; }, pause: () => stop.abort(), done });
  }

  return {
    async create(owner: string, policy: QuotaPolicy, request: JobRequest): Promise<Job> {
      const job = newJob(deps.engine, owner, policy, request);
      await mkdir(dirOf(job.id), { recursive: true });
      await save(job);
      const asCreated = { ...job };
      void run(job);
      return asCreated;
    },
    /** The job, if it exists and belongs to `owner` (another key's job is not found). */
    async get(owner: string, id: string): Promise<Job | undefined> {
      // A running job is read as it is now; another one as it was saved.
      const live = running.get(id)?.job;
      const job = live ? { ...live, pages: { ...live.pages } } : await load(id);
      return job && job.owner === owner ? job : undefined;
    },
    /** Result lines from `cursor` (a line number), at most `limit`, and the cursor after them. */
    async results(job: Job, cursor: number, limit: number): Promise<{ lines: string[]; next: number; more: boolean }> {
      const file = path.join(dirOf(job.id), 'results.jsonl');
      const lines: string[] = [];
      let n = 0;
      let more = false;
      if (existsSync(file)) {
        for await (const line of createInterface({ input: createReadStream(file) })) {
          if (!line) continue;
          if (n++ < cursor) continue;
          if (lines.length === limit) { more = true; break; }
          lines.push(line);
        }
      }
      return { lines, next: cursor + lines.length, more };
    },
    async cancel(job: Job): Promise<Job> {
      const live = running.get(job.id);
      if (live) { live.cancel(); await live.done; return (await load(job.id))!; }
      if (!TERMINAL.has(job.status)) { job.status = 'cancelled'; job.finishedAt = new Date().toISOString(); await save(job); }
      return job;
    },
    /** Starts again the jobs a stopped process left unfinished (their journals skip what was done). */
    async resume(): Promise<number> {
      const ids = await readdir(root).catch(() => [] as string[]);
      let resumed = 0;
      for (const id of ids) {
        const job = await load(id);
        if (job && !TERMINAL.has(job.status) && !running.has(id)) { void run(job); resumed++; }
      }
      return resumed;
    },
    /** Stops the running jobs where they are (they resume on the next start). */
    async close(): Promise<void> {
      for (const live of running.values()) live.pause();
      await Promise.all([...running.values()].map((r) => r.done));
    },
    isTerminal,
  };
}

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
