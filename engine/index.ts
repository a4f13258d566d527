/** Refract's public engine API: plugin authoring, the registry, plans, and the engine itself. */
export { definePlugin, needOf, type Plugin, type PluginDefinition, type Context, type Need } from './plugin.ts';
export { options, bool, num, text, oneOf, duration, list, device, z } from './schema.ts';
export { RefractError, CODES, isRefractError, hasCode, timeoutError, type Code } from './errors.ts';
export { toFailure, type Failure } from './failures.ts';
export { createRegistry, loadPlugins, type Registry } from './registry.ts';
export { buildPlan, type Plan, type Tier, type Step } from './plan.ts';
export { viewportFields } from './options.ts';
export { parseQuery, camelCase, type RawObject } from './params.ts';
export { loadConfig, type Config } from './config.ts';
export { createGuard, type Guard } from './fetch/guard.ts';
export type { FetchResult } from './fetch/http.ts';
export { ffprobe, type Prober, type ProbeOutcome } from './fetch/probe.ts';
export { mediaType, prettyBytes, prettyDuration, withSize, type Media } from './media.ts';
export { createEngine, type Engine, type EngineOptions } from './engine.ts';
export type { CrawlInput, CrawlOptions, CrawlResult } from './crawl.ts';
export { crawlDistributed, startWorker, crawlId, type DistributedCrawlOptions, type WorkerOptions } from './distributed.ts';
export { CHROME_ARGS } from './browser/pool.ts';
export { DEFAULT_VIEWPORT } from './browser/page.ts';
