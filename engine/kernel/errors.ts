import { formatDuration } from './duration.ts';

/** Every error code of the contract, mapped to its HTTP status; JSend `fail`/`error` follows the status. */
export const CODES = {
  EAUTH: 401,
  ECACHEKEY: 400,
  EBRWSRTIMEOUT: 408,
  EFATAL: 500,
  EFILENAME: 400,
  EFATALCLIENT: 500,
  EFORBIDDENURL: 403,
  EHEADERS: 400,
  EINVALURL: 400,
  EINVALPROXY: 400,
  EINVALURLCLIENT: 400,
  EINVALTTL: 400,
  EINVALEVAL: 400,
  EINVALFUNCTION: 400,
  EINVALDATA: 400,
  EINVALQUERY: 400,
  EINVALSTTL: 400,
  EINVALOVERLAYBG: 400,
  EINTEGRATION: 403,
  EMAXREDIRECTS: 400,
  EPAGERANGE: 400,
  EPDFTOOLARGE: 400,
  EPRO: 403,
  EPROXY: 400,
  EPROXYNEEDED: 403,
  ERATE: 429,
  ETIMEOUT: 408,
  ETTL: 400,
  ESTTL: 400,
  EMETHOD: 405,
  ENOTFOUND: 404,
  EPLUGINDUP: 500,
  EPLUGIN: 500,
  EBUSY: 503,
  ESTORAGE: 503,
  ETOOLARGE: 431,
} as const;

export type Code = keyof typeof CODES;

/** Errors of this type carry a stable code; the HTTP status and JSend status derive from it. */
export class RefractError extends Error {
  override name = 'RefractError';
  readonly code: Code;
  readonly status: number;
  readonly data: Record<string, unknown> | undefined;
  constructor(code: Code, message: string, options?: ErrorOptions & { data?: Record<string, unknown> }) {
    super(message, options);
    this.code = code;
    this.status = CODES[code];
    this.data = options?.data;
  }
}

/**
 * True for a coded error of this service, recognised by its `code` (one of CODES) and numeric `status`, not by
 * `instanceof`: a plugin built against another copy of this package throws errors of another class.
 */
export function isRefractError(err: unknown): err is RefractError {
  if (err instanceof RefractError) return true;
  if (!err || typeof err !== 'object') return false;
  const { code, status, message } = err as { code?: unknown; status?: unknown; message?: unknown };
  return (
    typeof code === 'string' &&
    Object.hasOwn(CODES, code) &&
    status === CODES[code as Code] &&
    typeof message === 'string'
  );
}

/** True when `err` is a coded error with one of these codes. */
export function hasCode(err: unknown, ...codes: Code[]): boolean {
  return isRefractError(err) && codes.includes(err.code);
}

/** ETIMEOUT for a request that reached its `timeout`, naming the limit (the cause keeps where it was hit). */
export function requestTimedOut(timeout: number, cause: unknown): RefractError {
  return new RefractError(
    'ETIMEOUT',
    `The request reached its timeout of ${formatDuration(timeout)} (\`timeout\`, ${timeout} ms from its arrival)`,
    { cause, data: { timeout } },
  );
}

/** The one ETIMEOUT of a request that reached its deadline (`during` says where, for the message). */
export function timeoutError(during?: string, cause?: unknown): RefractError {
  return new RefractError(
    'ETIMEOUT',
    `The request reached its timeout${during ? ` ${during}` : ''}`,
    cause === undefined ? undefined : { cause },
  );
}
