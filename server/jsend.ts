import { toFailure } from '../engine/failures.ts';

/** The JSend success envelope. */
export function success(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { status: 'success', data, ...extra };
}

/** Turns any thrown value into an HTTP status and a JSend fail/error body; unknown errors become EFATAL. */
export function failure(err: unknown, id: string, docsUrl: string): { status: number; body: Record<string, unknown>; unexpected: boolean } {
  const f = toFailure(err);
  return {
    status: f.status,
    unexpected: f.unexpected,
    body: { status: f.jsend, code: f.code, message: f.message, more: `${docsUrl}#${f.code.toLowerCase()}`, id, data: f.data ?? null },
  };
}
