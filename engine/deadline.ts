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
  const onParentAbort = function (this: AbortSignal) { release(); controller.abort(this.reason); };
  const timer = setTimeout(() => { release(); controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')); }, Math.max(0, ms));
  function release() {
    clearTimeout(timer);
    for (const parent of linked.splice(0)) parent.removeEventListener('abort', onParentAbort);
  }
  for (const parent of parents) {
    if (!parent) continue;
    if (parent.aborted) { release(); controller.abort(parent.reason); break; }
    parent.addEventListener('abort', onParentAbort, { once: true });
    linked.push(parent);
  }
  return { signal: controller.signal, dispose: release };
}

/** Runs `work` with a deadline of `ms` (and the parents' aborts), released when the work settles. */
export async function withDeadline<T>(ms: number, parents: readonly (AbortSignal | undefined)[], work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const { signal, dispose } = deadline(ms, ...parents);
  try {
    return await work(signal);
  } finally {
    dispose();
  }
}
