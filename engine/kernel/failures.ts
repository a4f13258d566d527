import { RefractError, isRefractError, timeoutError, type Code } from './errors.ts';

/**
 * The one error boundary: every library failure (network, proxy, browser, anything a plugin throws) becomes a
 * coded error here, and every coded error becomes a JSend failure here. Errors are recognised by their `code`.
 */

function findCoded(err: unknown, depth = 0): RefractError | undefined {
  if (isRefractError(err)) return err;
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { cause?: unknown; originalError?: unknown };
  return findCoded(e.cause, depth + 1) ?? findCoded(e.originalError, depth + 1);
}

/** What the resolver answers for a name it cannot look up (c-ares and getaddrinfo codes). */
const NAME_FAILURES = new Set([
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ENONAME',
  'EBADNAME',
  'EFORMERR',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
]);

/** Whether a failure came from looking a name up (an EINVAL there is the name's fault, not the service's). */
const lookedUp = (err: unknown) => {
  const e = err as { syscall?: string; hostname?: string };
  return e.syscall === 'getaddrinfo' || e.syscall === 'queryA' || typeof e.hostname === 'string';
};

/** A network failure of a fetch: guard refusals keep their code, a deadline is ETIMEOUT, a bad host EINVALURL. */
export function fromNetwork(err: unknown, signal: AbortSignal | undefined, url: string): RefractError {
  const found = findCoded(err);
  if (found) return found;
  if (signal?.aborted) return timeoutError('before the target answered', err);
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || NAME_FAILURES.has(code) || (code === 'EINVAL' && lookedUp(err))) {
    return new RefractError('EINVALURL', `The URL host of ${url} does not resolve`, { cause: err });
  }
  if (code === 'ETIMEDOUT')
    return new RefractError('ETIMEOUT', `The target ${url} did not answer in time`, { cause: err });
  const reason = code || (err as Error).message || 'unknown error';
  return new RefractError('EFATALCLIENT', `The target ${url} could not be fetched (${reason})`, { cause: err });
}

const PROXY_FAILURE = /ERR_PROXY|ERR_TUNNEL_CONNECTION_FAILED|ERR_NO_SUPPORTED_PROXIES|proxy/i;

/** A failure to go through a proxy is EPROXY, whoever chose the proxy; other failures keep their code. */
export function throughProxy(err: unknown, proxyUrl: string | undefined): unknown {
  if (!proxyUrl) return err;
  const message = (err as Error)?.message ?? '';
  const coded = isRefractError(err) ? err.code : undefined;
  if (coded !== undefined && coded !== 'EFATALCLIENT' && coded !== 'EFATAL') return err;
  if (!PROXY_FAILURE.test(message) && coded !== 'EFATALCLIENT') return err;
  const host = URL.canParse(proxyUrl) ? new URL(proxyUrl).host : 'the proxy';
  return new RefractError('EPROXY', `The request through the proxy ${host} failed: ${message.split('\n')[0]}`, {
    cause: err,
    data: { proxy: host },
  });
}

// `browserController.newPage() failed` (timed out, or its browser gone): Crawlee's pool could not open a page, as
// when its browser was killed while the page was being made.
// `Promise handler has been canceled due to a timeout`: Crawlee's operation timeout on a page operation, met when its
// browser was killed or stalled under it.
const CRASH =
  /target (page, context or browser )?(has been )?closed|browser has (been )?(closed|disconnected)|browser closed|crash|protocol error|websocket error|econnreset|not connected|newPage\(\) (failed|timed out)|handler has been canceled due to a timeout/i;
const OPERATION_TIMEOUT = /handler has been canceled due to a timeout|newPage\(\) timed out/i;

/**
 * A browser failure that outlived its retries, as the caller's code: the browser's operation that timed out is
 * EBRWSRTIMEOUT (408), a browser gone from under the page EBUSY (503, worth asking again); never a 500.
 */
export function fromBrowserFailure(err: unknown): unknown {
  if (!isCrash(err)) return err;
  const message = (err as Error).message.split('\n')[0] ?? '';
  if (OPERATION_TIMEOUT.test(message))
    return new RefractError(
      'EBRWSRTIMEOUT',
      `The browser did not complete an operation on the page in time (${message})`,
      {
        cause: err,
      },
    );
  return new RefractError(
    'EBUSY',
    `The browser went away under the page and no other took it over in time (${message})`,
    {
      cause: err,
    },
  );
}

/** True for failures caused by the browser going away rather than by the page (worth a retry). */
export function isCrash(err: unknown): boolean {
  return err instanceof Error && !isRefractError(err) && CRASH.test(err.message);
}

/** A navigation that failed: past its budget it is EBRWSRTIMEOUT; too many redirects EMAXREDIRECTS. */
export function fromNavigation(err: unknown, budgetMs: number): unknown {
  if (isRefractError(err)) return err;
  const message = (err as Error)?.message ?? '';
  if ((err as Error)?.name === 'TimeoutError')
    return new RefractError('EBRWSRTIMEOUT', `The browser did not finish loading the page within ${budgetMs} ms`, {
      cause: err,
    });
  if (/ERR_TOO_MANY_REDIRECTS/.test(message))
    return new RefractError('EMAXREDIRECTS', 'The target redirected too many times', { cause: err });
  // The document itself was blocked without a reason of the guard's (see `refusals` in browser/page.ts): an ad filter or
  // another scheme than HTTP(S) on a redirect.
  if (/ERR_BLOCKED_BY_CLIENT/.test(message))
    return new RefractError(
      'EFORBIDDENURL',
      'The target redirected to an address or scheme that is not fetched (private, loopback or reserved, or not HTTP)',
      { cause: err },
    );
  // The network refused the page (connection refused or reset, no such host, a TLS failure...): as the fetch says it.
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (net) return new RefractError('EFATALCLIENT', `The target could not be loaded (${net})`, { cause: err });
  return err;
}

/**
 * Any failure as a coded error, for callers of the engine (a library's `extract()`): a coded one anywhere in its
 * causes, else EFATAL saying what happened (a browser that went away says so, and that a retry may do).
 */
export function coded(err: unknown): RefractError {
  const found = findCoded(err);
  if (found) return found;
  const message = (err as Error)?.message?.split('\n')[0] ?? String(err);
  const made = isCrash(err)
    ? new RefractError('EFATAL', `The browser went away while this request used it (${message}); retry`, { cause: err })
    : new RefractError('EFATAL', `An unexpected error occurred: ${message}`, { cause: err });
  // Still unexpected: the server logs it and answers its own words, never the library's message.
  return Object.defineProperty(made, 'unexpected', { value: true });
}

/** A failure as answers carry it: its code, message, HTTP status, JSend status and data. */
export interface Failure {
  code: Code;
  message: string;
  status: number;
  jsend: 'fail' | 'error';
  data: Record<string, unknown> | undefined;
  unexpected: boolean;
}

/** Turns anything thrown into a Failure; what carries no code is EFATAL (and `unexpected`, worth logging). */
export function toFailure(
  err: unknown,
  fallbackMessage = 'An unexpected error occurred; quote the id when reporting it',
): Failure {
  const coded = isRefractError(err) ? err : undefined;
  const unexpected = !coded || (coded as { unexpected?: boolean }).unexpected === true;
  const code: Code = coded?.code ?? 'EFATAL';
  const status = coded?.status ?? 500;
  return {
    code,
    message: unexpected ? fallbackMessage : coded!.message,
    status,
    jsend: status < 500 ? 'fail' : 'error',
    data: coded?.data,
    unexpected,
  };
}
