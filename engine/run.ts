import { randomUUID } from 'node:crypto';
import { BasicCrawler } from '@crawlee/basic';
import { Configuration, ProxyConfiguration, log, type Session } from '@crawlee/core';
import { MemoryStorage } from '@crawlee/memory-storage';

/** What a task receives from the executor: the Crawlee session and the proxy chosen for it. */
export interface Lease { session: Session | undefined; proxyUrl: string | undefined }

/** A unit of work the executor runs inside Crawlee. */
export type Task<T> = (lease: Lease) => Promise<T>;

/** Runs tasks on a long-lived Crawlee crawler, with its session pool and proxy rotation. */
export interface Executor {
  run<T>(url: string, task: Task<T>): Promise<T>;
  close(): Promise<void>;
}

/** Settings of the executor. */
export interface ExecutorOptions { concurrency: number; proxyUrls: readonly string[]; handlerTimeoutSecs: number }

interface Job { task: Task<unknown>; resolve(v: unknown): void; reject(e: unknown): void }

/**
 * Creates the executor: a keep-alive BasicCrawler fed one request per task. The pool is woken on every
 * submission (`notify`), so Crawlee adds no polling delay; its storage is in memory and private to it.
 */
export async function createExecutor(opts: ExecutorOptions): Promise<Executor> {
  if (log.getLevel() > log.LEVELS.WARNING) log.setLevel(log.LEVELS.WARNING);
  const config = new Configuration({ persistStorage: false, storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }) });
  const proxyConfiguration = opts.proxyUrls.length ? new ProxyConfiguration({ proxyUrls: [...opts.proxyUrls] }) : undefined;
  const jobs = new Map<string, Job>();
  const crawler = new BasicCrawler({
    keepAlive: true,
    useSessionPool: true,
    sessionPoolOptions: { maxPoolSize: 100 },
    maxRequestRetries: 0,
    requestHandlerTimeoutSecs: opts.handlerTimeoutSecs,
    statusMessageLoggingInterval: 3600,
    minConcurrency: Math.min(opts.concurrency, 4),
    maxConcurrency: opts.concurrency,
    autoscaledPoolOptions: { desiredConcurrency: opts.concurrency, maybeRunIntervalSecs: 0.5 },
    async requestHandler({ request, session }) {
      const job = jobs.get(request.uniqueKey);
      if (!job) return;
      jobs.delete(request.uniqueKey);
      try {
        const proxyUrl = proxyConfiguration ? await proxyConfiguration.newUrl(session?.id) : undefined;
        job.resolve(await job.task({ session, proxyUrl }));
      } catch (err) {
        job.reject(err);
      }
    },
    async failedRequestHandler({ request }, error) {
      const job = jobs.get(request.uniqueKey);
      jobs.delete(request.uniqueKey);
      job?.reject(error);
    },
  }, config);
  const running = crawler.run();
  running.catch((err) => log.exception(err as Error, 'Refract executor stopped'));
  return {
    async run<T>(url: string, task: Task<T>): Promise<T> {
      const uniqueKey = randomUUID();
      const result = new Promise<T>((resolve, reject) => {
        jobs.set(uniqueKey, { task: task as Task<unknown>, resolve: resolve as (v: unknown) => void, reject });
      });
      await crawler.addRequests([{ url, uniqueKey }]);
      void crawler.autoscaledPool?.notify();
      return result;
    },
    async close() {
      crawler.autoscaledPool?.abort();
      await crawler.teardown();
      for (const job of jobs.values()) job.reject(new Error('Executor closed'));
      jobs.clear();
    },
  };
}
