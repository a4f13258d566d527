import { launch } from 'chrome-launcher';
import { chromeArgs, createGuardProxy, timeoutError, untilAborted, type Guard } from '../../engine/index.ts';

/** What an audit is asked for: categories (all when empty), the device preset, the report format. */
export interface AuditOptions {
  categories?: string[];
  preset: 'mobile' | 'desktop';
  output: 'json' | 'html' | 'csv';
  /** How long the audit may take: Lighthouse's own waits for the page are bounded by it. */
  budgetMs: number;
}

/** An audit's outcome: the category scores (0-100) and the report in the asked format. */
export interface AuditResult {
  scores: Record<string, number | null>;
  report: string;
  lhr: Record<string, unknown>;
}

/** Runs audits one at a time: each in a dedicated Chrome behind the guard proxy; Chrome is always killed. */
export type Auditor = (url: string, opts: AuditOptions, guard: Guard, signal: AbortSignal) => Promise<AuditResult>;

/** Creates an auditor with its own queue (one per engine), launching `chromePath` (sandboxed or not). */
export function createAuditor(chromePath: string, sandboxed = false): Auditor {
  let queue: Promise<unknown> = Promise.resolve();
  return (url, opts, guard, signal) => {
    const run = queue.then(() => runAudit(url, opts, guard, signal, chromePath, sandboxed));
    queue = run.catch(() => undefined);
    return run;
  };
}

async function runAudit(
  url: string,
  opts: AuditOptions,
  guard: Guard,
  signal: AbortSignal,
  chromePath: string,
  sandboxed: boolean,
): Promise<AuditResult> {
  if (signal.aborted) throw timeoutError('before the audit could start');
  // Every request of the audit's Chrome (loopback ones included) goes through the SSRF guard's proxy.
  const proxy = createGuardProxy(guard);
  const chrome = await launch({
    chromePath,
    chromeFlags: [
      ...chromeArgs(sandboxed),
      '--headless=new',
      `--proxy-server=${await proxy.url()}`,
      '--proxy-bypass-list=<-loopback>',
    ],
    logLevel: 'silent',
  });
  // SIGKILL to Chrome's process group; `gone` resolves when the main process has exited (its children go with it).
  const gone = new Promise<void>((resolve) => {
    if (!chrome.process || chrome.process.exitCode !== null || chrome.process.signalCode !== null) resolve();
    else chrome.process.once('close', () => resolve());
  });
  const stop = () => {
    try {
      chrome.kill();
    } catch {
      /* already gone */
    }
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    const flags = {
      port: chrome.port,
      output: opts.output,
      logLevel: 'error' as const,
      onlyCategories: opts.categories?.length ? opts.categories : undefined,
      // Lighthouse's waits for the page (45 s for its load by default) end with the audit's budget: an audit cut off
      // at its budget left them running, and they held a library user's process open for up to 45 s after it.
      maxWaitForLoad: Math.max(1, Math.min(45_000, opts.budgetMs)),
      maxWaitForFcp: Math.max(1, Math.min(30_000, opts.budgetMs)),
    };
    // Lighthouse (with its trace engine, puppeteer-core and lodash: ~1,000 modules) loads with the first audit, not
    // with every process that loads the plugins.
    const { default: lighthouse, desktopConfig } = await import('lighthouse');
    // Cut off while Lighthouse loaded (its first load takes seconds): its Chrome is gone, so no audit is started
    // against it (one started so left a rejection of its own behind, unhandled).
    if (signal.aborted) throw timeoutError('before the audit could start');
    // Once cut off, the answer does not wait for Lighthouse to notice its Chrome is gone (it waited past the step's
    // end on a page still loading); what it settles with later is no one's.
    const result = await untilAborted(
      () => lighthouse(url, flags, opts.preset === 'desktop' ? desktopConfig : undefined),
      signal,
    );
    if (signal.aborted) throw timeoutError('during the audit');
    if (!result) throw new Error('Lighthouse returned no result');
    const lhr = result.lhr as unknown as {
      categories: Record<string, { score: number | null }>;
      runtimeError?: { message: string };
    };
    if (lhr.runtimeError) throw new Error(lhr.runtimeError.message);
    const scores = Object.fromEntries(
      Object.entries(lhr.categories).map(([id, c]) => [id, c.score === null ? null : Math.round(c.score * 100)]),
    );
    const report = Array.isArray(result.report) ? result.report[0]! : result.report;
    return { scores, report, lhr: result.lhr as unknown as Record<string, unknown> };
  } catch (err) {
    if (signal.aborted) throw timeoutError('during the audit', err);
    throw err;
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
    // The answer waits for Chrome to be gone (bounded), so no audit browser outlives its request.
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await proxy.close();
  }
}
