import { randomUUID } from 'node:crypto';
import { BasicCrawler, type BasicCrawlerOptions } from '@crawlee/basic';
import { Configuration, Log, LogLevel, ProxyConfiguration, Request, type Session } from '@crawlee/core';
import { ServerRequestManager } from './queue-store.ts';
import { RefractError } from '../kernel/errors.ts';
import { MemoryStorage } from '@crawlee/memory-storage';
import { browserHeaders } from '../fetch/browser-headers.ts';

/** What a task receives from the executor: the Crawlee session and the proxy chosen for it. */
export interface Lease {
  session: Session | undefined;
  proxyUrl: string | undefined;
}

/** A unit of work the executor runs inside Crawlee. */
export type Task<T> = (lease: Lease) => Promise<T>;

/** Runs tasks on a long-lived Crawlee crawler, with its session pool and proxy rotation. */
export interface Executor {
  run<T>(url: string, task: Task<T>): Promise<T>;
  /** How many requests Crawlee's queue still stores (handled ones are swept so a long-lived server stays bounded). */
  storedRequests(): Promise<number>;
  /** Resolves once Crawlee has marked every submitted request handled. */
  drained(): Promise<void>;
  /** False once the crawler stopped on its own (its run ended or failed): no task can be taken any more. */
  alive(): boolean;
  /** The Crawlee crawler behind it (its pool and sessions). */
  readonly crawler: BasicCrawler;
  close(): Promise<void>;
}

/** Settings of the executor. */
export interface ExecutorOptions {
  concurrency: number;
  proxyUrls: readonly string[];
  handlerTimeoutSecs: number;
}

/** How many sessions (identities: headers, cookies, a proxy's address) the executor rotates through. */
const SESSION_POOL_SIZE = 100;

/** How often Crawlee samples the system for the executor's crawler (an hour: see createExecutor). */
export const SYSTEM_INFO_INTERVAL_MS = 3_600_000;

interface Job {
  task: Task<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  /** Its task has started. */
  running?: boolean;
}

/** One turn of the event loop: what is already settled (an answer on its way to the client) goes first. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Crawlee's Request for the next task, made ahead of it: its constructor validates its options with `ow` and
 * defines a dozen properties, ~20 us warm but ~130 us after a quiet moment, when that code is cold. Given a
 * `uniqueKey`, a Request derives nothing from `url` or `uniqueKey` (plain fields), so a spare one takes the task's.
 */
class RequestMaker {
  #spare: Request | undefined;
  take(url: string, uniqueKey: string): Request {
    const request = this.#spare ?? new Request({ url, uniqueKey });
    this.#spare = undefined;
    request.url = url;
    request.uniqueKey = uniqueKey;
    return request;
  }
  /** Makes the spare, off the path of a request (after an answer went out). */
  refill(): void {
    this.#spare ??= new Request({ url: 'http://refract.invalid/spare', uniqueKey: 'spare' });
  }
}

/**
 * The executor's crawler. It never delays a task for its domain (`sameDomainDelaySecs` is 0): Crawlee's check still
 * parsed each target's domain against the public suffix list and remembered every domain it ever saw, a map that
 * grew for the life of a server.
 */
class TaskCrawler extends BasicCrawler {
  protected override delayRequest(): boolean {
    return false;
  }
}

/** The crawler's options: fixed concurrency, sessions, and a handler that runs each request's task. */
function crawlerOptions(
  opts: ExecutorOptions,
  jobs: Map<string, Job>,
  log: Log,
  requests: ServerRequestManager,
  proxyConfiguration: ProxyConfiguration | undefined,
  maker: RequestMaker,
): BasicCrawlerOptions {
  return {
    // Crawlee 3.18 reads `requestManager` but its option check refuses the key; a request queue stands in for it.
    requestQueue: requests as never,
    log,
    keepAlive: true,
    useSessionPool: true,
    sessionPoolOptions: { maxPoolSize: SESSION_POOL_SIZE },
    maxRequestRetries: 0,
    requestHandlerTimeoutSecs: opts.handlerTimeoutSecs,
    statusMessageLoggingInterval: 3600,
    // Concurrency is fixed by configuration (the browser side has its own bound): Crawlee's autoscaling would
    // read a busy 2-core machine as overloaded and throttle a server that must answer every request it accepts.
    minConcurrency: opts.concurrency,
    maxConcurrency: opts.concurrency,
    autoscaledPoolOptions: {
      desiredConcurrency: opts.concurrency,
      maybeRunIntervalSecs: 0.5,
      systemStatusOptions: {
        maxCpuOverloadedRatio: 1,
        maxEventLoopOverloadedRatio: 1,
        maxMemoryOverloadedRatio: 1,
        maxClientOverloadedRatio: 1,
      },
      // With no overload to act on, the pool still weighs its snapshots before every task: the event loop's (taken
      // every 0.5 s) and the storage client's (every second), ~75 us a task after a quiet moment. Taken hourly, one
      // of each is kept, and the process is not woken three times a second for them.
      snapshotterOptions: {
        eventLoopSnapshotIntervalSecs: SYSTEM_INFO_INTERVAL_MS / 1000,
        clientSnapshotIntervalSecs: SYSTEM_INFO_INTERVAL_MS / 1000,
      },
    },
    async requestHandler({ request, session }) {
      const job = jobs.get(request.uniqueKey);
      if (!job) return;
      // A running job stays listed until it settles: a close answers it (EBUSY) rather than what the close does to it.
      job.running = true;
      try {
        const proxyUrl = proxyConfiguration ? await proxyConfiguration.newUrl(session?.id) : undefined;
        job.resolve(await job.task({ session, proxyUrl }));
      } catch (err) {
        job.reject(err);
      } finally {
        jobs.delete(request.uniqueKey);
      }
      // Crawlee's bookkeeping of the task (marking it handled, statistics, the session's score, its context's
      // cleanup) waits one turn, so that the answer, settled now, is written to its client first; so does the spare.
      await turn();
      maker.refill();
    },
    async failedRequestHandler({ request }, error) {
      const job = jobs.get(request.uniqueKey);
      jobs.delete(request.uniqueKey);
      job?.reject(error);
    },
  };
}

