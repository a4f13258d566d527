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
/** How long the main frame's init may take (a page busy in a loop must not hold the request). */
const INIT_CAP_MS = 1000;
/** How long learning the consent managers' selectors may take before a later page tries again. */
const LEARN_CAP_MS = 5000;
/** How long a consent manager found on the page may take to show its popup before the wait gives up on it. */
const POPUP_CAP_MS = 1000;
/** What autoconsent's content script is configured with in every frame. */
const CONFIG = JSON.stringify({ enabled: true, autoAction: 'optOut', disabledCmps: [], enablePrehide: true, detectRetries: DETECT_RETRIES, enableCosmeticRules: true, isMainWorld: true });
/** The global (set by the init script, read-only) holding the main frame's generic rules as JSON text. */
const GENERIC_RULES = 'autoconsentRefractGenericRules';
/**
 * How long autoconsent waits before it starts in a main frame where no consent manager's element was found: its
 * detection passes would otherwise run while the capture is taken (~9 ms more per screenshot on a page without a
 * banner). A banner that shows later in a page that lives on (a long wait) is still answered.
 */
const DEFERRED_START_MS = 1000;

/** What a frame's init is made of: its rules (an expression), and for a main frame what tells a consent manager. */
interface FrameInit {
  rules: string;
  /** The elements detected by rules without prehide selectors. */
  extra: readonly string[];
  /**
   * What a main frame is looked at for before autoconsent starts, as a JSON array: the selectors of the prehide
   * style autoconsent makes on the generic rules, learned once from a page of Refract's own (about:blank), never
   * from a target, which could rewrite the style before it is read; then `extra`.
   */
  selectors?: string;
  /** The learning under way (at most one). */
  learning?: Promise<void>;
}

/** What a main frame's init answers: whether a consent manager's element is there, and the prehide selectors read. */
interface InitAnswer { present?: boolean; prehide?: string[] }

const FOUND = "const found = (list) => { try { return !!document.querySelector(list); } catch { return list.includes(',') && list.split(',').some(found); } };";

/**
 * In a frame: hands autoconsent its config and rules. In the main frame it answers, once the tasks the page had
 * queued ran (a fetch's answer that shows a banner), whether an element of a known consent manager is in the DOM:
 * the selectors of autoconsent's prehide style (every rule's popup, site rules included) and `extra`. With the
 * prehide selectors known (`check`), they are looked for first and autoconsent starts at once only when one matches
 * (else after DEFERRED_START_MS); otherwise (`start`) autoconsent starts and its prehide style is read. Detection
 * runs on an idle callback: waiting for its first pass cost ~20 ms on every page, with or without a banner.
 */
function initExpression(init: FrameInit, mainFrame: boolean, mode: 'check' | 'start' = 'start'): string {
  const start = `autoconsentReceiveMessage({ type: "initResp", config: ${CONFIG}, rules: ${init.rules} })`;
  if (!mainFrame) return start;
  if (mode === 'check' && init.selectors) {
    return `(async () => {
  await new Promise((resolve) => setTimeout(resolve, 0));
  ${FOUND}
  const present = ${init.selectors}.some(found);
  const start = () => ${start};
  if (present) await start(); else setTimeout(start, ${DEFERRED_START_MS});
  return { present };
})()`;
  }
  return `(async () => {
  const queued = new Promise((resolve) => setTimeout(resolve, 0));
  await ${start};
  await queued;
  ${FOUND}
  const text = document.getElementById('autoconsent-prehide')?.textContent ?? '';
  const prehide = text.split('}').map((rule) => rule.split('{')[0].trim()).filter(Boolean);
  return { present: prehide.concat(${JSON.stringify(init.extra)}).some(found), prehide };
})()`;
}

/** Autoconsent's script, its compact rules, and the ruleset that every main frame without site rules gets. */
interface Consent {
  script: string; rules: CompactRules; genericCount: number;
  /** detectedElements of the generic rules */
  extra: string[];
  /** The init of every main frame on the generic rules. */
  genericInit?: FrameInit;
}
interface CompactRules { v: unknown; s: unknown[]; r: unknown[]; index: { genericRuleRange: [number, number]; genericStringEnd: number } }

