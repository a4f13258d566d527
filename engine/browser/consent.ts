import type { BrowserContext, Frame, Page } from 'playwright-core';
import pTimeout from 'p-timeout';
import {
  frameInit,
  initExpression,
  loadConsent,
  type ConsentRules,
  type FrameInit,
  type InitAnswer,
} from './consent-rules.ts';

/** How long the main frame's init may take (a page busy in a loop must not hold the request). */
const INIT_CAP_MS = 1000;
/** How long learning the consent managers' selectors may take before a later page tries again. */
const LEARN_CAP_MS = 5000;
/** How long a consent manager found on the page may take to show its popup before the wait gives up on it. */
const POPUP_CAP_MS = 1000;
/** How long a consent manager's element on the page may take to be detected by a later pass (~500 ms apart). */
const LATE_DETECT_CAP_MS = 1200;
const TERMINAL = new Set([
  'nothingDetected',
  'optOutSucceeded',
  'optOutFailed',
  'optInSucceeded',
  'optInFailed',
  'done',
]);

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
interface Message {
  type?: unknown;
  state?: { lifecycle?: unknown };
}

/** An engine's cookie-banner handler (DuckDuckGo autoconsent); its rules load on first use, once per engine. */
export interface Consent {
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

/** What one engine's consent handler keeps: the rules (loaded on first use), frame inits, and what each page told. */
interface ConsentState {
  rules?: ConsentRules;
  inits: Map<string, FrameInit>;
  prepared: WeakSet<BrowserContext>;
  watches: WeakMap<Page, Watch>;
}

function watchOf(state: ConsentState, page: Page): Watch {
  let w = state.watches.get(page);
  if (!w) state.watches.set(page, (w = { mainInit: false, popup: false, finished: false }));
  return w;
}

async function onMessage(state: ConsentState, page: Page, frame: Frame, msg: Message): Promise<void> {
  if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
  const w = watchOf(state, page);
  const mainFrame = frame === page.mainFrame();
  switch (msg.type) {
    case 'init': {
      const init = frameInit(state.inits, state.rules!, frame.url(), mainFrame);
      // Frames start at once; the main frame starts when settleConsent asks (it was waiting for the page).
      if (!mainFrame) await frame.evaluate(initExpression(init, false)).catch(() => undefined);
      else {
        w.mainInit = true;
        w.answerInit = async () => {
          // Learned beside the first pages, which start autoconsent before looking (as every page did before).
          if (init === state.rules!.genericInit && !init.selectors && !init.learning)
            init.learning = learnPrehide(state, page, init);
          const answer = (await frame.evaluate(initExpression(init, true, 'check'))) as InitAnswer | undefined;
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
function learnPrehide(state: ConsentState, page: Page, init: FrameInit): Promise<void> {
  const learn = async () => {
    const context = await page.context().browser()?.newContext();
    try {
      if (!context) return;
      await prepare(state, context);
      const blank = await context.newPage();
      const answer = (await blank.mainFrame().evaluate(initExpression(init, true, 'start'))) as InitAnswer | undefined;
      const prehide = Array.isArray(answer?.prehide) ? answer.prehide.filter((s) => typeof s === 'string') : [];
      if (prehide.length > 0) init.selectors = JSON.stringify([...prehide, ...init.extra]);
    } finally {
      await context?.close().catch(() => undefined);
    }
  };
  return bounded(learn(), performance.now() + LEARN_CAP_MS)
    .then(() => undefined)
    .finally(() => {
      init.learning = undefined;
    });
}

/** Autoconsent in a context's pages: its script in every frame, and its messages answered here. */
async function prepare(state: ConsentState, context: BrowserContext): Promise<void> {
  const rules = (state.rules ??= loadConsent());
  await context.exposeBinding('autoconsentSendMessage', ({ page, frame }: { page: Page; frame: Frame }, msg: Message) =>
    onMessage(state, page, frame, msg),
  );
  await context.addInitScript({ content: rules.script });
}

/** A page evaluation that answers false at `at` (a page whose timers never fire must not hold the request). */
function bounded(work: Promise<unknown>, at: number): Promise<boolean> {
  const answer = work.then(
    (v) => v === true,
    () => false,
  );
  return pTimeout(answer, { milliseconds: Math.max(0, at - performance.now()), fallback: () => false });
}

/** Resolves once `done()` holds or at `until` (performance.now() time), re-checking on every message. */
async function until(w: Watch, done: () => boolean, at: number): Promise<void> {
  while (!done() && performance.now() < at) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, Math.min(100, at - performance.now())));
      w.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    w.wake = undefined;
  }
}

export function createConsent(): Consent {
  const state: ConsentState = { inits: new Map(), prepared: new WeakSet(), watches: new WeakMap() };
  const { prepared, watches } = state;
  return {
    async prepareConsent(context) {
      if (prepared.has(context)) return;
      prepared.add(context);
      await prepare(state, context);
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
        await until(
          w,
          () => w.detectedAt !== undefined || w.finished,
          Math.min(end, performance.now() + LATE_DETECT_CAP_MS),
        );
      }
      if (w.detectedAt === undefined || w.finished) return;
      // A consent manager is on the page: wait while its popup shows and is answered.
      await until(w, () => w.finished || (!w.popup && performance.now() - w.detectedAt! > POPUP_CAP_MS), end);
    },
  };
}
