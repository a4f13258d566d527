import http from 'node:http';
import https from 'node:https';
import { pipeline, Transform, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { getAgents, TransformHeadersAgent } from 'got-scraping';
import { RefractError } from '../kernel/errors.ts';
import type { Guard } from './guard.ts';
import { decodeBody } from './charset.ts';
import { fromNetwork } from '../kernel/failures.ts';
import { requestHeaders } from './browser-headers.ts';
import { tlsProfile } from './tls-profile.ts';

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
 * The transport: node:http with got-scraping's parts that make a request look like a browser's, composed here instead
 * of through got. got-scraping's agents give the headers a browser's order and case (TransformHeadersAgent) and go
 * through proxies (getAgents: HTTP, HTTPS and HTTP/2 proxies); its TLS hook gives the browser's ciphers, signature
 * algorithms and curves. got's own request machinery (options normalisation, hooks, timers, its Duplex) cost ~0.3 ms
 * of CPU a fetch back to back and ~0.7 ms after a quiet moment, when its code is cold: half of a small page's fetch.
 */
const DIRECT = {
  http: new TransformHeadersAgent(http.globalAgent),
  https: new TransformHeadersAgent(https.globalAgent),
};

type Agents = { http: http.Agent; https: https.Agent };
const FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

/**
 * A decoder made when the first bytes arrive (`make` may look at them), so that an empty body, which servers send
 * with any Content-Encoding (a 204, a HEAD-like answer), decodes to nothing instead of failing as truncated.
 */
function lazyDecoder(make: (first: Buffer) => Transform): Transform {
  let inner: Transform | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!inner) {
        inner = make(chunk);
        inner.on('data', (data: Buffer) => this.push(data));
        inner.on('error', (err) => this.destroy(err));
      }
      inner.write(chunk, () => done());
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
  });
}

const BROTLI_FLUSH = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

/** A decoder for a Content-Encoding, or undefined to read the body as sent (identity or an unknown coding). */
function decoderFor(encoding: string): Transform | undefined {
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return lazyDecoder(() => zlib.createGunzip(FLUSH));
    // Servers send zlib-wrapped and raw deflate alike as `deflate`: the first byte tells which.
    case 'deflate':
    case 'x-deflate':
      return lazyDecoder((first) =>
        (first[0]! & 0x0f) === 8 ? zlib.createInflate(FLUSH) : zlib.createInflateRaw(FLUSH),
      );
    case 'br':
      return lazyDecoder(() => zlib.createBrotliDecompress(BROTLI_FLUSH));
    case 'zstd':
      return lazyDecoder(() => zlib.createZstdDecompress());
    default:
      return undefined;
  }
}

export type Hop = { statusCode: number; headers: Record<string, string>; body: Buffer; truncated: boolean };

/**
 * The answer of a hop as a FetchResult, its `kind` and `text` as the caller read them; its size is the declared
 * length when that is a length, else what was read (unknown when the read was cut short).
 */
export function resultOf(
  url: URL,
  hop: Hop,
  redirects: FetchResult['redirects'],
  kind: TargetKind,
  text: string,
): FetchResult {
  const declared = Number(hop.headers['content-length']);
  const size =
    Number.isFinite(declared) && declared >= 0 && hop.headers['content-length'] !== undefined
      ? declared
      : hop.truncated
        ? undefined
        : hop.body.length;
  return {
    url: url.href,
    statusCode: hop.statusCode,
    headers: hop.headers,
    redirects,
    contentType: hop.headers['content-type'] ?? '',
    kind,
    body: hop.body,
    size,
    text,
    truncated: hop.truncated,
  };
}

/** Sends one GET and waits for its response head (a redirect is not followed: see fetchTarget). */
async function send(url: URL, opts: FetchOptions, headers: Record<string, string>): Promise<http.IncomingMessage> {
  opts.guard.checkUrl(url);
  const secure = url.protocol === 'https:';
  let agents: Agents = DIRECT as never;
  if (opts.proxyUrl) {
    // Through a proxy the proxy resolves the name; we still refuse names that resolve to private ranges here.
    await opts.guard.resolve(url.hostname);
    agents = (await getAgents(new URL(opts.proxyUrl), false)) as never;
  }
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(
      url,
      {
        method: 'GET',
        headers,
        agent: secure ? agents.https : agents.http,
        // The proxy resolves the name when there is one; otherwise every connection goes to a checked address.
        lookup: opts.proxyUrl ? undefined : (opts.guard.lookup as never),
        insecureHTTPParser: true,
        signal: opts.signal,
        ...(secure ? { rejectUnauthorized: false, ...tlsProfile(headers) } : {}),
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
}

async function requestOnce(url: URL, opts: FetchOptions, headers: Record<string, string>): Promise<Hop> {
  const response = await send(url, opts, headers);
  const statusCode = response.statusCode ?? 0;
  const flat = flatHeaders(response.headers);
  if (REDIRECT.has(statusCode) && flat.location) {
    response.destroy();
    return { statusCode, headers: flat, body: Buffer.alloc(0), truncated: false };
  }
  const kind = kindOf(flat['content-type'] ?? '');
  const limit = opts.full || kind === 'html' || kind === 'text' ? opts.maxBytes : MEDIA_PREFIX_BYTES;
  // The body as it was before its Content-Encoding (which the headers then no longer name, as a browser reports it).
  const decoder = decoderFor(flat['content-encoding'] ?? '');
  if (decoder) delete flat['content-encoding'];
  const body: Readable = decoder ? pipeline(response, decoder, () => {}) : response;
  const chunks: Buffer[] = [];
  let length = 0;
  let truncated = false;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      // The limit holds for decoded bytes: a small compressed body that inflates to gigabytes stops here.
      if (length >= limit) {
        truncated = true;
        break;
      }
    }
  } finally {
    if (truncated || !response.complete) response.destroy();
  }
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
          throw new RefractError('EMAXREDIRECTS', `The target redirected more than ${maxRedirects} times`, {
            data: { redirects: redirects.length },
          });
        }
        redirects.push({ statusCode: hop.statusCode, url: url.href });
        url = new URL(hop.headers.location, url);
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          throw new RefractError('EINVALURL', `The target redirected to an unsupported URL: ${url.href}`);
        continue;
      }
      const contentType = hop.headers['content-type'] ?? '';
      // Bytes that no text holds (NUL in the first kilobyte), whatever they are served as, are not parsed as a
      // page: a 2 MB binary served as text/html cost ~300 MB of RSS as a document.
      const served = kindOf(contentType);
      const kind = (served === 'html' || served === 'text') && binary(hop.body) ? 'other' : served;
      const text = kind === 'html' || kind === 'text' ? decodeBody(hop.body, contentType) : '';
      return resultOf(url, hop, redirects, kind, text);
    }
  } catch (err) {
    throw fromNetwork(err, opts.signal, url.href);
  }
}
