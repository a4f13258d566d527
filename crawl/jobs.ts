// Crawl jobs in this process (no REDIS_URL): each job a folder under the data folder (its state and its results, a
// line a page), walked here with the engine, resumed at the next start when the process stopped mid-job.
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Engine } from '../engine/index.ts';
import { crawl, type CrawlResult } from './walk.ts';
import {
  isJobId,
  isTerminal,
  jobWebhook,
  newJob,
  tellEnded,
  TERMINAL,
  type Charge,
  type Job,
  type JobRequest,
  type Jobs,
  type QuotaPolicy,
} from './job.ts';

/** How often a running job's counts are written to disk (its results are written at once). */
const SAVE_EVERY_MS = 1000;

/** Jobs on disk: `<dataDir>/crawls/<id>/job.json` (the state, replaced whole) and `results.jsonl` (a line a page). */
class JobFiles {
  readonly root: string;
  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'crawls');
  }
  dirOf(id: string): string {
    return path.join(this.root, id);
  }
  resultsOf(id: string): string {
    return path.join(this.dirOf(id), 'results.jsonl');
  }

  async create(job: Job): Promise<void> {
    await mkdir(this.dirOf(job.id), { recursive: true });
    await this.save(job);
  }

  async save(job: Job): Promise<void> {
    const file = path.join(this.dirOf(job.id), 'job.json');
    // A file of its own per write: a cancel saves while the walk may save too (one shared name made one rename fail).
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, JSON.stringify(job));
    await rename(tmp, file);
  }

  async load(id: string): Promise<Job | undefined> {
    if (!isJobId(id)) return undefined;
    return readFile(path.join(this.dirOf(id), 'job.json'), 'utf8').then(
      (t) => JSON.parse(t) as Job,
      () => undefined,
    );
  }

  ids(): Promise<string[]> {
    return readdir(this.root).catch(() => [] as string[]);
  }

  /**
   * The results already written (a resumed job neither writes them again nor counts them twice). A kill during a
   * write leaves at most a torn last line: it is cut off, and that page is done again.
   */
  async written(id: string): Promise<{ urls: string[]; done: number; failed: number }> {
    const file = this.resultsOf(id);
    const out = { urls: [] as string[], done: 0, failed: 0 };
    const text = await readFile(file, 'utf8').catch(() => '');
    const whole = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (whole.length !== text.length) await truncate(file, Buffer.byteLength(whole));
    for (const line of whole.split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as CrawlResult;
      out.urls.push(r.url);
      if (r.status === 'success') out.done++;
      else out.failed++;
    }
    return out;
  }

  /** Result lines from `cursor` (a line number), at most `limit`, and the cursor after them. */
  async results(id: string, cursor: number, limit: number): Promise<{ lines: string[]; next: number; more: boolean }> {
    const file = this.resultsOf(id);
    const lines: string[] = [];
    let n = 0;
    let more = false;
    if (existsSync(file)) {
      for await (const line of createInterface({ input: createReadStream(file) })) {
        if (!line) continue;
        if (n++ < cursor) continue;
        if (lines.length === limit) {
          more = true;
          break;
        }
        lines.push(line);
      }
    }
    return { lines, next: cursor + lines.length, more };
  }
}

type JobDeps = { engine: Engine; charge: Charge; dataDir: string; webhookSecret: string };
/** How a running job is stopped: cancelled (it ends, as cancelled), or paused (it stays running, for the next start). */
interface Stops {
  cancelled(): boolean;
  paused: AbortSignal;
}

/**
 * Walks a job's crawl, one result line and one quota request a page, and records how it ended. A paused job is
 * saved as running and left for the next start.
 */
