/** One measured phase of a request: a Server-Timing metric name (a token) and its duration in milliseconds. */
export interface Phase {
  name: string;
  ms: number;
}

/**
 * The clock of one request: when it started and how long each of its phases took, in order. The phases are
 * what the `Server-Timing` header reports (cache, queue, fetch, page, navigate, consent, each step, store...).
 */
export interface Trace {
  readonly started: number;
  readonly phases: Phase[];
  /** Records a phase that ended now and began at `since`. */
  mark(name: string, since: number): void;
  /** Measures `work` as a phase (whether it settles or throws). */
  time<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/** Starts a request's trace. */
export function startTrace(started = performance.now()): Trace {
  const phases: Phase[] = [];
  const trace: Trace = {
    started,
    phases,
    mark(name, since) {
      phases.push({ name, ms: performance.now() - since });
    },
    async time(name, work) {
      const since = performance.now();
      try {
        return await work();
      } finally {
        trace.mark(name, since);
      }
    },
  };
  return trace;
}

/** A Server-Timing header value: `name;dur=1.23` per phase; names are made tokens (RFC 9110 tchar). */
export function serverTiming(phases: readonly Phase[]): string {
  let out = '';
  for (const p of phases) out += `${out ? ', ' : ''}${tokenOf(p.name)};dur=${p.ms.toFixed(2)}`;
  return out;
}

/** Phase names made tokens, remembered (a few names: the core's phases and one per step). */
const tokens = new Map<string, string>();

function tokenOf(name: string): string {
  let token = tokens.get(name);
  if (token === undefined) {
    token = name.replace(/[^!#$%&'*+\-.^_`|~0-9A-Za-z]/g, '_');
    if (tokens.size < 1000) tokens.set(name, token);
  }
  return token;
}
