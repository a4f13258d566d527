import http from 'node:http';
import https from 'node:https';
import { got, hooks, TransformHeadersAgent } from 'got-scraping';
import { RefractError } from '../errors.ts';
import type { Guard } from './guard.ts';
import { decodeBody } from './charset.ts';
import { fromNetwork } from '../failures.ts';
import { requestHeaders } from './browser-headers.ts';

/** What kind of resource the target is, from its Content-Type. */
export type TargetKind = 'html' | 'text' | 'image' | 'video' | 'audio' | 'pdf' | 'other';

/** The target's response as plugins see it. */
export interface FetchResult {
  url: string;
  statusCode: number;
  headers: Record<string, string>;
  redirects: { statusCode: number; url: string }[];
  contentType: string;
  kind: TargetKind;
  /** Body bytes; for media only the first bytes (enough to read dimensions). */
  body: Buffer;
  /** Total size from Content-Length, or the bytes read when it is absent and the body is complete. */
  size: number | undefined;
  /** The decoded document for html and text targets, '' otherwise. */
  text: string;
  truncated: boolean;
}

/** How to fetch: the guard, the deadline, limits, and what identity to present. */
export interface FetchOptions {
  guard: Guard;
  signal: AbortSignal;
  maxBytes: number;
  headers?: Record<string, string>;
  userAgent?: string;
  proxyUrl?: string;
  sessionToken?: object;
  maxRedirects?: number;
  /** Read media bodies whole (up to maxBytes) instead of only their first bytes. */
  full?: boolean;
}

const MEDIA_PREFIX_BYTES = 256 * 1024;
/** The statuses that redirect (followed by hand so that every hop passes the guard). */
export const REDIRECT = new Set([301, 302, 303, 307, 308]);

/** Classifies a Content-Type. */
export function kindOf(contentType: string): TargetKind {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') return 'html';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type === 'application/pdf') return 'pdf';
  if (type.startsWith('text/') || type.endsWith('json') || type.endsWith('xml')) return 'text';
  return 'other';
}

/** Whether a body is binary data: a NUL byte in its first kilobyte (no 8-bit HTML or text has one; UTF-16 has a BOM). */
export function binary(body: Buffer): boolean {
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) return false;
  return body.subarray(0, 1024).includes(0);
}

/** Joins repeated response headers into one string each, as the Data object reports them. */
export function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * got-scraping as Refract uses it: got with got-scraping's defaults and the hooks that act on an HTTP/1.1 request
 * (its insecure parser, session data, proxy agents, a browser's TLS ciphers, the header order and case of its
 * agents, its decompression fix). Left out are the hooks that would do nothing here (`http2`, off; the header
 * generator, ours: see browser-headers.ts) and the option validation, which captured a stack trace (ow's
 * callsites) on every request: ~0.1 ms of CPU a fetch, a tenth of what got-scraping cost in all.
 */
const scraping = got.extend({
  handlers: [hooks.fixDecompress],
  http2: false,
  https: { rejectUnauthorized: false },
  throwHttpErrors: false,
  followRedirect: false,
  timeout: { request: 60_000 },
  retry: { limit: 0 },
  headers: { 'user-agent': undefined },
  context: { insecureHTTPParser: true },
  agent: { http: new TransformHeadersAgent(http.globalAgent), https: new TransformHeadersAgent(https.globalAgent) },
  // got-scraping types its hooks against its own view of got's options.
  hooks: { beforeRequest: [hooks.insecureParserHook, hooks.sessionDataHook, hooks.proxyHook, hooks.tlsHook] as never[] },
});

type Hop = { statusCode: number; headers: Record<string, string>; body: Buffer; truncated: boolean };

async function requestOnce(url: URL, opts: FetchOptions, headers: Record<string, string>): Promise<Hop> {
  opts.guard.checkUrl(url);
  // Through a proxy the proxy resolves the name; we still refuse names that resolve to private ranges here.
  if (opts.proxyUrl) await opts.guard.resolve(url.hostname);
  const stream = scraping.stream({
    url,
    method: 'GET',
    headers,
    dnsLookup: opts.proxyUrl ? undefined : (opts.guard.lookup as never),
    // What got-scraping's hooks read: the proxy to go through, the Crawlee session its data belongs to.
    context: { proxyUrl: opts.proxyUrl, sessionToken: opts.sessionToken },
    signal: opts.signal,
  } as never) as unknown as NodeJS.ReadableStream & { destroy(): void; on(e: string, f: (...a: never[]) => void): void };
  const response = await new Promise<{ statusCode: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    stream.on('response', resolve as never);
    stream.on('error', reject as never);
  });
  const statusCode = response.statusCode;
  const flat = flatHeaders(response.headers);
  if (REDIRECT.has(statusCode) && flat.location) {
    stream.destroy();
    return { statusCode, headers: flat, body: Buffer.alloc(0), truncated: false };
  }
  const kind = kindOf(flat['content-type'] ?? '');
  const limit = opts.full || kind === 'html' || kind === 'text' ? opts.maxBytes : MEDIA_PREFIX_BYTES;
  const chunks: Buffer[] = [];
  let length = 0;
  let truncated = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= limit) { truncated = true; break; }
  }
  if (truncated) stream.destroy();
  return { statusCode, headers: flat, body: Buffer.concat(chunks), truncated };
}

/**
 * Fetches a target through the guard, following up to `maxRedirects` redirects by hand so that every hop is
 * checked and recorded. A 4xx or 5xx answer is a result, not an error.
 */
export async function fetchTarget(target: string, opts: FetchOptions): Promise<FetchResult> {
  const maxRedirects = opts.maxRedirects ?? 10;
  const own: Record<string, string> = { ...opts.headers };
  if (opts.userAgent) own['user-agent'] = opts.userAgent;
  // A browser's headers for the session, the request's own over them: the same on every hop.
  const headers = requestHeaders(opts.sessionToken, own);
  const redirects: FetchResult['redirects'] = [];
  let url = new URL(target);
  try {
    for (;;) {
      const hop = await requestOnce(url, opts, headers);
      if (REDIRECT.has(hop.statusCode) && hop.headers.location) {
        if (redirects.length >= maxRedirects) {
          throw new RefractError('EMAXREDIRECTS', `The target redirected more than ${maxRedirects} times`, { data: { redirects: redirects.length } });
        }
        redirects.push({ statusCode: hop.statusCode, url: url.href });
        url = new URL(hop.headers.location, url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefractError('EINVALURL', `The target redirected to an unsupported URL: ${url.href}`);
        continue;
      }
      const contentType = hop.headers['content-type'] ?? '';
      // Bytes that no text holds (NUL in the first kilobyte), whatever they are served as, are not parsed as a
      // page: a 2 MB binary served as text/html cost ~300 MB of RSS as a document.
      const served = kindOf(contentType);
      const kind = (served === 'html' || served === 'text') && binary(hop.body) ? 'other' : served;
      const declared = Number(hop.headers['content-length']);
      const size = Number.isFinite(declared) && declared >= 0 && hop.headers['content-length'] !== undefined ? declared
        : hop.truncated ? undefined : hop.body.length;
      const text = kind === 'html' || kind === 'text' ? decodeBody(hop.body, contentType) : '';
      return { url: url.href, statusCode: hop.statusCode, headers: hop.headers, redirects, contentType, kind, body: hop.body, size, text, truncated: hop.truncated };
    }
  } catch (err) {
    throw fromNetwork(err, opts.signal, url.href);
  }
}
