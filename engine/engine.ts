import path from 'node:path';
import { RefractError } from './kernel/errors.ts';
import { pathToFileURL } from 'node:url';
import { EventEmitter } from 'node:events';
import { loadConfig, type Config } from './kernel/config.ts';
import { createGuard, type Guard } from './fetch/guard.ts';
import { buildPlan, type Plan, type Tier } from './plan/plan.ts';
import { createPlans } from './plan/plans.ts';
import { parseOptions, type QueryInput, type RawObject } from './plan/params.ts';
import type { Plugin } from './plan/plugin.ts';
import { pluginRuntimes } from './plugins.ts';
import { createRegistry, type Registry } from './plan/registry.ts';
import { createExecutor } from './request/queue.ts';
import { startTrace } from './kernel/timing.ts';
import { executePlan } from './request/pipeline.ts';
import type { CacheEntry, Extraction, Services } from './request/extraction.ts';
import { createLogger, type Logger } from './kernel/log.ts';
import { createBrowsers, type Browsers } from './browser/browsers.ts';
import { createGuardProxy } from './browser/guard-proxy.ts';
import { createAdblock } from './browser/adblock.ts';
import { useSandbox } from './browser/sandbox.ts';
import { parseEndpoints, endpointAddresses, redact } from './browser/remote.ts';
import { assetsPresent, watchStore, type AssetStore, type WatchedStore } from './store/assets.ts';
import { createLocalStore } from './store/assets-local.ts';
import { HostMemory } from './fetch/prerender.ts';
import { createProbeMemory } from './fetch/probe.ts';
import { createLightAgents, lightGet } from './fetch/light.ts';
import type { FetchResult } from './fetch/http.ts';
import { createProxyChooser } from './request/proxies.ts';
import { createCache } from './store/cache.ts';
import { createState, systemClock, type Clock, type SharedState } from './store/state.ts';
import { createLifecycle, type ExtractOptions, type Outcome } from './request/lifecycle.ts';
import { createChangeTracker, fileChangeStore, keyvChangeStore } from './store/changes.ts';
import { withChanges } from './request/changes.ts';

/** What an engine is made of: its configuration, its plugins (all of them: the engine adds none), and its clock. */
export interface EngineOptions {
  /** Settings (default: `loadConfig(process.env)`, the server's environment variables). */
  config?: Config;
  /** Every plugin to register, in order (the composition roots put the built-in ones and REFRACT_PLUGINS first). */
  plugins?: readonly Plugin[];
  logger?: Logger;
  clock?: Clock;
  /** Test seams: what makes the executor and the browsers (a start that fails there must leave nothing running). */
  makeExecutor?: typeof createExecutor;
  makeBrowsers?: typeof createBrowsers;
  makeAssets?: typeof createAssets;
}

/** The engine as an application holds it (the package exports this face): plans, caches and runs extractions. */
export interface Engine {
  readonly registry: Registry;
  readonly config: Config;
  readonly logger: Logger;
  /** The SSRF guard every outbound fetch goes through. */
  readonly guard: Guard;
  /** Background events: `refresh` ({ url, ok }) when a stale cache entry was regenerated. */
  readonly events: EventEmitter;
  /** Validates a parsed query into a plan (no I/O). */
  plan(query: RawObject, tier?: Tier): Plan;
  /** Plans a query string (`url=…&screenshot`), keeping the plans of queries that come again (engine/plan/plans.ts). */
  planQuery(search: string, tier?: Tier): Plan;
  /** Extracts through the cache (HIT, STALE with a background refresh, MISS computed once, BYPASS with `force`). */
  extract(plan: Plan, opts?: ExtractOptions): Promise<Outcome>;
  /** The same for library callers: `extract('https://x', 'screenshot&palette')`, or options as an object (pro tier). */
  extract(url: string, query?: string | Record<string, unknown>): Promise<Outcome>;
  /** Runs a plan once, past the cache (what a MISS does). */
  run(plan: Plan): Promise<Extraction>;
  /** A light GET through the SSRF guard on the engine's connection pools (sitemaps, robots.txt). */
  get(url: string, opts: { signal: AbortSignal; maxBytes: number }): Promise<FetchResult>;
  /** False once its executor stopped on its own (a process that can take no more work: readiness says so). */
  alive(): boolean;
  /** Closes the browser contexts that plans with this `shareContext` used (a crawl's pages share one, as a session). */
  closeShared(share: string): Promise<void>;
  close(): Promise<void>;
}

