import { timeoutError } from './errors.ts';

/** A deadline's signal and its release. */
export interface Deadline {
  signal: AbortSignal;
  /** Ends the deadline early: its timer is cleared and its parents forget it (the signal itself stays as it is). */
  dispose(): void;
}

/**
 * A signal that aborts after `ms` (with the `TimeoutError` that `AbortSignal.timeout` gives) or when a parent
 * aborts (with the parent's reason), released by `dispose()` as soon as the work it bounds is over.
 *
 * Why not `AbortSignal.timeout` and `AbortSignal.any`: Node keeps such a signal, and everything its listeners
 * reach, in memory until it fires once a listener is added, and HTTP clients (got did) leave their abort listener on
 * it. Every request's sockets, bodies and crawling context then stayed for the whole timeout after the answer
 * (500 requests' worth in a heap snapshot of the soak). A disposed deadline holds nothing.
 */
export function deadline(ms: number, ...parents: readonly (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController();
  const linked: AbortSignal[] = [];
  const onParentAbort = function (this: AbortSignal) {
    release();
    controller.abort(this.reason);
  };
  const timer = setTimeout(
    () => {
      release();
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    Math.max(0, ms),
  );
  function release() {
    clearTimeout(timer);
    for (const parent of linked.splice(0)) parent.removeEventListener('abort', onParentAbort);
  }
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) {
      release();
      controller.abort(parent.reason);
      break;
    }
    parent.addEventListener('abort', onParentAbort, { once: true });
    linked.push(parent);
  }
  return { signal: controller.signal, dispose: release };
}

/** Runs `work` with a deadline of `ms` (and the parents' aborts), released when the work settles. */
export async function withDeadline<T>(
  ms: number,
  parents: readonly (AbortSignal | undefined)[],
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { signal, dispose } = deadline(ms, ...parents);
  try {
    return await work(signal);
  } finally {
    dispose();
  }
}

// Deadlines of a request's steps (engine/request/steps.ts): when one must end, and work cut off at an abort.

/** Time kept back from a step for each step after it (a capture takes ~0.1-1 s), so one step cannot spend theirs. */
const LATER_STEP_MS = 1000;

/**
 * When a step must end: at the steps' cutoff less the time kept for each later step, but never before its even
 * share of the time left. (A page whose image host hangs once spent the probes' time up to the cutoff in `meta`,
 * and the screenshot after it had 250 ms: under load, none.)
 */
export function stepCutoff(now: number, cutoff: number, later: number): number {
  const left = cutoff - now;
  return now + Math.max(left - later * LATER_STEP_MS, left / (later + 1));
}

/**
 * Starts `work` and settles with it, or rejects with ETIMEOUT as soon as `signal` aborts; past an abort `work` is
 * not started at all. Work left behind by an abort settles unobserved: its failure is no one's to report.
 */
export function untilAborted<T>(work: () => Promise<T> | T, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(timeoutError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(timeoutError());
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
