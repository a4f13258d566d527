import { load, type CheerioAPI } from 'cheerio';
import type { Page, Response } from 'playwright-core';
import { parseHtml } from './html.ts';
import { RefractError } from './errors.ts';
import { needOf, type Context } from './plugin.ts';
import type { Plan } from './plan.ts';
import type { Config } from './config.ts';
import type { Registry } from './registry.ts';
import { createGuard, type Guard } from './fetch/guard.ts';
import type { Lease } from './run.ts';
import { fetchTarget, kindOf, type FetchResult } from './fetch/http.ts';
import { createProber } from './fetch/probe.ts';
import { lightGet } from './fetch/light.ts';
import { detectChallenge } from './fetch/antibot.ts';
import { needsBrowser, type HostMemory } from './fetch/prerender.ts';
import type { AssetStore } from './assets.ts';
import type { Browsers } from './browser/browsers.ts';
import { contextOptions, guardRequests, navigate, type PageSetup } from './browser/page.ts';
import { dismissConsent } from './browser/adblock.ts';

const CONSENT_CAP_MS = 3000;

/** The outcome of a plan: the Data object and how it was obtained. */
export interface Extraction {
  data: Record<string, unknown>;
  fetchMode: string;
  fetchTimeMs: number;
  prerenderReason?: string;
  /** The page's links, when the plan asked for them (crawls). */
  links?: string[];
  warnings: { plugin: string; code: string; message: string; reason?: 'threw' | 'timeout' | 'not-json' }[];
}

/** What the pipeline needs besides the plan. */
export interface PipelineDeps {
  registry: Registry;
  guard: Guard;
  maxBodyBytes: number;
  probeTimeoutMs: number;
  prerenderBudgetMs: number;
  browsers: Browsers;
  assets: AssetStore;
  hosts: HostMemory;
  logger: { warn(msg: string, extra?: unknown): void; error(msg: string, extra?: unknown): void };
  config: Config;
}

// The test hook reads its HTML from a loopback copy; the plan admitted only loopback hosts for it.
const LOOPBACK_GUARD = createGuard(['127.0.0.0/8', '::1']);

/** A failure to go through a proxy is EPROXY, whoever chose the proxy; other failures keep their code. */
function proxyFailure(err: unknown, proxyUrl: string | undefined): unknown {
  if (!proxyUrl) return err;
  const message = (err as Error)?.message ?? '';
  const viaProxy = /ERR_PROXY|ERR_TUNNEL_CONNECTION_FAILED|ERR_NO_SUPPORTED_PROXIES|proxy/i.test(message)
    || (err instanceof RefractError && err.code === 'EFATALCLIENT');
  if (!viaProxy || (err instanceof RefractError && err.code !== 'EFATALCLIENT' && err.code !== 'EFATAL')) return err;
  const host = (() => { try { return new URL(proxyUrl).host; } catch { return 'the proxy'; } })();
  return new RefractError('EPROXY', `The request through the proxy ${host} failed: ${message.split('\n')[0]}`, { cause: err, data: { proxy: host } });
}

async function fetchFor(plan: Plan, deps: PipelineDeps, lease: Lease, signal: AbortSignal): Promise<FetchResult> {
  try {
    return await fetchDirect(plan, deps, lease, signal);
  } catch (err) {
    throw proxyFailure(err, lease.proxyUrl);
  }
}

async function fetchDirect(plan: Plan, deps: PipelineDeps, lease: Lease, signal: AbortSignal): Promise<FetchResult> {
  const source = plan.options.htmlUrl ?? plan.url;
  const response = await fetchTarget(source, {
    guard: plan.options.htmlUrl ? LOOPBACK_GUARD : deps.guard, signal, maxBytes: deps.maxBodyBytes, headers: plan.options.headers,
    userAgent: plan.options.userAgent, proxyUrl: lease.proxyUrl, sessionToken: lease.session,
  });
  return plan.options.htmlUrl ? { ...response, url: plan.url, redirects: [] } : response;
}