/** The engine as the server holds it: the same, and the parts its readiness, metrics and files report on. */
export interface ServiceEngine extends Engine {
  /** Where generated files are kept and served from; `writable()` says whether the last write or probe succeeded. */
  readonly assets: WatchedStore;
  /** The browser side (pages, pool). */
  readonly browsers: Browsers;
  /** What processes share: Redis when REDIS_URL is set (cache store, counters, locks), else this process's memory. */
  readonly shared: SharedState;
}

/** The library's options, a query string or an object, read as `GET /` reads its query (`parseOptions`). */
function toQuery(url: string, query: QueryInput): RawObject {
  return { ...parseOptions(query), url };
}

/**
 * Creates an engine from exactly the plugins given (duplicates throw), connects the shared state and starts the
 * executor. The engine knows no plugin: the package entry (lib/), the server and the CLI add the built-in ones.
 */
export async function createEngine(options: EngineOptions = {}): Promise<ServiceEngine> {
  const config = options.config ?? loadConfig();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const registry = createRegistry(options.plugins ?? []);
  // What was started so far, closed in reverse order when a later part fails to start: a partial start leaves
  // nothing running (Redis connections, the asset store's timers, a crawler).
  const started: (() => Promise<unknown>)[] = [];
  const undo = async () => {
    for (const close of started.reverse()) await close().catch(() => undefined);
  };
  try {
    return await compose();
  } catch (err) {
    await undo();
    throw err;
  }

  async function compose(): Promise<ServiceEngine> {
    // Cache, counters and in-flight coalescing live in Redis when REDIS_URL is set, so processes share them. Connected
    // first: an unreachable Redis fails the start before a crawler or a browser pool exists to be left running.
    const shared = await createState(config.redisUrl, clock, logger);
    started.push(() => shared.close());
    const guard = createGuard(config.allowPrivateHosts);
    // Checked before anything runs: a malformed endpoint fails the start.
    const endpoints = parseEndpoints(config.browserEndpoints);
    const events = new EventEmitter();
    // Before the crawler and the browsers: a malformed bucket URL fails the start with nothing left running.
    const assets = watchStore(await (options.makeAssets ?? createAssets)(config, logger, events), logger);
    started.push(() => assets.close());
    const executor = await (options.makeExecutor ?? createExecutor)({
      concurrency: config.concurrency,
      proxyUrls: config.proxyUrls,
      handlerTimeoutSecs: Math.ceil(config.maxTimeoutMs / 1000) + 30,
    });
    started.push(() => executor.close());
    const limits = {
      defaultTimeoutMs: config.timeoutMs,
      maxTimeoutMs: config.maxTimeoutMs,
      testHooks: config.testHooks,
      defaultTtlMs: config.cacheTtlMs,
    };
    const sandbox = !endpoints.length && useSandbox(config.chromiumSandbox);
    if (endpoints.length) logger.info(`browser tier: ${endpoints.map((e) => redact(e.url)).join(', ')}`);
    else
      logger.info(
        `Chromium sandbox ${sandbox ? 'on' : 'off (--no-sandbox)'} (REFRACT_CHROMIUM_SANDBOX=${config.chromiumSandbox})`,
      );
    const browsers = (options.makeBrowsers ?? createBrowsers)({
      concurrency: config.browserConcurrency,
      queueLimit: config.browserQueue,
      retireAfterPages: config.browserRetireAfterPages,
      maxMemoryBytes: config.browserMaxMemoryBytes,
      chromePath: config.chromePath,
      warmPages: config.browserWarmPages,
      sandbox,
      endpoints,
      proxy: createGuardProxy(
        guard,
        endpoints.length ? { host: config.guardProxyHost, allow: memo(() => endpointAddresses(endpoints)) } : {},
      ),
    });
    started.push(() => browsers.close());
    const agents = createLightAgents();
    const runtimes = pluginRuntimes(registry.plugins, config);
    const services: Services = {
      registry,
      runtimes,
      guard,
      agents,
      maxBodyBytes: config.maxBodyBytes,
      maxDocumentChars: config.maxDocumentChars,
      probeTimeoutMs: config.probeTimeoutMs,
      prerenderBudgetMs: config.prerenderBudgetMs,
      browsers,
      adblock: createAdblock(),
      assets,
      hosts: new HostMemory(),
      probes: createProbeMemory(),
      logger,
      proxies: createProxyChooser(config, guard),
    };
    const cache = createCache<CacheEntry>({
      maxBytes: config.cacheMaxBytes,
      store: shared.store,
      locks: shared.locks,
      attempt: shared.attempt,
      now: () => clock.now(),
    });
    const run = (plan: Plan) => {
      const trace = startTrace();
      return executor.run(plan.url, async (lease) => {
        trace.mark('queue', trace.started);
        return { ...(await executePlan(plan, services, lease, trace)), phases: trace.phases };
      });
    };
    const lifecycle = createLifecycle({
      cache,
      run,
      clock,
      cacheTtlMs: config.cacheTtlMs,
      failureTtlMs: config.failureTtlMs,
      logger,
      events,
      // A cached answer whose generated file is gone (pruned, or the bucket's lifecycle rule) is made again.
      usable: (entry) => assetsPresent(entry.data, assets),
    });
    // Change tracking: baselines in Redis when the service has it (every process sees them), else in files.
    const extract = withChanges(
      lifecycle.extract,
      createChangeTracker(
        shared.kind === 'redis' && shared.store
          ? keyvChangeStore(shared.store)
          : fileChangeStore(path.join(config.dataDir, 'changes')),
        clock,
        // A visual change's diff image is a file of the request's, as its screenshot is.
        (png) => assets.put(png, 'image/png'),
      ),
    );
    // A closed engine takes no more work: a call is refused at once (it would wait forever on a stopped crawler).
    let closed = false;
    const open = () => {
      if (closed) throw new RefractError('EBUSY', 'The engine is closed: create another to extract again');
    };
    const plans = createPlans((query, tier) => buildPlan(query, registry, tier, limits));
    const engine: ServiceEngine = {
      registry,
      config,
      logger,
      guard,
      assets,
      browsers,
      shared,
      events,
      plan: (query, tier = 'free') => buildPlan(query, registry, tier, limits),
      planQuery: (search, tier = 'free') => plans(search, tier),
      extract: (async (target: Plan | string, arg?: ExtractOptions | string | Record<string, unknown>) => {
        open();
        return typeof target === 'string'
          ? extract(engine.plan(toQuery(target, arg as QueryInput), 'pro'))
          : extract(target, arg as ExtractOptions | undefined);
      }) as Engine['extract'],
      run: async (plan) => {
        open();
        return run(plan);
      },
      get: (url, opts) => lightGet(url, { ...opts, guard, agents }),
      alive: () => !closed && executor.alive(),
      closeShared: (share) => browsers.closeShared(share),
      close: async () => {
        if (closed) return;
        closed = true;
        await executor.close();
        await browsers.close();
        await Promise.all(registry.plugins.map((p) => p.close?.(runtimes.get(p.name)?.state)));
        agents.destroy();
        await assets.close();
        await cache.close();
        await shared.close();
      },
    };
    return engine;
  }
}

