import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { withSize, type Media } from './media.ts';

const EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'application/pdf': 'pdf', 'video/mp4': 'mp4', 'video/webm': 'webm',
  'text/html': 'html', 'text/csv': 'csv', 'application/json': 'json',
};
const KNOWN_EXT = /\.(png|jpe?g|pdf|mp4|webm|html?|csv|json)$/i;
const TYPE: Record<string, string> = Object.fromEntries(Object.entries(EXT).map(([t, e]) => [e, t]));
// `<sha256>.<ext>`, or with the caller's `filename`: `<sha256>/<filename>.<ext>` (the same file, named).
const NAME = /^([a-f0-9]{64})(?:\/([\w.-]{1,100}))?\.([a-z0-9]{2,5})$/;

/**
 * The `filename` a caller asked for as a safe last path segment: letters, digits, `.`, `_` and `-` (others become
 * `-`), without an extension (each file gets its own); undefined when nothing usable is left.
 */
export function assetFileName(wanted: string | undefined): string | undefined {
  if (wanted === undefined) return undefined;
  // One name for every file a request makes (a screenshot and a PDF): an extension given with it is dropped.
  const base = wanted.trim().replace(KNOWN_EXT, '').replace(/[^\w.-]+/g, '-').replace(/^[.-]+|[.-]+$/g, '').slice(0, 100);
  return base || undefined;
}

/** A content-addressed store of generated files (screenshots, PDFs, videos), served under `/assets/`. */
export interface AssetStore {
  /** Stores bytes and returns a Media object whose URL serves them (named `filename` when given). */
  put(bytes: Buffer, contentType: string, filename?: string): Promise<Media>;
  /** Reads an asset by its file name (`<sha256>.<ext>` or `<sha256>/<filename>.<ext>`), or undefined. */
  get(name: string): Promise<{ bytes: Buffer; contentType: string; filename: string } | undefined>;
  /** The file name of an asset URL of this store, if it is one. */
  nameOf(url: string): string | undefined;
}

/** Creates the store in a local folder; links are `baseUrl` + file name (default `<publicUrl>/assets/`). */
export function createAssetStore(dir: string, publicUrl: string, baseUrl = ''): AssetStore {
  const base = baseUrl ? `${baseUrl.replace(/\/+$/, '')}/` : `${publicUrl.replace(/\/+$/, '')}/assets/`;
  let ready: Promise<unknown> | undefined;
  return {
    async put(bytes, contentType, filename) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const ext = EXT[contentType] ?? 'bin';
      const digest = createHash('sha256').update(bytes).digest('hex');
      const file = path.join(dir, `${digest}.${ext}`);
      // Same bytes, same name: an existing file is already the asset. A caller's name is a path to the same file.
      if (!(await stat(file).catch(() => undefined))) await writeFile(file, bytes);
      const named = assetFileName(filename);
      return withSize({ url: `${base}${digest}${named ? `/${named}` : ''}.${ext}`, type: ext }, bytes.length);
    },
    async get(name) {
      const m = NAME.exec(name);
      if (!m) return undefined;
      const [, digest, named, ext] = m;
      const bytes = await readFile(path.join(dir, `${digest}.${ext}`)).catch(() => undefined);
      return bytes ? { bytes, contentType: TYPE[ext!] ?? 'application/octet-stream', filename: `${named ?? digest}.${ext}` } : undefined;
    },
    nameOf(url) {
      if (!url.startsWith(base)) return undefined;
      const name = url.slice(base.length);
      return NAME.test(name) ? name : undefined;
    },
  };
}
