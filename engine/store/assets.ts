import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import mime from 'mime-types';
import parseRange from 'range-parser';
import type { Media } from '../kernel/media.ts';
import { RefractError } from '../kernel/errors.ts';

// Generated files (screenshots, PDFs, videos) are content-addressed: `<sha256>.<ext>`, or with the caller's
// `filename`, `<sha256>/<filename>.<ext>` (the same bytes, named). Stores keep `<sha256>.<ext>` only.
const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'application/pdf': 'pdf',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'text/html': 'html',
  'text/csv': 'csv',
  'application/json': 'json',
};
const KNOWN_EXT = /\.(png|jpe?g|webp|avif|pdf|mp4|webm|html?|csv|json)$/i;
const TYPE: Record<string, string> = Object.fromEntries(Object.entries(EXT).map(([t, e]) => [e, t]));
const NAME = /^([a-f0-9]{64})(?:\/([\w.-]{1,100}))?\.([a-z0-9]{1,10})$/;

/** The extension of a type: ours for the files Refract makes (`jpg`, not `jpeg`), else the registry's (mime-db). */
const extensionOf = (contentType: string): string => {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return EXT[type] ?? (mime.extension(type) || 'bin');
};
/** The type a stored extension is served as. */
const typeOf = (ext: string): string => TYPE[ext] ?? (mime.contentType(ext) || 'application/octet-stream');

/**
 * The `filename` a caller asked for as a safe last path segment: letters, digits, `.`, `_` and `-` (others become
 * `-`), without an extension (each file gets its own); undefined when nothing usable is left.
 */
export function assetFileName(wanted: string | undefined): string | undefined {
  if (wanted === undefined) return undefined;
  // One name for every file a request makes (a screenshot and a PDF): an extension given with it is dropped.
  const base = wanted
    .trim()
    .replace(KNOWN_EXT, '')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 100);
  return base || undefined;
}

/** A link's file name split: the stored object (`<sha256>.<ext>`), its type, and the name it is served under. */
export interface AssetName {
  stored: string;
  contentType: string;
  filename: string;
}

export function parseAssetName(name: string): AssetName | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const [, digest, named, ext] = m;
  return {
    stored: `${digest}.${ext}`,
    contentType: typeOf(ext!),
    filename: `${named ?? digest}.${ext}`,
  };
}

/** Where bytes of a type are stored: their digest, extension and stored name (`<sha256>.<ext>`). */
export function storedNameOf(bytes: Buffer, contentType: string): { digest: string; ext: string; stored: string } {
  const ext = extensionOf(contentType);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return { digest, ext, stored: `${digest}.${ext}` };
}

/** The link of stored bytes: `base` + digest (+ `/filename`) + extension. */
export function assetLink(base: string, digest: string, ext: string, filename: string | undefined): string {
  const named = assetFileName(filename);
  return `${base}${digest}${named ? `/${named}` : ''}.${ext}`;
}

/** Bytes of a stored asset as a store reads them: a stream of the whole object or of `range` (inclusive ends). */
export interface StoredBytes {
  body: Readable;
  size: number;
}

/**
 * Where generated files live: a local folder (bounded by size and age) or an S3 bucket shared by every process.
 * Links are made by the store (`url`), served under `/assets/` by any process, or by the bucket itself.
 */
export interface AssetStore {
  /** Stores bytes and returns a Media object whose URL serves them (named `filename` when given). */
  put(bytes: Buffer, contentType: string, filename?: string): Promise<Media>;
  /** Streams a stored object (`<sha256>.<ext>`), whole or a byte range; undefined when it is gone. */
  read(stored: string, range?: { start: number; end: number }): Promise<StoredBytes | undefined>;
  /** The size of a stored object, undefined when it is gone. */
  size(stored: string): Promise<number | undefined>;
  /** Whether a stored object still exists (answers linking a deleted one are made again). */
  has(stored: string): Promise<boolean>;
  /** The file name of an asset URL of this store, if it is one. */
  nameOf(url: string): string | undefined;
  /** Writes and removes a small object: throws when the store cannot store (credentials, permissions, space). */
  probe(): Promise<void>;
  /** Stops background work (retention) and releases connections. */
  close(): Promise<void>;
}

/** A store whose writes are watched: `writable()` is what the last write or probe found (readiness reads it). */
export interface WatchedStore extends AssetStore {
  writable(): boolean;
}

/**
 * Watches a store: a write that fails is ESTORAGE (the request fails with it, never a null output in a 200) and
 * marks the store unwritable; a write or a probe that succeeds marks it writable again. Probed at once, then every
 * `intervalMs` (a store that failed is found again without waiting for a request).
 */
