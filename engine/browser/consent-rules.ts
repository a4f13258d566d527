import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { filterCompactRules } from '@duckduckgo/autoconsent';

const require = createRequire(import.meta.url);
// Detection retries every 500 ms or so: a banner that shows after the first pass is still answered while the page
// lives (and hidden meanwhile by autoconsent's prehide styles), but nobody waits for it.
const DETECT_RETRIES = 4;
/** What autoconsent's content script is configured with in every frame. */
const CONFIG = JSON.stringify({
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: true,
  detectRetries: DETECT_RETRIES,
  enableCosmeticRules: true,
  isMainWorld: true,
});
/** The global (set by the init script, read-only) holding the main frame's generic rules as JSON text. */
const GENERIC_RULES = 'autoconsentRefractGenericRules';
/**
 * How long autoconsent waits before it starts in a main frame where no consent manager's element was found: its
 * detection passes would otherwise run while the capture is taken (~9 ms more per screenshot on a page without a
 * banner). A banner that shows later in a page that lives on (a long wait) is still answered.
 */
const DEFERRED_START_MS = 1000;

/** What a frame's init is made of: its rules (an expression), and for a main frame what tells a consent manager. */
export interface FrameInit {
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
export interface InitAnswer {
  present?: boolean;
  prehide?: string[];
}

const FOUND =
  "const found = (list) => { try { return !!document.querySelector(list); } catch { return list.includes(',') && list.split(',').some(found); } };";

/**
 * In a frame: hands autoconsent its config and rules. In the main frame it answers, once the tasks the page had
 * queued ran (a fetch's answer that shows a banner), whether an element of a known consent manager is in the DOM:
 * the selectors of autoconsent's prehide style (every rule's popup, site rules included) and `extra`. With the
 * prehide selectors known (`check`), they are looked for first and autoconsent starts at once only when one matches
 * (else after DEFERRED_START_MS); otherwise (`start`) autoconsent starts and its prehide style is read. Detection
 * runs on an idle callback: waiting for its first pass cost ~20 ms on every page, with or without a banner.
 */
export function initExpression(init: FrameInit, mainFrame: boolean, mode: 'check' | 'start' = 'start'): string {
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
export interface ConsentRules {
  script: string;
  rules: CompactRules;
  genericCount: number;
  /** detectedElements of the generic rules */
  extra: string[];
  /** The init of every main frame on the generic rules. */
  genericInit?: FrameInit;
}
interface CompactRules {
  v: unknown;
  s: unknown[];
  r: unknown[];
  index: { genericRuleRange: [number, number]; genericStringEnd: number };
}

/**
 * The init of a frame (memoized per origin and frame kind; every main frame on the generic rules shares one). A
 * main frame whose URL has no site rules gets the generic ruleset that the init script already put in the page:
 * ~66 kB sent over CDP cost ~7 ms a page.
 */
export function frameInit(
  inits: Map<string, FrameInit>,
  consent: ConsentRules,
  url: string,
  mainFrame: boolean,
): FrameInit {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    /* about:blank and the like */
  }
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
/**
 * DuckDuckGo autoconsent's content script and compact rules (shipped in the package). The script given to pages
 * also defines the main frame's generic ruleset, as JSON text that only the main frame parses (~0.3 ms).
 */
export function loadConsent(): ConsentRules {
  const dist = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  const rules = JSON.parse(
    readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
  ) as CompactRules;
  const [from, to] = rules.index.genericRuleRange;
  const generic = { v: rules.v, s: rules.s.slice(0, rules.index.genericStringEnd), r: rules.r.slice(from, to) };
  const define = `Object.defineProperty(window, ${JSON.stringify(GENERIC_RULES)}, { value: ${JSON.stringify(JSON.stringify(generic))} });`;
  return {
    script: `${readFileSync(path.join(dist, 'autoconsent.playwright.js'), 'utf8')}\n;${define}`,
    rules,
    genericCount: to - from,
    extra: detectedElements(generic),
  };
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
      walk(step.then);
      walk(step.else);
      walk(step.any);
    }
  };
  for (const rule of rules.r as unknown[][]) {
    if (!Array.isArray(rule[5]) || rule[5].length === 0) walk(rule[6] as Step[]);
  }
  return [...found];
}
