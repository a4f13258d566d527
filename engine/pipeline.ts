import { load } from 'cheerio';
import { parseHtml } from './html.ts';
import { RefractError } from './errors.ts';
import type { Context } from './plugin.ts';
import type { Plan } from './plan.ts';
import type { Registry } from './registry.ts';
import { createGuard, type Guard } from './fetch/guard.ts';
import type { Lease } from './run.ts';
import { fetchTarget, type FetchResult } from './fetch/http.ts';
import { createProber } from './fetch/probe.ts';
import { detectChallenge } from './fetch/antibot.ts';

/** The outcome of a plan: the Data object and how it was obtained. */
export interface Extraction {
  data: Record<string, unknown>;
  fetchMode: string;
  fetchTimeMs: number;
  warnings: { plugin: string; code: string; message: string }[];
}

/** What the pipeline needs besides the plan. */
export interface PipelineDeps {
  registry: Registry;
  guard: Guard;
  maxBodyBytes: number;
  probeTimeoutMs: number;
  logger: { warn(msg: string, extra?: unknown): void; error(msg: string, extra?: unknown): void };
}

// The test hook reads its HTML from a loopback copy; the plan admitted only loopback hosts for it.
const LOOPBACK_GUARD = createGuard(['127.0.0.0/8', '::1']);

function emptyDocument(): Context['$'] {
  return load('');
}

async function fetchFor(plan: Plan, deps: PipelineDeps, lease: Lease, signal: AbortSignal): Promise<FetchResult> {
  const source = plan.options.htmlUrl ?? plan.url;
  const response = await fetchTarget(source, {
    guard: plan.options.htmlUrl ? LOOPBACK_GUARD : deps.guard, signal, maxBytes: deps.maxBodyBytes, headers: plan.options.headers,
    userAgent: plan.options.userAgent, proxyUrl: lease.proxyUrl, sessionToken: lease.session,
  });
  // In test-hook mode the HTML comes from a loopback copy, but the document keeps its declared address.
  return plan.options.htmlUrl ? { ...response, url: plan.url, redirects: [] } : response;
}

/**
 * Runs a plan: fetches the target, parses it once, and runs each step in plan order. A step that throws a
 * RefractError fails the request (its code is the answer); any other failure is contained to that output.
 */
export async function runPlan(plan: Plan, deps: PipelineDeps, lease: Lease): Promise<Extraction> {
  const signal = AbortSignal.timeout(plan.options.timeout);
  const started = performance.now();
  const response = await fetchFor(plan, deps, lease, signal);
  const fetchTimeMs = Math.round(performance.now() - started);
  const provider = response.kind === 'html' || response.kind === 'text' ? detectChallenge(response) : undefined;
  if (provider) {
    // A challenge page must never come back as metadata; the session that met it is burnt.
    lease.session?.retire();
    throw new RefractError('EPROXYNEEDED', `The target is protected by ${provider} and answered with a bot challenge; the pro endpoint retries through a proxy`, { data: { provider, statusCode: response.statusCode } });
  }
  let parsed: Context['$'] | undefined;
  const warnings: Extraction['warnings'] = [];
  const ctx: Context = {
    url: response.url,
    response,
    get $() {
      parsed ??= response.kind === 'html' || response.kind === 'text' ? parseHtml(response.text, response.url) : emptyDocument();
      return parsed;
    },
    options: plan.options,
    probe: createProber({ guard: deps.guard, signal, timeoutMs: deps.probeTimeoutMs }),
    signal,
    warn: (message) => deps.logger.warn(message, { url: plan.url }),
  };
  const data: Record<string, unknown> = {};
  for (const step of plan.steps) {
    const plugin = deps.registry.get(step.name)!;
    if (signal.aborted) throw new RefractError('ETIMEOUT', 'The request reached its timeout');
    try {
      const result = await plugin.run(ctx, step.opts);
      if (plugin.merge && result && typeof result === 'object') Object.assign(data, result);
      else data[step.name] = result ?? null;
    } catch (err) {
      if (err instanceof RefractError) throw err;
      deps.logger.error(`plugin ${step.name} failed`, err);
      warnings.push({ plugin: step.name, code: 'EPLUGIN', message: `The ${step.name} output failed: ${(err as Error).message}` });
      data[step.name] = null;
    }
  }
  data.url ??= response.url;
  data.statusCode = response.statusCode;
  data.headers = response.headers;
  data.redirects = response.redirects;
  return { data, fetchMode: 'fetch', fetchTimeMs, warnings };
}