export function watchStore(
  store: AssetStore,
  logger: { error(msg: string, extra?: unknown): void; info(msg: string): void },
  intervalMs = 30_000,
): WatchedStore {
  // Not known to be writable until the first probe (or write) says so: readiness waits for it.
  let writable = false;
  let known = false;
  const mark = (ok: boolean, err?: unknown) => {
    if (ok && !writable && known) logger.info('assets: the store is writable again');
    if (!ok && (writable || !known))
      logger.error('assets: the store cannot write', { error: (err as Error)?.message ?? String(err) });
    writable = ok;
    known = true;
  };
  const probe = () =>
    store.probe().then(
      () => mark(true),
      (err: unknown) => {
        mark(false, err);
        throw err;
      },
    );
  const first = probe().catch(() => undefined);
  const timer = setInterval(() => {
    void probe().catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return {
    ...store,
    async put(bytes, contentType, filename) {
      try {
        const media = await store.put(bytes, contentType, filename);
        mark(true);
        return media;
      } catch (err) {
        mark(false, err);
        throw new RefractError(
          'ESTORAGE',
          `The generated file could not be stored: ${(err as Error)?.message ?? String(err)}`.slice(0, 300),
          { cause: err },
        );
      }
    },
    probe,
    writable: () => writable,
    async close() {
      clearInterval(timer);
      await first;
      await store.close();
    },
  };
}

/** Reads a whole asset by its file name (`<sha256>.<ext>` or `<sha256>/<filename>.<ext>`), or undefined. */
export async function readAsset(
  store: AssetStore,
  name: string,
): Promise<{ bytes: Buffer; contentType: string; filename: string } | undefined> {
  const parsed = parseAssetName(name);
  const read = parsed && (await store.read(parsed.stored));
  return read && parsed
    ? { bytes: await buffer(read.body), contentType: parsed.contentType, filename: parsed.filename }
    : undefined;
}

/**
 * An asset as the server answers it: the whole file (200), a range of it (206), a range past its end (416); for a
 * HEAD, its length without a body.
 */
export type ServedAsset =
  | {
      status: 200 | 206;
      name: AssetName;
      body?: Readable;
      length: number;
      size: number;
      range?: { start: number; end: number };
    }
  | { status: 416; size: number };

/**
 * Opens an asset for an HTTP answer, honouring one `Range` of bytes (several ranges, or a malformed header, are
 * answered with the whole file, as RFC 9110 allows); a HEAD reads the size alone. Undefined when there is no such
 * asset.
 */
export async function openAsset(
  store: AssetStore,
  name: string,
  rangeHeader?: string,
  head = false,
): Promise<ServedAsset | undefined> {
  const parsed = parseAssetName(name);
  if (!parsed) return undefined;
  if (head) {
    const size = await store.size(parsed.stored);
    return size === undefined ? undefined : { status: 200, name: parsed, length: size, size };
  }
  if (rangeHeader) {
    const size = await store.size(parsed.stored);
    if (size === undefined) return undefined;
    const ranges = parseRange(size, rangeHeader, { combine: true });
    if (ranges === -1) return { status: 416, size };
    if (Array.isArray(ranges) && ranges.length === 1 && ranges.type === 'bytes') {
      const range = { start: ranges[0]!.start, end: ranges[0]!.end };
      const read = await store.read(parsed.stored, range);
      return read && { status: 206, name: parsed, body: read.body, length: range.end - range.start + 1, size, range };
    }
  }
  const read = await store.read(parsed.stored);
  return read && { status: 200, name: parsed, body: read.body, length: read.size, size: read.size };
}

/** The stored names of this store's assets linked anywhere in `data` (an answer's screenshot, PDF, video...). */
export function linkedAssets(data: unknown, store: AssetStore, out: string[] = []): string[] {
  if (typeof data === 'string') {
    if (data.length < 200) {
      const name = store.nameOf(data);
      const parsed = name && parseAssetName(name);
      if (parsed) out.push(parsed.stored);
    }
  } else if (Array.isArray(data)) {
    for (const item of data) linkedAssets(item, store, out);
  } else if (data && typeof data === 'object') {
    for (const key in data) linkedAssets((data as Record<string, unknown>)[key], store, out);
  }
  return out;
}

/** Whether every asset an answer links still exists (a cached answer linking a deleted file is made again). */
export async function assetsPresent(data: unknown, store: AssetStore): Promise<boolean> {
  const names = linkedAssets(data, store);
  if (names.length === 0) return true;
  const present = await Promise.all(names.map((n) => store.has(n)));
  return present.every(Boolean);
}

/** The part of a link before the file name: `baseUrl`, or `<publicUrl>/assets/`. */
export function linkBase(publicUrl: string, baseUrl: string): string {
  return baseUrl ? `${baseUrl.replace(/\/+$/, '')}/` : `${publicUrl.replace(/\/+$/, '')}/assets/`;
}

/** The file name of a link under `base`, if it is an asset name. */
export function nameUnder(base: string, url: string): string | undefined {
  if (!url.startsWith(base)) return undefined;
  const name = url.slice(base.length);
  return NAME.test(name) ? name : undefined;
}