/**
 * Fills the crawler's session pool, each session with its browser headers, one per turn of the event loop: made for
 * a request, a session cost it ~0.3 ms and its headers ~0.1 ms (more on a quiet machine), in each of the first
 * SESSION_POOL_SIZE requests after a start.
 */
async function prefill(crawler: BasicCrawler, done: () => boolean): Promise<void> {
  const pool = crawler.sessionPool;
  for (let made = 0; pool && made < SESSION_POOL_SIZE && !done(); made++) {
    browserHeaders(await pool.getSession());
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Creates the executor: a keep-alive BasicCrawler fed one request per task. The pool is woken on every
 * submission (`notify`), so Crawlee adds no polling delay; its storage is in memory and private to it.
 */
export async function createExecutor(opts: ExecutorOptions): Promise<Executor> {
  // The executor's own Crawlee log (Crawlee's global level stays the host application's).
  const log = new Log({ level: LogLevel.WARNING, prefix: 'refract-executor' });
  // Concurrency is fixed, so Crawlee's system samples are never read; taken every second (its default), each ran
  // `ps -A` and read ~1,600 files of /proc: a fork of this process a second, on the machine the requests share.
  const config = new Configuration({
    persistStorage: false,
    storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }),
    systemInfoIntervalMillis: SYSTEM_INFO_INTERVAL_MS,
  });
  const proxyConfiguration = opts.proxyUrls.length
    ? new ProxyConfiguration({ proxyUrls: [...opts.proxyUrls] })
    : undefined;
  const jobs = new Map<string, Job>();
  const requests = new ServerRequestManager();
  const maker = new RequestMaker();
  const crawler = new TaskCrawler(crawlerOptions(opts, jobs, log, requests, proxyConfiguration, maker), config);
  // A crawler that stops on its own (its run ended or failed) takes no more tasks: the ones waiting, and every
  // one after, are refused at once (EBUSY, so that a client retries another process) instead of waiting forever.
  let closing = false;
  let stopped: RefractError | undefined;
  const halt = (cause: unknown) => {
    if (closing) return;
    stopped = new RefractError('EBUSY', 'The request executor of this process stopped; it takes no more work', {
      cause,
    });
    log.exception(cause instanceof Error ? cause : new Error(String(cause)), 'Refract executor stopped');
    // The tasks waiting are refused; one running finishes on its own (its browser and page are still there).
    for (const [key, job] of jobs) {
      if (job.running) continue;
      job.reject(stopped);
      jobs.delete(key);
    }
  };
  const running = crawler.run();
  running.then(() => halt(new Error("the crawler's run ended")), halt);
  let started = false;
  const submit = async <T>(url: string, task: Task<T>): Promise<T> => {
    if (stopped) throw stopped;
    const uniqueKey = randomUUID();
    const result = new Promise<T>((resolve, reject) => {
      jobs.set(uniqueKey, { task: task as Task<unknown>, resolve: resolve as (v: unknown) => void, reject });
    });
    requests.push(maker.take(url, uniqueKey));
    // Waking the pool before the crawler has finished starting loses the task, so only after the first one ran.
    if (started) void crawler.autoscaledPool?.notify();
    return result;
  };
  await submit('http://refract.invalid/warm-up', async () => undefined);
  started = true;
  void prefill(crawler, () => closing || !!stopped).catch((err: Error) =>
    log.debug('session pool not filled ahead', { error: err.message }),
  );
  return {
    run: submit,
    async storedRequests() {
      return requests.getPendingCount();
    },
    drained: () => requests.whenDrained(),
    alive: () => !stopped,
    crawler,
    async close() {
      closing = true;
      // Every request not answered yet, waiting or running, is answered now: the engine is closing under it.
      for (const job of jobs.values())
        job.reject(new RefractError('EBUSY', 'The engine closed before this request was answered'));
      jobs.clear();
      crawler.autoscaledPool?.abort();
      await crawler.teardown();
    },
  };
}
