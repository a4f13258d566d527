import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FiltersEngine, Request } from '@ghostery/adblocker';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { Frame, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
// Detection retries every 500 ms or so; a banner that shows later than this is missed (the wait is bounded).
const DETECT_RETRIES = 4;
const FIRST_PASS_MS = 300;
/** The init answer for a frame: config and the rules that apply to its URL (memoized per origin and frame kind). */
function initMessage(initMessages: Map<string, string>, compactRules: unknown, url: string, mainFrame: boolean): string {
  let origin = url;
  try { origin = new URL(url).origin; } catch { /* about:blank and the like */ }
  const key = `${mainFrame}:${origin}`;
  let message = initMessages.get(key);
  if (!message) {
    const rules = { compact: filterCompactRules(compactRules as never, { url, mainFrame }) };
    const config = { enabled: true, autoAction: 'optOut', disabledCmps: [], enablePrehide: true, detectRetries: DETECT_RETRIES, enableCosmeticRules: true };
    message = `autoconsentReceiveMessage({ type: "initResp", config: ${JSON.stringify(config)}, rules: ${JSON.stringify(rules)} })`;
    if (initMessages.size > 500) initMessages.clear();
    initMessages.set(key, message);
  }
  return message;
}
const TERMINAL = new Set(['nothingDetected', 'optOutSucceeded', 'optOutFailed', 'done']);

/** The ad and tracker filter engine, from the tracker database that ships inside `@ghostery/trackerdb` (no download). */
function loadFilters(): FiltersEngine {
  const dist = path.resolve(path.dirname(require.resolve('@ghostery/trackerdb')), '..');
  return FiltersEngine.parse(readFileSync(path.join(dist, 'trackerdb.txt'), 'utf8'));
}

/** DuckDuckGo autoconsent's content script and compact rules (shipped in the package). */
function loadConsent(): { script: string; rules: unknown } {
  const dist = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  return {
    script: readFileSync(path.join(dist, 'autoconsent.playwright.js'), 'utf8'),
    rules: JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8')),
  };
}

const TYPES: Record<string, string> = {
  document: 'sub_frame', stylesheet: 'stylesheet', image: 'image', media: 'media', font: 'font', script: 'script',
  xhr: 'xhr', fetch: 'xhr', websocket: 'websocket', ping: 'ping', other: 'other',
};

/** An engine's ad blocker and cookie-banner handler; filters and rules load on first use, once per engine. */
export interface Adblock {
  /** True when an ad or tracker filter matches this subrequest of the page. */
  isBlocked(url: string, resourceType: string, pageUrl: string): boolean;
  /**
   * Dismisses cookie banners with DuckDuckGo's autoconsent: the content script runs in every frame and asks the
   * page to opt out of tracking. Resolves with a wait (bounded by its cap) for the opt-out to finish.
   */
  dismissConsent(page: Page): Promise<(capMs: number) => Promise<void>>;
}

export function createAdblock(): Adblock {
  let filters: FiltersEngine | undefined;
  let consent: { script: string; rules: unknown } | undefined;
  const initMessages = new Map<string, string>();
  return {
    isBlocked(url, resourceType, pageUrl) {
      if (resourceType === 'document' && url === pageUrl) return false;
      filters ??= loadFilters();
      return filters.match(Request.fromRawDetails({ url, sourceUrl: pageUrl, type: (TYPES[resourceType] ?? 'other') as never })).match;
    },
    dismissConsent(page) {
      consent ??= loadConsent();
      return dismissConsent(page, consent, initMessages);
    },
  };
}

async function dismissConsent(page: Page, consent: { script: string; rules: unknown }, initMessages: Map<string, string>): Promise<(capMs: number) => Promise<void>> {
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => { finished = resolve; });
  let detected = false;
  let initAt: number | undefined;
  await page.exposeBinding('autoconsentSendMessage', async ({ frame }: { frame: Frame }, msg: { type: string; id?: string; code?: string; mainFrame?: boolean; state?: { lifecycle?: string } }) => {
    if (msg.type === 'init') {
      const mainFrame = frame.parentFrame() === null;
      await frame.evaluate(initMessage(initMessages, consent.rules, frame.url(), mainFrame)).catch(() => undefined);
      if (mainFrame) initAt = performance.now();
    } else if (msg.type === 'cmpDetected' || msg.type === 'popupFound') {
      detected = true;
    } else if (msg.type === 'report' && msg.mainFrame && TERMINAL.has(msg.state?.lifecycle ?? '')) {
      finished();
    } else if (msg.type === 'optOutResult' || msg.type === 'autoconsentDone' || msg.type === 'autoconsentError') {
      finished();
    } else if (msg.type === 'eval' && msg.code) {
      const result = await frame.evaluate(msg.code).catch(() => false);
      await frame.evaluate(`autoconsentReceiveMessage({ id: ${JSON.stringify(msg.id)}, type: "evalResp", result: ${JSON.stringify(result)} })`).catch(() => undefined);
    }
  });
  await page.addInitScript({ content: consent.script });
  // After its first detection pass, a page without a banner is not waited for; one with a banner is waited
  // for (up to the cap) until the opt-out finishes.
  return async (capMs) => {
    const until = performance.now() + capMs;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
    while (initAt === undefined && performance.now() < until) await Promise.race([done, sleep(50)]);
    if (initAt !== undefined) await Promise.race([done, sleep(initAt + FIRST_PASS_MS - performance.now())]);
    if (detected) await Promise.race([done, sleep(until - performance.now())]);
  };
}