/** The page controls of a request, with what its steps add (a device given to `screenshot`, say). */
export function pageSetupOf(plan: Plan, registry: Registry): PageSetup {
  const o = plan.options;
  let setup: PageSetup = {
    device: o.device, viewport: o.viewport, colorScheme: o.colorScheme, mediaType: o.mediaType, animations: o.animations,
    javascript: o.javascript, userAgent: o.userAgent, headers: o.headers, click: o.click, scroll: o.scroll, scripts: o.scripts,
    styles: o.styles, modules: o.modules, waitUntil: o.waitUntil, waitForSelector: o.waitForSelector, waitForTimeout: o.waitForTimeout,
    // On the free endpoint ad blocking and cookie-banner dismissal are on unless turned off (the contract).
    adblock: o.adblock ?? plan.tier === 'free',
  };
  for (const step of plan.steps) {
    const extra = registry.get(step.name)?.page?.(step.opts);
    if (extra) setup = { ...setup, ...extra, viewport: { ...setup.viewport, ...extra.viewport } };
  }
  return setup;
}

async function redirectsOf(response: Response | null): Promise<FetchResult['redirects']> {
  const chain: FetchResult['redirects'] = [];
  let req = response?.request().redirectedFrom() ?? null;
  while (req) {
    const res = await req.response();
    chain.unshift({ statusCode: res?.status() ?? 0, url: req.url() });
    req = req.redirectedFrom();
  }
  return chain;
}

async function browserResult(page: Page, response: Response | null, needsDocument: boolean): Promise<FetchResult> {
  const headers = response ? await response.allHeaders() : {};
  const contentType = headers['content-type'] ?? 'text/html';
  const kind = kindOf(contentType);
  const status = response?.status() ?? 200;
  // A text target (JSON, XML...) keeps its own bytes; a page is read as the browser rendered it, and only when a
  // step reads the document or the answer may be a challenge page (serializing a large DOM costs milliseconds).
  const text = kind === 'text' && response ? await response.text().catch(() => page.content())
    : needsDocument || status >= 400 || /cloudflare/i.test(headers.server ?? '') ? await page.content() : '';
  const body = Buffer.from(text);
  return {
    url: page.url(), statusCode: status, headers, redirects: await redirectsOf(response), contentType,
    kind, body, size: body.length, text, truncated: false,
  };
}