/**
 * The init of a frame (memoized per origin and frame kind; every main frame on the generic rules shares one). A
 * main frame whose URL has no site rules gets the generic ruleset that the init script already put in the page:
 * ~66 kB sent over CDP cost ~7 ms a page.
 */
function frameInit(inits: Map<string, FrameInit>, consent: Consent, url: string, mainFrame: boolean): FrameInit {
  let origin = url;
  try { origin = new URL(url).origin; } catch { /* about:blank and the like */ }
  const key = `${mainFrame}:${origin}`;
  let init = inits.get(key);
  if (!init) {
    const compact = filterCompactRules(consent.rules as never, { url, mainFrame }) as Pick<CompactRules, 's' | 'r'>;
    const generic = mainFrame && compact.r.length === consent.genericCount;
    init = generic
      ? (consent.genericInit ??= { rules: `{ compact: JSON.parse(window.${GENERIC_RULES}) }`, extra: consent.extra })
      : { rules: JSON.stringify({ compact }), extra: mainFrame ? detectedElements(compact) : consent.extra };
    if (inits.size > 500) inits.clear();
    inits.set(key, init);
  }
  return init;
}
/** How long a consent manager's element on the page may take to be detected by a later pass (~500 ms apart). */
const LATE_DETECT_CAP_MS = 1200;
const TERMINAL = new Set(['nothingDetected', 'optOutSucceeded', 'optOutFailed', 'optInSucceeded', 'optInFailed', 'done']);

/** The ad and tracker filter engine, from the tracker database that ships inside `@ghostery/trackerdb` (no download). */
function loadFilters(): FiltersEngine {
  const dist = path.resolve(path.dirname(require.resolve('@ghostery/trackerdb')), '..');
  return FiltersEngine.parse(readFileSync(path.join(dist, 'trackerdb.txt'), 'utf8'));
}

/**
 * DuckDuckGo autoconsent's content script and compact rules (shipped in the package). The script given to pages
 * also defines the main frame's generic ruleset, as JSON text that only the main frame parses (~0.3 ms).
 */
function loadConsent(): Consent {
  const dist = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  const rules = JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8')) as CompactRules;
  const [from, to] = rules.index.genericRuleRange;
  const generic = { v: rules.v, s: rules.s.slice(0, rules.index.genericStringEnd), r: rules.r.slice(from, to) };
  const define = `Object.defineProperty(window, ${JSON.stringify(GENERIC_RULES)}, { value: ${JSON.stringify(JSON.stringify(generic))} });`;
  return { script: `${readFileSync(path.join(dist, 'autoconsent.playwright.js'), 'utf8')}\n;${define}`, rules, genericCount: to - from, extra: detectedElements(generic) };
}

/**
 * The elements by which rules without prehide selectors detect their consent manager (`exists` and `visible`
 * steps of their detection; of a selector chain into frames or shadow roots, its first element).
 */
function detectedElements(rules: Pick<CompactRules, 's' | 'r'>): string[] {
  type Step = Record<string, unknown> & { if?: Step; then?: Step[]; else?: Step[]; any?: Step[] };
  const found = new Set<string>();
  const add = (value: unknown) => {
    const selector = Array.isArray(value) ? value[0] : value;
    if (typeof selector === 'string' && selector) found.add(selector);
  };
  const walk = (steps: Step[] | undefined) => {
    for (const step of steps ?? []) {
      for (const key of ['e', 'v']) if (typeof step[key] === 'number') add(rules.s[step[key] as number]);
      for (const key of ['exists', 'visible']) add(step[key]);
      if (step.if) walk([step.if]);
      walk(step.then); walk(step.else); walk(step.any);
    }
  };
  for (const rule of rules.r as unknown[][]) {
    if (!Array.isArray(rule[5]) || rule[5].length === 0) walk(rule[6] as Step[]);
  }
  return [...found];
}

const TYPES: Record<string, string> = {
  document: 'sub_frame', stylesheet: 'stylesheet', image: 'image', media: 'media', font: 'font', script: 'script',
  xhr: 'xhr', fetch: 'xhr', websocket: 'websocket', ping: 'ping', other: 'other',
};