/**
 * Where generated files go: an S3 bucket when `REFRACT_ASSETS_S3` is set, else the local folder within its bounds.
 * With no server in front (a library or CLI caller without PUBLIC_URL), a local file's link is the file itself.
 */
async function createAssets(config: Config, logger: Logger, events: EventEmitter): Promise<AssetStore> {
  // The AWS SDK is loaded only by the processes that use it.
  if (config.assetsS3)
    return (await import('./store/assets-s3.ts')).createS3Store({
      url: config.assetsS3,
      publicUrl: config.publicUrl,
      baseUrl: config.assetsUrl,
    });
  const baseUrl = config.assetsUrl || (config.publicUrl ? '' : pathToFileURL(path.resolve(config.assetsDir)).href);
  const retention = { maxBytes: config.assetsMaxBytes, maxAgeMs: config.assetsMaxAgeMs };
  return createLocalStore({ dir: config.assetsDir, publicUrl: config.publicUrl, baseUrl, retention, logger, events });
}

/** A value made once on first use, again a minute later (the tier's addresses, when their names move). */
function memo<T>(make: () => Promise<T>, ttlMs = 60_000): () => Promise<T> {
  let value: Promise<T> | undefined;
  let at = 0;
  return () => {
    if (!value || Date.now() - at > ttlMs) {
      value = make();
      at = Date.now();
    }
    return value;
  };
}
