// Crawls over an engine: walking a list, a sitemap or a site (walk.ts, with its journal), the same shared by the
// workers of a Redis queue (distributed.ts), and crawl jobs (their request checked in job-request.ts) with their
// webhooks (jobs.ts on disk, jobs-redis.ts in Redis, behind one `Jobs` interface). A crawl uses the engine through engine/index.ts only, one engine task a
// page; quotas are the server's, handed in as a `Charge`.
export {
  crawl,
  crawlQuery,
  checkedQuery,
  pageKey,
  type CrawlInput,
  type CrawlOptions,
  type CrawlResult,
} from './walk.ts';
export {
  cancelCrawl,
  crawlDistributed,
  startWorker,
  crawlId,
  type DistributedCrawlOptions,
  type WorkerOptions,
} from './distributed.ts';
export { mapSite, mapQuery, mapParams, MAP_LIMIT, type MapOptions, type MapQuery } from './map.ts';
export { connect as connectRedisBlocking } from './redis-connect.ts';
export { readLines } from './journal.ts';
export { createJobs, publicJob, type Charge, type Job, type JobRequest, type Jobs, type QuotaPolicy } from './jobs.ts';
export { createRedisJobs } from './jobs-redis.ts';
export { signedHeaders, webhookSigner } from './webhooks.ts';
export { jobRequest, bodySchema as jobBodySchema } from './job-request.ts';
export { createMonitors, FAILURES_TOLD, type Monitor, type Monitors } from './monitors.ts';
export { createRedisMonitors } from './monitors-redis.ts';
export { watch, readChanges, WATCH_MIN_INTERVAL, type WatchOptions } from './watch.ts';
export { monitorRequest, monitorBodySchema, type MonitorSpec } from './monitor-request.ts';