async function walkJob(job: Job, files: JobFiles, deps: JobDeps, stops: Stops): Promise<void> {
  const webhook = jobWebhook(job, deps);
  const already = await files.written(job.id);
  job.pages.done = already.done;
  job.pages.failed = already.failed;
  // Cancelled before its walk began (the cancel answered while the lines were read): it ends as it is.
  if (stops.cancelled()) return endJob(job, files, webhook);
  if (job.status === 'queued') webhook.send({ type: 'crawl.started', createdAt: job.createdAt });
  job.status = 'running';
  await files.save(job);
  const walk = crawl(deps.engine, job.request.input, {
    ...job.request.options,
    stateDir: path.join(files.dirOf(job.id), 'state'),
    done: already.urls,
    onKnown: (n) => {
      job.pages.queued = Math.max(0, n - job.pages.done - job.pages.failed);
    },
  });
  // One handle for the job's result lines (each line one write: a kill tears at most the last).
  const out = await open(files.resultsOf(job.id), 'a');
  let savedAt = Date.now();
  try {
    for await (const line of walk) {
      // Cancelled (answered at once): a page that was in flight is not added to the results.
      if (stops.cancelled()) break;
      const rate = await deps.charge(job.owner, job.policy);
      if (rate.exceeded) {
        job.status = 'failed';
        job.code = 'ERATE';
        job.message = "The key's request quota ran out; the pages done so far are in the results";
        break;
      }
      await out.write(`${JSON.stringify(line)}\n`);
      if (line.status === 'success') job.pages.done++;
      else job.pages.failed++;
      job.pages.queued = Math.max(0, job.pages.queued - 1);
      webhook.send({ type: 'crawl.page', page: line });
      // The counts on disk are for a status read by another process; the results file is the truth on resume.
      if (Date.now() - savedAt > SAVE_EVERY_MS) {
        savedAt = Date.now();
        await files.save(job);
      }
      if (stops.cancelled() || stops.paused.aborted) break;
    }
    // The process is stopping: the job stays running, and the next start resumes it.
    if (stops.paused.aborted && !stops.cancelled()) {
      await files.save(job);
      await webhook.settled();
      return;
    }
    if (job.status === 'running') job.status = stops.cancelled() ? 'cancelled' : 'completed';
  } catch (err) {
    job.status = 'failed';
    job.code = 'EFATAL';
    job.message = (err as Error).message;
  } finally {
    await out.close();
  }
  await endJob(job, files, webhook);
}

/** Records the end of a job (its status already set) and tells its webhook. */
async function endJob(job: Job, files: JobFiles, webhook: ReturnType<typeof jobWebhook>): Promise<void> {
  job.finishedAt ??= new Date().toISOString();
  job.pages.queued = 0;
  await files.save(job);
  webhook.ended(job);
  await webhook.settled();
}

/**
 * Crawl jobs of the embedded default: each runs in this process on the engine's crawl (the same walk as `refract
 * crawl`), its state and result lines on disk under `<dataDir>/crawls/<id>/`, its journal beside them, so that a
 * restarted process resumes unfinished jobs without redoing or losing a page. Every page is one request of the
 * owner's quota; past it the job fails with ERATE.
 */
export function createJobs(deps: JobDeps): Jobs {
  const files = new JobFiles(deps.dataDir);
  const running = new Map<string, { job: Job; cancel: () => void; pause: () => void; done: Promise<void> }>();
  const run = (job: Job) => {
    let cancelled = false;
    const pause = new AbortController();
    const done = walkJob(job, files, deps, { cancelled: () => cancelled, paused: pause.signal })
      .catch((err) => deps.engine.logger.error('crawl job failed unexpectedly', err))
      .finally(() => running.delete(job.id));
    running.set(job.id, {
      job,
      cancel: () => {
        cancelled = true;
      },
      pause: () => pause.abort(),
      done,
    });
  };
  return {
    async create(owner: string, policy: QuotaPolicy, request: JobRequest): Promise<Job> {
      const job = newJob(deps.engine, owner, policy, request);
      await files.create(job);
      const asCreated = { ...job };
      run(job);
      return asCreated;
    },
    /** The job, if it exists and belongs to `owner` (another key's job is not found). */
    async get(owner: string, id: string): Promise<Job | undefined> {
      // A running job is read as it is now; another one as it was saved.
      const live = running.get(id)?.job;
      const job = live ? { ...live, pages: { ...live.pages } } : await files.load(id);
      return job && job.owner === owner ? job : undefined;
    },
    results: (job: Job, cursor: number, limit: number) => files.results(job.id, cursor, limit),
    async cancel(job: Job): Promise<Job> {
      const live = running.get(job.id);
      if (live) {
        // Answered at once: the job is cancelled now. A page in flight ends in the background (its line may still
        // come) and the webhook's deliveries go on on their own; neither holds the answer.
        live.cancel();
        if (TERMINAL.has(live.job.status)) return { ...live.job, pages: { ...live.job.pages } };
        Object.assign(live.job, { status: 'cancelled', finishedAt: new Date().toISOString() });
        // The answer is the job as cancelled now: the walk goes on changing its counts while this saves.
        const answer = { ...live.job, pages: { ...live.job.pages, queued: 0 } };
        await files.save(live.job);
        return answer;
      }
      if (!TERMINAL.has(job.status)) {
        Object.assign(job, {
          status: 'cancelled',
          finishedAt: new Date().toISOString(),
          pages: { ...job.pages, queued: 0 },
        });
        await files.save(job);
        tellEnded(job, deps);
      }
      return job;
    },
    /** Starts again the jobs a stopped process left unfinished (their journals skip what was done). */
    async resume(): Promise<number> {
      let resumed = 0;
      for (const id of await files.ids()) {
        const job = await files.load(id);
        if (job && !TERMINAL.has(job.status) && !running.has(id)) {
          run(job);
          resumed++;
        }
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
