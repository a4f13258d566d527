import { isRefractError, timeoutError } from '../kernel/errors.ts';
import { readsDocument, type Context, type Plugin } from '../plan/plugin.ts';
import type { Plan, Step } from '../plan/plan.ts';
import { finish, type Extraction, type Services, type Warning } from './extraction.ts';
import type { CheerioAPI } from 'cheerio';
import type { FetchResult } from '../fetch/http.ts';
import { contextFor, linksOf, type LivePage } from './context.ts';
import type { Trace } from '../kernel/timing.ts';
import { deadline, stepCutoff, untilAborted } from '../kernel/deadline.ts';
import { documentText, parseHtmlSliced, SLICED_PARSE_CHARS } from '../kernel/html.ts';

/** Time kept back from a step for the rest of the answer: a step that hangs is cut off this long before the deadline. */
const STEP_RESERVE_MS = 1000;
/** Why a step produced no output, as the answer's `warnings` report it. */
function stepFailure(step: string, reason: 'threw' | 'timeout' | 'not-json', detail: string): Warning {
  const what =
    reason === 'timeout'
      ? 'did not finish in time'
      : reason === 'not-json'
        ? 'returned a value that is not JSON'
        : `failed: ${detail}`;
  return { plugin: step, code: 'EPLUGIN', message: `The ${step} output ${what}`, reason };
}

/** The context one step sees: its own deadline signal and clock, its settings and its state. */
function stepContext(
  ctx: Context,
  plugin: Plugin,
  services: Services,
  cutoff: number,
  signal: AbortSignal,
  warnings: Warning[],
): Context {
  const runtime = services.runtimes.get(plugin.name);
  return Object.create(ctx, {
    // A step's own problem (a part of its output that did not finish) is logged and said in the answer.
    warn: {
      value: (message: string) => {
        services.logger.warn(message, { url: ctx.url });
        warnings.push({ plugin: plugin.name, code: 'EPLUGIN', message });
      },
    },
    signal: { value: signal },
    timeLeft: { value: () => Math.max(0, cutoff - performance.now()) },
    settings: { value: runtime?.settings ?? {} },
    state: { value: runtime?.state },
  }) as Context;
}

/** Places a step's result in the payload: merged plugins spread it, others put it under their name. */
function place(data: Record<string, unknown>, plugin: Plugin, result: unknown): void {
  if (plugin.enriches) {
    // Amendments by field, applied to copies: no other plugin's object is changed.
    for (const [field, amendment] of Object.entries((result ?? {}) as Record<string, unknown>)) {
      const current = data[field];
      if (amendment === null) data[field] = null;
      else if (current && typeof current === 'object' && amendment && typeof amendment === 'object')
        data[field] = { ...current, ...amendment };
    }
  } else if (plugin.merge) {
    if (result && typeof result === 'object') Object.assign(data, result);
  } else data[plugin.name] = result ?? null;
}

/** Runs one step; a contained failure is a warning (and a null output), a coded error fails the request. */
async function runStep(
  step: Step,
  plugin: Plugin,
  ctx: Context,
  services: Services,
  cutoff: number,
  warnings: Warning[],
): Promise<void> {
  if (ctx.signal.aborted) throw timeoutError();
  const bound = deadline(Math.max(1, Math.floor(cutoff - performance.now())), ctx.signal);
  const stepCtx = stepContext(ctx, plugin, services, cutoff, bound.signal, warnings);
  // An enricher reads the payload as it stands and cannot change it but through its answer.
  if (plugin.enriches) Object.defineProperty(stepCtx, 'data', { value: Object.freeze({ ...ctx.data }) });
  const contained = (reason: 'threw' | 'timeout' | 'not-json', detail = '') => {
    warnings.push(stepFailure(step.name, reason, detail));
    // A merged output (metadata, rules) or an enricher adds no key of its own; any other output is there, as null.
    if (!plugin.merge && !plugin.enriches) ctx.data[step.name] = null;
    for (const key of plugin.outputs ?? []) ctx.data[key] = null;
  };
  try {
    const result = await untilAborted(() => plugin.run(stepCtx, step.opts), stepCtx.signal);
    let json: string | undefined;
    try {
      json = JSON.stringify(result);
    } catch {
      json = undefined;
    }
    if (result !== undefined && result !== null && json === undefined) return contained('not-json');
    place(ctx.data, plugin, result);
  } catch (err) {
    if (ctx.signal.aborted) throw isRefractError(err) && err.code === 'ETIMEOUT' ? err : timeoutError(undefined, err);
    if (stepCtx.signal.aborted) {
      services.logger.warn(`plugin ${step.name} timed out`, { url: ctx.url });
      return contained('timeout');
    }
    if (isRefractError(err)) throw err;
    services.logger.error(`plugin ${step.name} failed`, err);
    contained('threw', (err as Error)?.message ?? String(err));
  } finally {
    bound.dispose();
  }
}

/**
 * Runs the steps in registry order. Each is contained: one that throws, hangs past its share of the time, or
 * returns something that is not JSON leaves its output null with an EPLUGIN warning, and the rest of the answer
 * stands. Coded errors (a bad rule, a forbidden URL) still fail the request, as does the request's own timeout.
 */
export async function runSteps(
  plan: Plan,
  services: Services,
  ctx: Context,
  deadline: number,
  trace?: Trace,
): Promise<{ data: Record<string, unknown>; warnings: Warning[] }> {
  const warnings: Warning[] = [];
  for (const [i, step] of plan.steps.entries()) {
    const since = performance.now();
    const cutoff = stepCutoff(since, deadline - STEP_RESERVE_MS, plan.steps.length - 1 - i);
    await runStep(step, services.registry.get(step.name)!, ctx, services, cutoff, warnings);
    trace?.mark(`step.${step.name}`, since);
  }
  return { data: ctx.data, warnings };
}

/**
 * The common tail of every way a page is obtained (fetched, or rendered in `live`): build the plugin context, run
 * the steps within the request's deadline, complete the payload with the response's facts, collect links.
 */
export async function answer(
  plan: Plan,
  services: Services,
  response: FetchResult,
  signal: AbortSignal,
  trace: Trace,
  live?: LivePage,
  document?: CheerioAPI,
): Promise<Omit<Extraction, 'fetchMode'>> {
  const fetchTimeMs = Math.round(performance.now() - trace.started);
  // A long document that a step reads is parsed in slices first (the other requests of the process go on meanwhile).
  if (
    !document &&
    (response.kind === 'html' || response.kind === 'text') &&
    response.text.length > SLICED_PARSE_CHARS &&
    (plan.collectLinks || plan.steps.some((s) => readsDocument(services.registry.get(s.name)!, s.opts)))
  ) {
    document = await trace.time('parse', () =>
      parseHtmlSliced(documentText(response.text, services.maxDocumentChars), response.url, signal),
    );
  }
  const ctx = contextFor(plan, services, response, signal, live, document);
  const { data, warnings } = await runSteps(plan, services, ctx, trace.started + plan.options.timeout, trace);
  return { data: finish(data, response), fetchTimeMs, warnings, ...(plan.collectLinks ? { links: linksOf(ctx) } : {}) };
}
