import type { Page, Response } from 'playwright-core';
import { readsDocument } from '../plan/plugin.ts';
import type { Plan } from '../plan/plan.ts';
import type { Registry } from '../plan/registry.ts';
import type { Lease } from './queue.ts';
import { fromNetwork, throughProxy } from '../kernel/failures.ts';
import { kindOf, type FetchResult } from '../fetch/http.ts';
import { encodingOf, sniffCharset, validCharset } from '../fetch/charset.ts';
import { lightGet } from '../fetch/light.ts';
import { refuseChallenge } from '../fetch/antibot.ts';
import { answer } from './steps.ts';
import { untilAborted } from '../kernel/deadline.ts';
import type { Extraction, Services, Warning } from './extraction.ts';
import {
  contextOptions,
  guardContext,
  navigate,
  onErrorPage,
  resetPage,
  selfNavigationFailure,
  type PageSetup,
} from '../browser/page.ts';
import { readContent, still, untilBuilt } from '../browser/settle.ts';
import type { Preparation } from '../browser/browsers.ts';
import type { Trace } from '../kernel/timing.ts';

const CONSENT_CAP_MS = 3000;
/** How long a page that navigates itself may take to come to rest before it is read. */
const NAVIGATION_SETTLE_MS = 5000;
/** The share of a browser output's time that navigation may take before loading is stopped and the page captured. */
const NAVIGATION_SHARE = 0.6;
/**
 * What a capture keeps of the request's time when the page's document has not even arrived by navigation's share:
 * it is waited for until then (a slow server's answer is still taken), and a document that arrives is captured.
 */
const CAPTURE_RESERVE_SHARE = 0.15;
const CAPTURE_RESERVE_MAX_MS = 2000;

/** How a plan is rendered: read once built (`prerender=auto` chose the browser), captured as rendered when loading does not finish. */
export interface RenderHow {
  buildsItself?: boolean;
  capturePartial?: boolean;
}

/** The longest wait for a page that builds itself to have built its content. */
const BUILD_CAP_MS = 3000;

/**
 * What a page needs before it navigates: the SSRF guard on every request of its context and, with `adblock`, the
 * ad filters and the cookie-banner handler. A warm page of the same key was prepared the same way.
 */
function preparationOf(adblock: boolean, services: Services, transparent: boolean): Preparation {
  return {
    key: `${adblock ? 'guard+adblock' : 'guard'}${transparent ? '+transparent' : ''}`,
    async run(page) {
      await guardContext(page.context(), services.guard, adblock ? services.adblock : undefined);
      if (adblock) await services.adblock.prepareConsent(page.context());
    },
    async reset(page, options) {
      if (!(await resetPage(page, options.viewport))) return false;
      services.adblock.forget(page);
      return true;
    },
  };
}