/** What autoconsent has told about one page so far. */
interface Watch {
  /** The main frame's script asked for its rules (it runs: JavaScript is on and the target is a page). */
  mainInit: boolean;
  /**
   * Hands the main frame its rules, held back until the page has loaded and settled (see settleConsent), and
   * answers whether a consent manager's element is on the page (see initExpression).
   */
  answerInit?: () => Promise<unknown>;
  detectedAt?: number;
  popup: boolean;
  finished: boolean;
  wake?: () => void;
}

/** An autoconsent message, as far as it is read here (anything else a page might send is ignored). */
interface Message { type?: unknown; state?: { lifecycle?: unknown } }

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
  let consent: Consent | undefined;
  const inits = new Map<string, FrameInit>();
  const prepared = new WeakSet<BrowserContext>();
  const watches = new WeakMap<Page, Watch>();
  const watchOf = (page: Page): Watch => {
    let w = watches.get(page);
    if (!w) watches.set(page, w = { mainInit: false, popup: false, finished: false });
    return w;
  };

  async function onMessage(page: Page, frame: Frame, msg: Message): Promise<void> {
    if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
    const w = watchOf(page);
    const mainFrame = frame === page.mainFrame();
    switch (msg.type) {
      case 'init': {
        const init = frameInit(inits, consent!, frame.url(), mainFrame);
        // Frames start at once; the main frame starts when settleConsent asks (it was waiting for the page).
        if (!mainFrame) await frame.evaluate(initExpression(init, false)).catch(() => undefined);
        else {
          w.mainInit = true;
          w.answerInit = async () => {
            // Learned beside the first pages, which start autoconsent before looking (as every page did before).
            if (init === consent!.genericInit && !init.selectors && !init.learning) init.learning = learnPrehide(page, init);
            const answer = await frame.evaluate(initExpression(init, true, 'check')) as InitAnswer | undefined;
            return answer?.present === true;
          };
        }
        break;
      }
      case 'report':
        if (!mainFrame) break;
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

  /**
   * Learns the generic prehide selectors on a blank page (about:blank, no network) in a context of its own in the
   * page's browser: once per process. A failure, or a browser that does not answer within LEARN_CAP_MS, leaves them
   * unknown (pages then start autoconsent before looking, as they did before) and a later page tries again.
   */
  function learnPrehide(page: Page, init: FrameInit): Promise<void> {
    const learn = async () => {
      const context = await page.context().browser()?.newContext();
      try {
        if (!context) return;
        await prepare(context);
        const blank = await context.newPage();
        const answer = await blank.mainFrame().evaluate(initExpression(init, true, 'start')) as InitAnswer | undefined;
        const prehide = Array.isArray(answer?.prehide) ? answer.prehide.filter((s) => typeof s === 'string') : [];
        if (prehide.length > 0) init.selectors = JSON.stringify([...prehide, ...init.extra]);
      } finally {
        await context?.close().catch(() => undefined);
      }
    };
    return bounded(learn(), performance.now() + LEARN_CAP_MS).then(() => undefined).finally(() => { init.learning = undefined; });
  }

  /** Autoconsent in a context's pages: its script in every frame, and its messages answered here. */
  async function prepare(context: BrowserContext): Promise<void> {
    consent ??= loadConsent();
    await context.exposeBinding('autoconsentSendMessage', ({ page, frame }: { page: Page; frame: Frame }, msg: Message) => onMessage(page, frame, msg));
    await context.addInitScript({ content: consent.script });
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
      await prepare(context);
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
      // passes, 500 ms apart, that nobody waits for. One round trip starts it and tells whether a banner is there.
      const present = await bounded(w.answerInit?.() ?? Promise.resolve(false), Math.min(end, start + INIT_CAP_MS));
      w.answerInit = undefined;
      // A consent manager's element is on the page: wait until detection finds it (its passes are ~500 ms apart).
      if (w.detectedAt === undefined && !w.finished && present) {
        await until(w, () => w.detectedAt !== undefined || w.finished, Math.min(end, performance.now() + LATE_DETECT_CAP_MS));
      }
      if (w.detectedAt === undefined || w.finished) return;
      // A consent manager is on the page: wait while its popup shows and is answered.
      await until(w, () => w.finished || (!w.popup && performance.now() - w.detectedAt! > POPUP_CAP_MS), end);
    },
  };
}
