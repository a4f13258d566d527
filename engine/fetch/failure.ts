import { RefractError } from '../errors.ts';

function findRefract(err: unknown, depth = 0): RefractError | undefined {
  if (err instanceof RefractError) return err;
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { cause?: unknown; originalError?: unknown };
  return findRefract(e.cause, depth + 1) ?? findRefract(e.originalError, depth + 1);
}

/** Translates a network failure into a coded error: guard refusals keep theirs, a deadline is ETIMEOUT. */
export function toRefractError(err: unknown, signal: AbortSignal, url: string): RefractError {
  const found = findRefract(err);
  if (found) return found;
  if (signal.aborted) return new RefractError('ETIMEOUT', 'The request reached its timeout before the target answered', { cause: err });
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new RefractError('EINVALURL', `The URL host of ${url} does not resolve`, { cause: err });
  }
  if (code === 'ETIMEDOUT') return new RefractError('ETIMEOUT', `The target ${url} did not answer in time`, { cause: err });
  const reason = code || (err as Error).message || 'unknown error';
  return new RefractError('EFATALCLIENT', `The target ${url} could not be fetched (${reason})`, { cause: err });
}
