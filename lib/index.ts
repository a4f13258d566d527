/**
 * The package's public API (`import { createEngine } from 'refract-api'`), chosen on purpose: what an application
 * needs to run extractions and crawls, and what a plugin author needs to write a plugin. Nothing else of the engine
 * is exported; `test/package/api.test.ts` compares this surface with `docs/api.md`, so a change to it is a visible
 * diff. The server, the CLI and the testbed compose the engine from its internals (`engine/index.ts`).
 */

// For applications: an engine, its settings and results, its errors, and crawls.
export { createEngine, defaultPlugins, type EngineOptions } from './compose.ts';
export { loadConfig, VERSION, RefractError, CODES, isRefractError, hasCode } from '../engine/index.ts';
export { crawl, crawlDistributed, startWorker, cancelCrawl, mapSite, watch } from '../crawl/index.ts';
export { signUrl, signingSecret, type SignOptions } from '../engine/index.ts';
export type {
  Engine,
  Config,
  Code,
  Plan,
  Tier,
  Outcome,
  CacheStatus,
  Extraction,
  Warning,
  ChangeReport,
} from '../engine/index.ts';
export type {
  CrawlInput,
  CrawlOptions,
  CrawlResult,
  DistributedCrawlOptions,
  WorkerOptions,
  MapOptions,
  WatchOptions,
} from '../crawl/index.ts';

// For plugin authors: the plugin's definition, its options' schema, and what its step sees and answers.
export {
  definePlugin,
  options,
  bool,
  num,
  text,
  oneOf,
  duration,
  list,
  device,
  z,
  mediaType,
  withSize,
  timeoutError,
} from '../engine/index.ts';
export type { Plugin, PluginDefinition, Context, Need, Media, FetchResult } from '../engine/index.ts';
