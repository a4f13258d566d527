import zlib from 'node:zlib';
import { promisify } from 'node:util';
import Negotiator from 'negotiator';
import type { HandlerResponse } from './handler.ts';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const COMPRESSIBLE = /json|text|markdown|xml|javascript|svg/;
const MIN_COMPRESS = 512;

/** Compressed forms of bodies that are sent again (a cache HIT answers the same Buffer each time). */
const compressed = new WeakMap<Buffer, Map<string, Buffer>>();

/** The encoding to answer with (q-values count: `br;q=0, gzip` is gzip; on a tie brotli first), none for identity. */
export function encodingOf(res: HandlerResponse, acceptEncoding: string): 'br' | 'gzip' | undefined {
  if (
    !acceptEncoding ||
    Buffer.byteLength(res.body) < MIN_COMPRESS ||
    !COMPRESSIBLE.test(res.headers['content-type'] ?? '')
  )
    return undefined;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as {
    encoding(available: string[], opts: { preferred: string[] }): string | undefined;
  };
  const encoding = negotiator.encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip', 'identity'] });
  return encoding === 'br' || encoding === 'gzip' ? encoding : undefined;
}

/** The response with its body compressed as `encoding` says (a body sent again is compressed once). */
export async function compress(res: HandlerResponse, encoding: 'br' | 'gzip'): Promise<HandlerResponse> {
  const body = typeof res.body === 'string' ? Buffer.from(res.body) : res.body;
  const kept = compressed.get(body);
  let out = kept?.get(encoding);
  if (!out) {
    out =
      encoding === 'br'
        ? await brotli(body, {
            params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
          })
        : await gzip(body, { level: 6 });
    // Only a body that is not ours alone (a string made into bytes just now is) may be asked for again.
    if (typeof res.body !== 'string') compressed.set(body, (kept ?? new Map()).set(encoding, out));
  }
  return { ...res, headers: { ...res.headers, 'content-encoding': encoding }, body: out };
}
