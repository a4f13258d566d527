import type { Config } from './config.ts';
import { createGuard, type Guard } from './fetch/guard.ts';
import { buildPlan, type Plan, type Tier } from './plan.ts';
import { parseQuery, type RawObject } from './params.ts';
import type { Plugin } from './plugin.ts';
import { createRegistry, type Registry } from './registry.ts';
import { createExecutor, type Executor } from './run.ts';
import { runPlan, type Extraction } from './pipeline.ts';
import { createLogger, type Logger } from './log.ts';
import { createBrowsers, type Browsers } from './browser/browsers.ts';
import { createAssetStore, type AssetStore } from './assets.ts';
import { HostMemory } from './fetch/prerender.ts';
import { createProxyChooser } from './proxies.ts';
import { crawl, type CrawlInput, type CrawlOptions, type CrawlResult } from './crawl.ts';
import { RefractError } from './errors.ts';

/** What an engine is made of: its configuration and the plugins to register, in output order. */
export interface EngineOptions { config: Config; plugins: readonly Plugin[]; logger?: Logger }

/** The engine: plans and runs extractions; usable without the HTTP server. */
export interface Engine {
  readonly registry: Registry;
  readonly config: Config;
  readonly logger: Logger;
  /** The SSRF guard every outbound fetch goes through. */
  readonly guard: Guard;
  /** Where generated files are kept and served from. */
  readonly assets: AssetStore;
  /** The browser side (pages, pool). */
  readonly browsers: Browsers;
  /** Validates a parsed query into a plan (no I/O). */
  plan(query: RawObject, tier?: Tier): Plan;
  /** Runs a plan through Crawlee and the plugins. */
  run(plan: Plan): Promise<Extraction>;
  /** Crawls a list, a sitemap or a site from a start page, yielding each page's result as it comes. */
  crawl(input: CrawlInput, options?: CrawlOptions): AsyncGenerator<CrawlResult>;
  /** Convenience for library users: `extract('https://x', 'screenshot&palette')` or with an options object. */
  extract(url: string, query?: string | Record<string, unknown>): Promise<Extraction>;
  close(): Promise<void>;
}

function toQuery(url: string, query: string | Record<string, unknown> | undefined): RawObject {
  const params = new URLSearchParams(typeof query === 'string' ? query : '');
  const raw = parseQuery(params);
  if (query && typeof query === 'object') Object.assign(raw, JSON.parse(JSON.stringify(query, (_, v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v))));
  raw.url = url;
  return raw;
}

/** Creates an engine: registers the plugins (duplicates throw) and starts the Crawlee executor. */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const registry = createRegistry(options.plugins);
  const guard = createGuard(config.allowPrivateHosts);
  const executor: Executor = await createExecutor({
    concurrency: config.concurrency, proxyUrls: config.proxyUrls, handlerTimeoutSecs: Math.ceil(config.maxTimeoutMs / 1000) + 30,
  });
  const limits = { defaultTimeoutMs: config.timeoutMs, maxTimeoutMs: config.maxTimeoutMs, testHooks: config.testHooks, defaultTtlMs: config.cacheTtlMs };
  const browsers = createBrowsers({ concurrency: config.browserConcurrency, queueLimit: config.browserQueue, retireAfterPages: config.browserRetireAfterPages, maxMemoryBytes: config.browserMaxMemoryBytes });
  const assets = createAssetStore(config.assetsDir, config.publicUrl, config.assetsUrl);
  const proxies = createProxyChooser(config, guard);
  const deps = {
    registry, guard, maxBodyBytes: config.maxBodyBytes, probeTimeoutMs: config.probeTimeoutMs, prerenderBudgetMs: config.prerenderBudgetMs,
    browsers, assets, hosts: new HostMemory(), logger, config,
  };
  const engine: Engine = {
    registry,
    config,
    logger,
    guard,
    assets,
    browsers,
    plan: (query, tier = 'free') => buildPlan(query, registry, tier, limits),
    run: (plan) => executor.run(plan.url, async (lease) => {
      const proxyUrl = await proxies.forPlan(plan, lease.proxyUrl);
      try {
        return await runPlan(plan, deps, { ...lease, proxyUrl });
      } catch (err) {
        // On pro a bot challenge is retried once through another proxy of the pool before it is reported.
        const retry = err instanceof RefractError && err.code === 'EPROXYNEEDED' && plan.tier === 'pro' && !plan.options.proxy ? proxies.another(proxyUrl) : undefined;
        if (!retry) throw err;
        logger.warn('challenge page, retrying through a pool proxy', { url: plan.url });
        return runPlan(plan, deps, { ...lease, proxyUrl: retry });
      }
    }),
    crawl: (input, opts) => crawl(engine, input, opts),
    extract: (url, query) => engine.run(engine.plan(toQuery(url, query), 'pro')),
    close: async () => {
      await executor.close();
      await browsers.close();
      await Promise.all(registry.plugins.map((p) => p.close?.()));
    },
  };
  return engine;
}
