// Crawls over an engine: walking a list, a sitemap or a site (walk.ts, with its journal; pages.ts for a page's key,
// robots.txt, sitemaps and the query), the same shared through a Redis queue (distributed.ts coordinates, worker.ts
// visits, distributed-keys.ts is what both see), crawl jobs (job.ts; their request checked in job-request.ts; jobs.ts
// on disk, jobs-redis.ts in Redis) with their webhooks, and monitors (monitors.ts, monitors-redis.ts; watch.ts for
// one read, and the library's watch). A crawl uses the engine through engine/index.ts only, one engine task a page;
// quotas are the server's, handed in as a `Charge`.
export { crawl, type CrawlInput, type CrawlOptions, type CrawlResult } from './walk.ts';
export { crawlQuery, checkedQuery, pageKey } from './pages.ts';
export { cancelCrawl, crawlDistributed, crawlId, type DistributedCrawlOptions } from './distributed.ts';
export { startWorker, type WorkerOptions } from './worker.ts';
export { mapSite, mapQuery, mapParams, MAP_LIMIT, type MapOptions, type MapQuery } from './map.ts';
export { connect as connectRedisBlocking } from './redis-connect.ts';
export { readLines } from './journal.ts';
export { createJobs } from './jobs.ts';
export { publicJob, type Charge, type Job, type JobRequest, type Jobs, type QuotaPolicy } from './job.ts';
export { createRedisJobs } from './jobs-redis.ts';
export { signedHeaders, webhookSigner } from './webhooks.ts';
export { jobRequest, bodySchema as jobBodySchema } from './job-request.ts';
export { createMonitors, FAILURES_TOLD, type Monitor, type Monitors } from './monitors.ts';
export { createRedisMonitors } from './monitors-redis.ts';
export { watch, readChanges, WATCH_MIN_INTERVAL, type WatchOptions } from './watch.ts';
export { monitorRequest, monitorBodySchema, type MonitorSpec } from './monitor-request.ts';
