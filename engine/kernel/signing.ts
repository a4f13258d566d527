// Signed links: a key holder makes `GET /?…&expires=<unix>&signature=<mac>` links that need no header (an
// `<img src>` on a public page), are charged to that key, and work only for exactly that query until they expire.
// The MAC is HMAC-SHA256 of the canonical query (every parameter but `signature`, sorted) under the key's signing
// secret, which is derived from REFRACT_SIGNING_SECRET and the key: the server stores no secret per key, a key
// removed from the ring revokes its links, and a new REFRACT_SIGNING_SECRET revokes them all.
import { createHash, createHmac } from 'node:crypto';
import { parseDuration } from './duration.ts';

export const SIGNATURE_PARAM = 'signature';
export const EXPIRES_PARAM = 'expires';

/** A key's signing secret, from the service's REFRACT_SIGNING_SECRET and the SHA-256 digest of the key. */
export function signingSecretOf(master: string, keyDigest: Buffer): string {
  return createHmac('sha256', master).update('refract-signing\0').update(keyDigest).digest('base64url');
}

/** A key's signing secret, from the service's REFRACT_SIGNING_SECRET and the key itself. */
export function signingSecret(master: string, apiKey: string): string {
  return signingSecretOf(master, createHash('sha256').update(apiKey).digest());
}

/** The query as signed: every parameter but `signature`, sorted by name then value, form-encoded. */
export function canonicalQuery(query: string | URLSearchParams): string {
  const params = new URLSearchParams(query);
  params.delete(SIGNATURE_PARAM);
  const entries = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return new URLSearchParams(entries).toString();
}

/** The MAC of a canonical query under a signing secret. */
export function macOf(canonical: string, secret: string): string {
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

/** What `signUrl` signs: the query, the key's signing secret, and when the link stops working. */
export interface SignOptions {
  /** The API query: `url=…&screenshot`, its URLSearchParams, or an object of parameters. */
  query: string | URLSearchParams | Record<string, string | number | boolean>;
  /** The key's signing secret (`refract-api sign --secret-of`, or `signingSecret(REFRACT_SIGNING_SECRET, key)`). */
  secret: string;
  /** When the link stops working: a Date, Unix seconds, or a duration from now such as `'1h'` or `'30d'`. */
  expires: Date | number | string;
  /** The endpoint the link points at (default: the query alone, `?…`). */
  endpoint?: string;
}

/**
 * Unix seconds from a Date, Unix seconds (a number, or ten digits or more), or a duration from now (`'1h'`, `'30d'`);
 * NaN for anything else (a short number as text is neither: `'3600'` could mean either).
 */
export function expiresAt(expires: Date | number | string, now = Date.now()): number {
  if (expires instanceof Date) return Math.floor(expires.getTime() / 1000);
  if (typeof expires === 'number') return Math.floor(expires);
  if (/^\s*\d{10,}\s*$/.test(expires)) return Number(expires);
  if (/^\s*\d+(\.\d+)?\s*$/.test(expires)) return Number.NaN;
  const ms = parseDuration(expires);
  return ms === undefined || ms <= 0 ? Number.NaN : Math.floor((now + ms) / 1000);
}

/** A signed link: the endpoint (or `?`) with the canonical query, `expires` and `signature`. */
export function signUrl(options: SignOptions): string {
  const { query, secret, expires, endpoint } = options;
  const params = new URLSearchParams(
    typeof query === 'string' || query instanceof URLSearchParams
      ? query
      : Object.entries(query).map(([k, v]) => [k, String(v)]),
  );
  const at = expiresAt(expires);
  if (!Number.isFinite(at))
    throw new TypeError("signUrl: `expires` must be a Date, Unix seconds or a duration such as '1h'");
  params.set(EXPIRES_PARAM, String(at));
  const canonical = canonicalQuery(params);
  const signed = `${canonical}&${SIGNATURE_PARAM}=${macOf(canonical, secret)}`;
  if (!endpoint) return `?${signed}`;
  const base = new URL(endpoint);
  base.search = signed;
  return base.href;
}
