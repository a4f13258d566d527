import type { CheerioAPI } from 'cheerio';
import { parseHtml } from '../kernel/html.ts';
import { hasCode, isRefractError, requestTimedOut } from '../kernel/errors.ts';
import type { Plan } from '../plan/plan.ts';
import type { Lease } from './queue.ts';
import type { FetchResult } from '../fetch/http.ts';
import { fetchPlanTarget } from './fetch-target.ts';
import { refuseChallenge } from '../fetch/antibot.ts';
import { needsBrowser } from '../fetch/prerender.ts';
import { renderPlan } from './render.ts';
import { answer } from './steps.ts';
import { untilAborted } from '../kernel/deadline.ts';
import { withDeadline } from '../kernel/deadline.ts';
import type { Extraction, Services } from './extraction.ts';
import type { Trace } from '../kernel/timing.ts';

/** Runs the steps on a fetched response (no browser). */
async function fromFetch(
  plan: Plan,
  services: Services,
  response: FetchResult,
  signal: AbortSignal,
  trace: Trace,
  reason: string,
  document?: CheerioAPI,
): Promise<Extraction> {
  return {
    ...(await answer(plan, services, response, signal, trace, undefined, document)),
    fetchMode: 'fetch',
    prerenderReason: reason,
  };
}

/** Whether `prerender=auto` should try the browser first: the host was learned to need one. */
function rendersFirst(plan: Plan, services: Services): boolean {
  const { prerender, htmlUrl } = plan.options;
  return (
    prerender === true ||
    (prerender === 'auto' && !htmlUrl && services.hosts.prefersBrowser(new URL(plan.url).hostname))
  );
}

/**
 * Runs a plan once (no cache). Browser outputs navigate once and run every step on the live page. Otherwise the
 * target is fetched over HTTP, and with `prerender=auto` a page that builds its content in the browser is
 * rendered (within the prerender budget, falling back to the fetched HTML when rendering fails).
 */
export async function executePlan(plan: Plan, services: Services, rotation: Lease, trace: Trace): Promise<Extraction> {
  const lease = { ...rotation, proxyUrl: await services.proxies.choose(plan.options.proxy, rotation.proxyUrl) };
  try {
    return await executeOnce(plan, services, lease, trace);
  } catch (err) {
    // On pro a bot challenge is retried once through another proxy of the pool before it is reported. (The other
    // retries: a browser that crashed under the page, `retry` times, in engine/browser/browsers.ts; a request that
    // waited on another's computation refused its quota, in lifecycle.ts.)
    const other =
      hasCode(err, 'EPROXYNEEDED') && plan.tier === 'pro' && !plan.options.proxy
        ? services.proxies.another(lease.proxyUrl)
        : undefined;
    if (!other) throw err;
    services.logger.warn('challenge page, retrying through a pool proxy', { url: plan.url });
    return executeOnce(plan, services, { ...lease, proxyUrl: other }, trace);
  }
}

async function executeOnce(plan: Plan, services: Services, lease: Lease, trace: Trace): Promise<Extraction> {
  // The deadline runs from the request's arrival (the trace's start): time spent waiting for a slot counts.
  const left = Math.max(0, Math.round(plan.options.timeout - (performance.now() - trace.started)));
  // Whatever a step, a wait or the browser does, the answer comes at the deadline (ETIMEOUT); the work left
  // behind is cut by the same signal (its page is closed, never reused).
  let deadline: AbortSignal | undefined;
  try {
    return await withDeadline(left, [], (signal) => {
      deadline = signal;
      return untilAborted(() => runPlan(plan, services, lease, trace, signal, left), signal);
    });
  } catch (err) {
    // The request's own limit was reached: the answer says which limit, and how large it was.
    if (deadline?.aborted && hasCode(err, 'ETIMEOUT')) throw requestTimedOut(plan.options.timeout, err);
    throw err;
  }
}

async function runPlan(
  plan: Plan,
  services: Services,
  lease: Lease,
  trace: Trace,
  signal: AbortSignal,
  left: number,
): Promise<Extraction> {
  if (plan.needs === 'browser') {
    // A step that reads the page as a reader sees it (user code) reads a page that builds itself once it is built,
    // as a prerender does, unless `prerender=false` says to take the page at its load.
    const buildsItself =
      plan.options.prerender !== false && plan.steps.some((s) => services.registry.get(s.name)?.readsBuilt);
    const out = await renderPlan(plan, services, lease, signal, left, trace, { capturePartial: true, buildsItself });
    return { ...out, fetchMode: 'prerender', prerenderReason: 'an output needs the browser' };
  }
  let response: FetchResult | undefined;
  let reason = plan.options.prerender === true ? 'prerender=true' : 'host learned to need a browser';
  if (!rendersFirst(plan, services)) {
    response = await trace.time('fetch', () => fetchPlanTarget(plan, services, lease, signal));
    refuseChallenge(response, lease.session);
    if (plan.options.prerender !== 'auto' || plan.options.htmlUrl || response.kind !== 'html') {
      return fromFetch(
        plan,
        services,
        response,
        signal,
        trace,
        plan.options.prerender === false ? 'prerender=false' : 'not an HTML page',
      );
    }
    const parsing = performance.now();
    const document = parseHtml(response.text, response.url);
    const verdict = needsBrowser(document);
    trace.mark('parse', parsing);
    services.hosts.record(new URL(plan.url).hostname, verdict.browser);
    reason = verdict.reason;
    // The document parsed for the verdict is the one the steps read: one parse per request.
    if (!verdict.browser) return fromFetch(plan, services, response, signal, trace, reason, document);
  }
  try {
    const budget = Math.min(services.prerenderBudgetMs, left);
    // Chosen because the page builds itself (or its host's pages do), or asked for: it is read once built, not at its
    // load event (a page with text, or without scripts, is built at once).
    const out = await withDeadline(budget + 2000, [signal], (bounded) =>
      renderPlan(plan, services, lease, bounded, budget, trace, { buildsItself: true }),
    );
    return { ...out, fetchMode: 'prerender', prerenderReason: reason };
  } catch (err) {
    // A coded failure other than a deadline (a forbidden URL, a challenge) is the answer; only rendering trouble falls back.
    if (isRefractError(err) && !hasCode(err, 'EBRWSRTIMEOUT', 'ETIMEOUT')) throw err;
    // Rendering failed or passed its budget: the plain fetch answers, as the contract says.
    services.logger.warn('prerender failed, falling back to fetch', { url: plan.url, error: (err as Error).message });
    response ??= await trace.time('fetch', () => fetchPlanTarget(plan, services, lease, signal));
    return fromFetch(
      plan,
      services,
      response,
      signal,
      trace,
      `prerender failed (${(err as Error).message.split('\n')[0]}); fetched`,
    );
  }
}
