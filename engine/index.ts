/** Refract's public engine API: plugin authoring, the registry, plans, and the engine itself. */
export { definePlugin, needOf, type Plugin, type PluginDefinition, type Context, type Need } from './plan/plugin.ts';
export { options, bool, num, text, oneOf, duration, list, device, z, describeIssue } from './plan/schema.ts';
export { RefractError, CODES, isRefractError, hasCode, timeoutError, type Code } from './kernel/errors.ts';
export { toFailure, type Failure } from './kernel/failures.ts';
export { createRegistry, type Registry } from './plan/registry.ts';
export { loadPlugins } from './plugins.ts';
export { buildPlan, retarget, type Plan, type Tier, type Step } from './plan/plan.ts';
export { viewportFields } from './plan/options.ts';
export { parseQuery, parseOptions, queryParams, camelCase, type RawObject, type QueryInput } from './plan/params.ts';
export { loadConfig, ENV_DOCS, type Config } from './kernel/config.ts';
export { createGuard, type Guard } from './fetch/guard.ts';
export type { FetchResult } from './fetch/http.ts';
export { ffprobe, type Prober, type ProbeOutcome } from './fetch/probe.ts';
export { mediaType, prettyBytes, prettyDuration, withSize, type Media } from './kernel/media.ts';
export { openAsset, readAsset, type AssetStore, type ServedAsset } from './store/assets.ts';
export { createEngine, type Engine, type EngineOptions, type ServiceEngine } from './engine.ts';
export { CHROME_ARGS, chromeArgs } from './browser/pool.ts';
export { useSandbox, sandboxPossible } from './browser/sandbox.ts';
export { startBrowserServer, type BrowserServer } from './browser/tier.ts';
export { createGuardProxy, type GuardProxy } from './browser/guard-proxy.ts';
export { DEFAULT_VIEWPORT } from './browser/page.ts';
export { captureSettled } from './browser/settle.ts';
export { VERSION } from './kernel/version.ts';

// What the composition roots (server/, bin/, testing/) use besides the engine itself: they import nothing else of engine/.
export { withDeadline, untilAborted } from './kernel/deadline.ts';
export { fetchTarget } from './fetch/http.ts';
export { systemClock, type Clock, type Counters } from './store/state.ts';
export type { ChangeReport, ChangeSnapshot, FieldValue } from './store/changes.ts';
export type { CacheEntry, Extraction, Warning } from './request/extraction.ts';
export type { Outcome } from './request/lifecycle.ts';
export { cacheStatusOf, degraded, type CacheStatus } from './request/lifecycle.ts';
export { formatDuration, parseDuration } from './kernel/duration.ts';
export { applyFilter, filtered, embedValue } from './plan/filter.ts';
export { serverTiming, type Phase } from './kernel/timing.ts';
export { parseHtml, MAX_DEPTH } from './kernel/html.ts';
export type { CheerioAPI } from 'cheerio';
export { coreSchema, PRO_ONLY, TEST_HOOK_PARAMS } from './plan/options.ts';
export { DURATION_MARK, TEXT_FORM_MARK } from './plan/schema.ts';
export { checkTargetUrl } from './plan/url.ts';
export {
  signUrl,
  signingSecret,
  canonicalQuery,
  macOf,
  signingSecretOf,
  SIGNATURE_PARAM,
  EXPIRES_PARAM,
  type SignOptions,
} from './kernel/signing.ts';
