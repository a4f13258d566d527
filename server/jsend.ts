import { toFailure } from '../engine/index.ts';

/** The JSend success envelope. */
export function success(data: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { status: 'success', data, ...extra };
}

/**
 * Where a failed request is reported (the contract's `report`): `template` with `{id}` and `{code}` filled in
 * (REFRACT_REPORT_URL, an issue tracker say), else the error page's section on reporting, with the request id.
 */
export function reportLink(template: string | undefined, id: string, code: string, docsUrl: string): string {
  if (!template) return `${docsUrl}?id=${encodeURIComponent(id)}&code=${code}#reporting-a-request`;
  return template.replaceAll('{id}', encodeURIComponent(id)).replaceAll('{code}', code);
}

/** Turns any thrown value into an HTTP status and a JSend fail/error body; unknown errors become EFATAL. */
export function failure(
  err: unknown,
  id: string,
  docsUrl: string,
  reportTemplate?: string,
): { status: number; body: Record<string, unknown>; unexpected: boolean } {
  const f = toFailure(err);
  return {
    status: f.status,
    unexpected: f.unexpected,
    body: {
      status: f.jsend,
      code: f.code,
      message: f.message,
      more: `${docsUrl}#${f.code.toLowerCase()}`,
      report: reportLink(reportTemplate, id, f.code, docsUrl),
      id,
      data: f.data ?? null,
    },
  };
}
