import { RefractError } from '../engine/index.ts';

/** The JSend success envelope. */
export function success(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { status: 'success', data, ...extra };
}

/** Turns any thrown value into an HTTP status and a JSend fail/error body; unknown errors become EFATAL. */
export function failure(err: unknown, id: string, docsUrl: string): { status: number; body: Record<string, unknown>; unexpected: boolean } {
  const unexpected = !(err instanceof RefractError);
  const e = err instanceof RefractError ? err : new RefractError('EFATAL', 'An unexpected error occurred; quote the id when reporting it');
  return {
    status: e.status,
    unexpected,
    body: {
      status: e.status < 500 ? 'fail' : 'error',
      code: e.code,
      message: e.message,
      more: `${docsUrl}#${e.code.toLowerCase()}`,
      id,
      data: e.data ?? null,
    },
  };
}