/** The page controls of a request, with what its steps add (a device given to `screenshot`, say). */
export function pageSetupOf(plan: Plan, registry: Registry): PageSetup {
  const o = plan.options;
  let setup: PageSetup = {
    device: o.device,
    viewport: o.viewport,
    colorScheme: o.colorScheme,
    mediaType: o.mediaType,
    animations: o.animations,
    javascript: o.javascript,
    userAgent: o.userAgent,
    headers: o.headers,
    click: o.click,
    scroll: o.scroll,
    scripts: o.scripts,
    styles: o.styles,
    modules: o.modules,
    waitUntil: o.waitUntil,
    waitForSelector: o.waitForSelector,
    waitForTimeout: o.waitForTimeout,
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

/** The navigation's outcome as a FetchResult: what the steps read, whichever way the page came. */
async function browserResult(
  page: Page,
  response: Response | null,
  needsDocument: boolean,
  budgetMs: number,
): Promise<FetchResult> {
  const headers = response ? await response.allHeaders() : {};
  const contentType = headers['content-type'] ?? 'text/html';
  const kind = kindOf(contentType);
  const status = response?.status() ?? 200;
  // A text target (JSON, XML...) keeps its own bytes; a page is read as the browser rendered it, and only when a
  // step reads the document or the answer may be a challenge page (serializing a large DOM costs milliseconds).
  const text =
    kind === 'text' && response
      ? await response.text().catch(() => readContent(page, budgetMs))
      : needsDocument || status >= 400 || /cloudflare/i.test(headers.server ?? '')
        ? await readContent(page, budgetMs)
        : '';
  const body = Buffer.from(text);
  return {
    url: page.url(),
    statusCode: status,
    headers,
    redirects: await redirectsOf(response),
    contentType,
    kind,
    body,
    size: body.length,
    text,
    truncated: false,
  };
}

/**
 * When a page's Content-Type names no charset the browser knows, the browser falls back on windows-1252 while the
 * fetch path sniffs (BOM, `<meta>`, then UTF-8): the same page got two titles. Answers the same bytes relabelled
 * with the fetch path's charset when the two differ, else undefined. Pages with a valid label (most) cost nothing;
 * others one evaluation, and the body when the browser fell back.
 */
async function decodingOf(
  page: Page,
  response: Response | null,
  services: Services,
  signal: AbortSignal,
): Promise<{ url: string; answer: { status: number; headers: Record<string, string>; body: Buffer } } | undefined> {
  if (!response || page.url() !== response.url()) return undefined;
  const headers = await response.allHeaders();
  const type = headers['content-type'] ?? '';
  if (kindOf(type) !== 'html' || validCharset(type)) return undefined;
  const chosen = encodingOf(String(await page.evaluate('document.characterSet').catch(() => 'UTF-8')));
  if (chosen !== 'windows-1252') return undefined;
  // ASCII reads the same either way. (The browser's copy of the body is its decoded text or the bytes, depending
  // on the label, so the bytes themselves are fetched again, through the guard, only when they may differ.)
  const seen = await response.body().catch(() => undefined);
  if (!seen || seen.every((byte) => byte < 0x80)) return undefined;
  const raw = await lightGet(response.url(), {
    signal,
    maxBytes: services.maxBodyBytes,
    guard: services.guard,
    agents: services.agents,
  }).catch(() => undefined);
  if (!raw || raw.truncated || raw.kind !== 'html') return undefined;
  const ours = sniffCharset(raw.body, type);
  if (ours === chosen) return undefined;
  const relabelled = `${type.replace(/;\s*charset\s*=[^;]*/i, '') || 'text/html'}; charset=${ours}`;
  return {
    url: response.url(),
    answer: { status: response.status(), headers: { ...headers, 'content-type': relabelled }, body: raw.body },
  };
}

/**
 * What the guard's forward proxy (proxy-chain, between the browser and the network: browser/guard-proxy.ts)
 * answers for a target it could not reach, with its reason phrases: the failure is the target's, as on the fetch path.
 */
const UNREACHED: Record<number, [string, string]> = {
  593: ['Not Found', 'ENOTFOUND'],
  594: ['Connection Refused', 'ECONNREFUSED'],
  595: ['Connection Reset', 'ECONNRESET'],
  596: ['Broken Pipe', 'EPIPE'],
  599: ['Generic Error', 'upstream error'],
};

/** Throws as the fetch path would when the document's answer is the forwarding proxy saying the target was not reached. */
function unreached(response: Response | null, url: string, signal: AbortSignal): void {
  const known = response && UNREACHED[response.status()];
  if (!known || response!.statusText() !== known[0]) return;
  const err = Object.assign(new Error(`${known[1]} (the browser's proxy answered ${response!.status()})`), {
    code: known[1],
  });
  throw fromNetwork(err, signal, url);
}

/**
 * Runs the whole plan in one browser page: navigate once (SSRF guard, ad blocking and banner handling set up
 * first), then every step on the live page. `budgetMs` bounds the navigation; the steps share the request's time.
 */
export async function renderPlan(
  plan: Plan,
  services: Services,
  lease: Lease,
  signal: AbortSignal,
  budgetMs: number,
  trace: Trace,
  how: RenderHow = {},
): Promise<Omit<Extraction, 'fetchMode'>> {
  const { buildsItself = false, capturePartial = false } = how;
  // Capturing what is rendered when loading does not finish: navigation gets its share of the time, the rest
  // is left to the steps.
  const navigationMs = capturePartial ? Math.max(1000, Math.round(budgetMs * NAVIGATION_SHARE)) : budgetMs;
  const documentMs = capturePartial
    ? Math.max(navigationMs, budgetMs - Math.min(CAPTURE_RESERVE_MAX_MS, Math.round(budgetMs * CAPTURE_RESERVE_SHARE)))
    : budgetMs;
  let stopped: Warning | undefined;
  const onStopped = capturePartial
    ? (ms: number) => {
        stopped = {
          plugin: 'navigation',
          code: 'EBRWSRTIMEOUT',
          message: `The page did not finish loading within ${ms} ms: loading was stopped and the page captured as rendered`,
          reason: 'timeout',
        };
      }
    : undefined;
  const setup = pageSetupOf(plan, services.registry);
  const needsDocument =
    !!plan.collectLinks || plan.steps.some((s) => readsDocument(services.registry.get(s.name)!, s.opts));
  const opening = performance.now();
  try {
    return await services.browsers.withPage(
      contextOptions(setup),
      lease.proxyUrl,
      signal,
      (page) =>
        untilAborted(async () => {
          const openedAt = performance.now();
          trace.mark('page', opening);
          // Without JavaScript no consent manager runs (and the page's timers never fire): there is nothing to answer.
          const consent =
            setup.adblock && setup.javascript !== false
              ? () => trace.time('consent', () => services.adblock.settleConsent(page, CONSENT_CAP_MS))
              : undefined;
          let response = await trace.time('navigate', () =>
            navigate(page, plan.url, setup, navigationMs, consent, services.browsers, onStopped, documentMs),
          );
          unreached(response, plan.url, signal);
          // Decoded as the fetch path decodes it; when the browser chose otherwise, the page is loaded again once.
          // (Through a proxy, the bytes are not fetched again around it: the browser's decoding stands.)
          const relabel = lease.proxyUrl ? undefined : await decodingOf(page, response, services, signal);
          if (relabel) {
            services.adblock.forget(page);
            const first = response;
            await page.route(relabel.url, (route) => route.fulfill(relabel.answer), { times: 1 });
            try {
              await trace.time('navigate', () =>
                navigate(page, relabel.url, setup, navigationMs, consent, services.browsers, onStopped, documentMs),
              );
            } finally {
              await page.unroute(relabel.url).catch(() => undefined);
            }
            response = first;
          }
          // A page that builds itself (why `prerender=auto` chose the browser) is read once it has built its content.
          // Without JavaScript nothing builds (and the page's timers never fire).
          if (buildsItself && setup.javascript !== false)
            await trace.time('build', () => untilBuilt(page, Math.min(BUILD_CAP_MS, budgetMs)));
          // The content and the steps work on this document: navigations the page starts from now on are refused
          // (user code that navigates is the exception, and is bounded by its own deadline). Held still before the
          // content is read: a late script's navigation could otherwise land between the check below and the read.
          if (!plan.steps.some((s) => services.registry.get(s.name)?.navigates)) still(page);
          const result = await trace.time('content', () =>
            browserResult(page, response, needsDocument, Math.min(budgetMs, NAVIGATION_SETTLE_MS)),
          );
          // A navigation of the page's own that failed after the checks of navigate (a late refresh, or one that landed
          // while the content was read) leaves the browser's error page: never an answer (no `chrome-error://` URL, no
          // title made of a refused host).
          if (result.url.startsWith('chrome-error://') || onErrorPage(page))
            throw selfNavigationFailure(page, undefined, services.browsers);
          refuseChallenge(result, lease.session);
          const out = await answer(plan, services, result, signal, trace, { page, openedAt });
          return stopped ? { ...out, warnings: [stopped, ...out.warnings] } : out;
          // Whatever hangs in the page (an evaluation whose timers never fire, say), the request ends at its deadline:
          // the page is closed behind it.
        }, signal),
      plan.options.retry ?? 1,
      plan.shareContext,
      preparationOf(!!setup.adblock, services, !!setup.transparent),
    );
  } catch (err) {
    throw throughProxy(err, lease.proxyUrl);
  }
}