function checkChallenge(response: FetchResult, lease: Lease): void {
  const provider = response.kind === 'html' || response.kind === 'text' ? detectChallenge(response) : undefined;
  if (!provider) return;
  // A challenge page must never come back as metadata; the session that met it is burnt.
  lease.session?.retire();
  throw new RefractError('EPROXYNEEDED', `The target is protected by ${provider} and answered with a bot challenge; the pro endpoint retries through a proxy`, { data: { provider, statusCode: response.statusCode } });
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new RefractError('ETIMEOUT', 'The request reached its timeout'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RefractError('ETIMEOUT', 'The request reached its timeout'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Time kept back from a step for the rest of the answer: a step that hangs is cut off this long before the deadline. */
const STEP_RESERVE_MS = 1000;

/** Why a step produced no output, as the answer's `warnings` report it. */
function stepFailure(step: string, reason: 'threw' | 'timeout' | 'not-json', detail: string): Extraction['warnings'][number] {
  const what = reason === 'timeout' ? 'did not finish in time' : reason === 'not-json' ? 'returned a value that is not JSON' : `failed: ${detail}`;
  return { plugin: step, code: 'EPLUGIN', message: `The ${step} output ${what}`, reason };
}

/**
 * Runs the steps in registry order. Each is contained: one that throws, hangs past its share of the time, or
 * returns something that is not JSON leaves its output null with an EPLUGIN warning, and the rest of the answer
 * stands. Coded errors (a bad rule, a forbidden URL) still fail the request, as does the request's own timeout.
 */
async function runSteps(plan: Plan, deps: PipelineDeps, ctx: Context, warnings: Extraction['warnings'], deadline: number): Promise<Record<string, unknown>> {
  const { data } = ctx;
  for (const step of plan.steps) {
    const plugin = deps.registry.get(step.name)!;
    if (ctx.signal.aborted) throw new RefractError('ETIMEOUT', 'The request reached its timeout');
    const left = deadline - STEP_RESERVE_MS - performance.now();
    const stepSignal = AbortSignal.any([ctx.signal, AbortSignal.timeout(Math.max(1, Math.floor(left)))]);
    // The step sees its own signal; everything else (the lazy document included) comes from the request's context.
    const cutoff = deadline - STEP_RESERVE_MS;
    const stepCtx = Object.create(ctx, { signal: { value: stepSignal }, timeLeft: { value: () => Math.max(0, cutoff - performance.now()) } }) as Context;
    try {
      const result = await untilAborted(Promise.resolve(plugin.run(stepCtx, step.opts)), stepSignal);
      let json: string | undefined;
      try { json = JSON.stringify(result); } catch { json = undefined; }
      if (result !== undefined && result !== null && json === undefined) {
        warnings.push(stepFailure(step.name, 'not-json', ''));
        if (!plugin.merge) data[step.name] = null;
        continue;
      }
      if (plugin.merge && result && typeof result === 'object') Object.assign(data, result);
      else data[step.name] = result ?? null;
    } catch (err) {
      if (ctx.signal.aborted) throw err instanceof RefractError && err.code === 'ETIMEOUT' ? err : new RefractError('ETIMEOUT', 'The request reached its timeout', { cause: err });
      if (stepSignal.aborted) {
        deps.logger.warn(`plugin ${step.name} timed out`, { url: plan.url });
        warnings.push(stepFailure(step.name, 'timeout', ''));
        if (!plugin.merge) data[step.name] = null;
        continue;
      }
      if (err instanceof RefractError) throw err;
      deps.logger.error(`plugin ${step.name} failed`, err);
      warnings.push(stepFailure(step.name, 'threw', (err as Error)?.message ?? String(err)));
      // A merged output (metadata, rules) adds no key of its own; any other output is there, as null.
      if (!plugin.merge) data[step.name] = null;
    }
  }
  return data;
}

function contextFor(plan: Plan, deps: PipelineDeps, response: FetchResult, signal: AbortSignal, page?: Page, pageOpenedAt?: number, document?: CheerioAPI): Context {
  let parsed: CheerioAPI | undefined = document;
  return {
    url: response.url,
    response,
    get $() {
      parsed ??= response.kind === 'html' || response.kind === 'text' ? parseHtml(response.text, response.url) : load('');
      return parsed;
    },
    page,
    pageOpenedAt,
    store: (bytes, type) => deps.assets.put(bytes, type),
    fetchBytes: async (url, kind) => {
      const res = await lightGet(url, { guard: deps.guard, signal, maxBytes: deps.maxBodyBytes }).catch(() => undefined);
      if (!res || res.statusCode >= 400 || res.truncated || (kind && res.kind !== kind)) return undefined;
      return res.body;
    },
    options: plan.options,
    probe: createProber({ guard: deps.guard, signal, timeoutMs: deps.probeTimeoutMs }),
    signal,
    warn: (message) => deps.logger.warn(message, { url: plan.url }),
    data: {},
    // Each step gets its own clock in runSteps; outside a step the whole timeout is the bound.
    timeLeft: () => plan.options.timeout,
    guard: deps.guard,
    config: deps.config,
    isAsset: (url) => deps.assets.nameOf(url) !== undefined,
    readAsset: async (url) => {
      const name = deps.assets.nameOf(url);
      return name ? (await deps.assets.get(name))?.bytes : undefined;
    },
  };
}

/** The page's links (absolute http(s), no fragments, each once), for crawls that follow them. */
function linksOf(ctx: Context): string[] {
  if (ctx.response.kind !== 'html') return [];
  const out = new Set<string>();
  for (const el of ctx.$('a[href]').toArray()) {
    try {
      const url = new URL((el as { attribs: Record<string, string> }).attribs.href!, ctx.url);
      url.hash = '';
      if (url.protocol === 'http:' || url.protocol === 'https:') out.add(url.href);
    } catch { /* not a link */ }
  }
  return [...out];
}

function finish(data: Record<string, unknown>, response: FetchResult): Record<string, unknown> {
  data.url ??= response.url;
  data.statusCode = response.statusCode;
  data.headers = response.headers;
  data.redirects = response.redirects;
  return data;
}

/** Runs the whole plan in one browser page: navigate once, then every step on the live page. */
async function inBrowser(plan: Plan, deps: PipelineDeps, lease: Lease, signal: AbortSignal, budgetMs: number, started: number) {
  try {
    return await inBrowserDirect(plan, deps, lease, signal, budgetMs, started);
  } catch (err) {
    throw proxyFailure(err, lease.proxyUrl);
  }
}

async function inBrowserDirect(plan: Plan, deps: PipelineDeps, lease: Lease, signal: AbortSignal, budgetMs: number, started: number) {
  const setup = pageSetupOf(plan, deps.registry);
  return deps.browsers.withPage(contextOptions(setup), lease.proxyUrl, signal, async (page) => {
    const openedAt = performance.now();
    await guardRequests(page, deps.guard, setup.adblock);
    const consent = setup.adblock ? await dismissConsent(page) : undefined;
    const response = await navigate(page, plan.url, setup, budgetMs);
    await consent?.(CONSENT_CAP_MS);
    const needsDocument = plan.steps.some((s) => needOf(deps.registry.get(s.name)!, s.opts) !== 'browser');
    const result = await browserResult(page, response, needsDocument || !!plan.collectLinks);
    checkChallenge(result, lease);
    const fetchTimeMs = Math.round(performance.now() - started);
    const warnings: Extraction['warnings'] = [];
    const ctx = contextFor(plan, deps, result, signal, page, openedAt);
    const data = await runSteps(plan, deps, ctx, warnings, started + plan.options.timeout);
    return { data: finish(data, result), fetchTimeMs, warnings, ...(plan.collectLinks ? { links: linksOf(ctx) } : {}) };
  }, plan.options.retry ?? 1, plan.shareContext);
}

/**
 * Runs a plan. Browser outputs navigate once and run every step on the live page. Otherwise the target is
 * fetched over HTTP, and with `prerender=auto` a page that builds its content in the browser is rendered
 * (within the prerender budget, falling back to the fetched HTML when rendering fails).
 */
export async function runPlan(plan: Plan, deps: PipelineDeps, lease: Lease): Promise<Extraction> {
  const signal = AbortSignal.timeout(plan.options.timeout);
  const started = performance.now();
  const host = new URL(plan.url).hostname;
  if (plan.needs === 'browser') {
    const out = await inBrowser(plan, deps, lease, signal, plan.options.timeout, started);
    return { ...out, fetchMode: 'prerender', prerenderReason: 'an output needs the browser' };
  }
  const wantRender = plan.options.prerender === true || (plan.options.prerender === 'auto' && !plan.options.htmlUrl && deps.hosts.prefersBrowser(host));
  let response: FetchResult | undefined;
  let reason = plan.options.prerender === true ? 'prerender=true' : 'host learned to need a browser';
  if (!wantRender) {
    response = await fetchFor(plan, deps, lease, signal);
    checkChallenge(response, lease);
    if (plan.options.prerender === 'auto' && !plan.options.htmlUrl && response.kind === 'html') {
      const document = parseHtml(response.text, response.url);
      const verdict = needsBrowser(document);
      deps.hosts.record(host, verdict.browser);
      reason = verdict.reason;
      // The document parsed for the verdict is the one the steps read: one parse per request.
      if (!verdict.browser) return fromFetch(plan, deps, response, signal, started, reason, document);
    } else {
      return fromFetch(plan, deps, response, signal, started, plan.options.prerender === false ? 'prerender=false' : 'not an HTML page');
    }
  }
  try {
    const budget = Math.min(deps.prerenderBudgetMs, plan.options.timeout);
    const out = await inBrowser(plan, deps, lease, AbortSignal.any([signal, AbortSignal.timeout(budget + 2000)]), budget, started);
    return { ...out, fetchMode: 'prerender', prerenderReason: reason };
  } catch (err) {
    if (err instanceof RefractError && err.code !== 'EBRWSRTIMEOUT' && err.code !== 'ETIMEOUT') throw err;
    // Rendering failed or passed its budget: the plain fetch answers, as the contract says.
    deps.logger.warn('prerender failed, falling back to fetch', { url: plan.url, error: (err as Error).message });
    response ??= await fetchFor(plan, deps, lease, signal);
    return fromFetch(plan, deps, response, signal, started, `prerender failed (${(err as Error).message.split('\n')[0]}); fetched`);
  }
}

async function fromFetch(plan: Plan, deps: PipelineDeps, response: FetchResult, signal: AbortSignal, started: number, reason: string, document?: CheerioAPI): Promise<Extraction> {
  const fetchTimeMs = Math.round(performance.now() - started);
  const warnings: Extraction['warnings'] = [];
  const ctx = contextFor(plan, deps, response, signal, undefined, undefined, document);
  const data = await runSteps(plan, deps, ctx, warnings, started + plan.options.timeout);
  return { data: finish(data, response), fetchMode: 'fetch', fetchTimeMs, prerenderReason: reason, warnings, ...(plan.collectLinks ? { links: linksOf(ctx) } : {}) };
}
