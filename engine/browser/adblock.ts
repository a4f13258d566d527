import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FiltersEngine, Request } from '@ghostery/adblocker';
import { filterCompactRules } from '@duckduckgo/autoconsent';
import type { BrowserContext, Frame, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
// Detection retries every 500 ms or so: a banner that shows after the first pass is still answered while the page
// lives (and hidden meanwhile by autoconsent's prehide styles), but nobody waits for it.
const DETECT_RETRIES = 4;
/** How long after navigation the first detection pass may take to start (it runs when the page is first idle). */
const FIRST_PASS_CAP_MS = 1000;
/** How long a consent manager found on the page may take to show its popup before the wait gives up on it. */
const POPUP_CAP_MS = 1000;
/** The init answer for a frame: config and the rules that apply to its URL (memoized per origin and frame kind). */
function initMessage(initMessages: Map<string, string>, compactRules: unknown, url: string, mainFrame: boolean): string {
  let origin = url;
  try { origin = new URL(url).origin; } catch { /* about:blank and the like */ }
  const key = `${mainFrame}:${origin}`;
  let message = initMessages.get(key);
  if (!message) {
    const rules = { compact: filterCompactRules(compactRules as never, { url, mainFrame }) };
    // The script runs in the page's main world (Playwright's init scripts do), so rule snippets are evaluated
    // in place rather than sent here and back.
    const config = { enabled: true, autoAction: 'optOut', disabledCmps: [], enablePrehide: true, detectRetries: DETECT_RETRIES, enableCosmeticRules: true, isMainWorld: true };
    message = `autoconsentReceiveMessage({ type: "initResp", config: ${JSON.stringify(config)}, rules: ${JSON.stringify(rules)} })`;
    if (initMessages.size > 500) initMessages.clear();
    initMessages.set(key, message);
  }
  return message;
}
/** How long a consent manager's element on the page may take to be detected by a later pass (~500 ms apart). */
const LATE_DETECT_CAP_MS = 1200;
/**
 * In the page, once the tasks queued before it ran: whether an element of a known consent manager is in the DOM
 * (autoconsent's prehide style lists their selectors), as when a banner appeared after the first detection pass.
 */
const CMP_PRESENT = `new Promise((resolve) => setTimeout(() => {
  const text = document.getElementById('autoconsent-prehide')?.textContent ?? '';
  const found = (list) => { try { return !!document.querySelector(list); } catch { return list.includes(',') && list.split(',').some(found); } };
  resolve(text.split('}').map((rule) => rule.split('{')[0].trim()).filter(Boolean).some(found));
}, 0))`;
const TERMINAL = new Set(['nothingDetected', 'optOutSucceeded', 'optOutFailed', 'optInSucceeded', 'optInFailed', 'done']);

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

/** What autoconsent has told about one page so far. */
interface Watch {
  /** The main frame's script asked for its rules (it runs: JavaScript is on and the target is a page). */
  mainInit: boolean;
  /** The main frame's rules, held back until the page has loaded and settled (see settleConsent). */
  answerInit?: () => Promise<void>;
  /** The main frame's first detection pass has started. */
  firstPass: boolean;
  detectedAt?: number;
  popup: boolean;
  finished: boolean;
  wake?: () => void;
}

/** An autoconsent message, as far as it is read here (anything else a page might send is ignored). */
interface Message { type?: unknown; state?: { lifecycle?: unknown; findCmpAttempts?: unknown } }

/** An engine's ad blocker and cookie-banner handler; filters and rules load on first use, once per engine. */
export interface Adblock {
  /** True when an ad or tracker filter matches this subrequest of the page. */
  isBlocked(url: string, resourceType: string, pageUrl: string): boolean;
  /**
   * Makes the pages of a context answer cookie banners with DuckDuckGo's autoconsent: its content script runs in
   * every frame and opts out of tracking wherever it finds a consent manager. Once per context, before navigation.
   */
  prepareConsent(context: BrowserContext): Promise<void>;
  /**
   * Waits, after navigation, only as long as a banner is being answered: a page whose first detection pass finds no
   * consent manager is not waited for; one with a manager is, until the opt-out ends (at most `capMs`).
   */
  settleConsent(page: Page, capMs: number): Promise<void>;
  /** Forgets what the consent handler saw on a page (before the page serves another request). */
  forget(page: Page): void;
}

export function createAdblock(): Adblock {
  let filters: FiltersEngine | undefined;
  let consent: { script: string; rules: unknown } | undefined;
  const initMessages = new Map<string, string>();
  const prepared = new WeakSet<BrowserContext>();
  const watches = new WeakMap<Page, Watch>();
  const watchOf = (page: Page): Watch => {
    let w = watches.get(page);
    if (!w) watches.set(page, w = { mainInit: false, firstPass: false, popup: false, finished: false });
    return w;
  };

  async function onMessage(page: Page, frame: Frame, msg: Message): Promise<void> {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    const w = watchOf(page);
    const mainFrame = frame === page.mainFrame();
    switch (msg.type) {
      case 'init': {
        const answer = () => frame.evaluate(initMessage(initMessages, consent!.rules, frame.url(), mainFrame)).then(() => undefined, () => undefined);
        // Frames start at once; the main frame starts when settleConsent asks (it was waiting for the page).
        if (!mainFrame) await answer();
        else {
          w.mainInit = true;
          w.answerInit = answer;
        }
        break;
      }
      case 'report':
        if (!mainFrame) break;
        if (Number(msg.state?.findCmpAttempts) >= 1) w.firstPass = true;
        if (TERMINAL.has(String(msg.state?.lifecycle))) w.finished = true;
        break;
      case 'cmpDetected':
        w.detectedAt ??= performance.now();
        break;
      case 'popupFound':
        w.popup = true;
        break;
      case 'optOutResult':
      case 'autoconsentDone':
        w.finished = true;
        break;
    }
    w.wake?.();
  }

  /** A page evaluation that answers false at `at` (a page whose timers never fire must not hold the request). */
  function bounded(work: Promise<unknown>, at: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), Math.max(0, at - performance.now())); });
    return Promise.race([work.then((v) => v === true, () => false), late]).finally(() => clearTimeout(timer));
  }

  /** Resolves once `done()` holds or at `until` (performance.now() time), re-checking on every message. */
  async function until(w: Watch, done: () => boolean, at: number): Promise<void> {
    while (!done() && performance.now() < at) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, Math.min(100, at - performance.now())));
        w.wake = () => { clearTimeout(timer); resolve(); };
      });
      w.wake = undefined;
    }
  }

  return {
    isBlocked(url, resourceType, pageUrl) {
      if (resourceType === 'document' && url === pageUrl) return false;
      filters ??= loadFilters();
      return filters.match(Request.fromRawDetails({ url, sourceUrl: pageUrl, type: (TYPES[resourceType] ?? 'other') as never })).match;
    },
    async prepareConsent(context) {
      if (prepared.has(context)) return;
      prepared.add(context);
      consent ??= loadConsent();
      await context.exposeBinding('autoconsentSendMessage', ({ page, frame }: { page: Page; frame: Frame }, msg: Message) => onMessage(page, frame, msg));
      await context.addInitScript({ content: consent.script });
    },
    forget(page) {
      watches.delete(page);
    },
    async settleConsent(page, capMs) {
      const w = watches.get(page);
      // No script in the main frame (JavaScript off, a text target): nothing to answer.
      if (!w?.mainInit) return;
      const start = performance.now();
      const end = start + capMs;
      // Detection starts now, on the loaded and settled page: consent managers show their banners late (after
      // their scripts and config load), and a first pass made earlier would miss the banner and leave it to later
      // passes, 500 ms apart, that nobody waits for.
      await bounded(w.answerInit?.() ?? Promise.resolve(), end);
      w.answerInit = undefined;
      await until(w, () => w.firstPass || w.detectedAt !== undefined || w.finished, Math.min(end, start + FIRST_PASS_CAP_MS));
      // The pass runs as one task: a task queued behind it in the page ends after it, with its messages delivered.
      // A banner shown after that pass (consent managers load late) is still there: a later pass will find it.
      if (w.detectedAt === undefined && !w.finished && await bounded(page.mainFrame().evaluate(CMP_PRESENT), end)) {
        await until(w, () => w.detectedAt !== undefined || w.finished, Math.min(end, performance.now() + LATE_DETECT_CAP_MS));
      }
      if (w.detectedAt === undefined || w.finished) return;
      // A consent manager is on the page: wait while its popup shows and is answered.
      await until(w, () => w.finished || (!w.popup && performance.now() - w.detectedAt! > POPUP_CAP_MS), end);
    },
  };
}
