import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { withSize, type Media } from './media.ts';

const EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'application/pdf': 'pdf', 'video/mp4': 'mp4', 'video/webm': 'webm',
  'text/html': 'html', 'text/csv': 'csv', 'application/json': 'json',
};
const TYPE: Record<string, string> = Object.fromEntries(Object.entries(EXT).map(([t, e]) => [e, t]));
const NAME = /^([a-f0-9]{64})\.([a-z0-9]{2,5})$/;

/** A content-addressed store of generated files (screenshots, PDFs, videos), served under `/assets/`. */
export interface AssetStore {
  /** Stores bytes and returns a Media object whose URL serves them. */
  put(bytes: Buffer, contentType: string): Promise<Media>;
  /** Reads an asset by its file name (`<sha256>.<ext>`), or undefined. */
  get(name: string): Promise<{ bytes: Buffer; contentType: string } | undefined>;
  /** The file name of an asset URL of this store, if it is one. */
  nameOf(url: string): string | undefined;
}

/** Creates the store in a local folder; links are `baseUrl` + file name (default `<publicUrl>/assets/`). */
export function createAssetStore(dir: string, publicUrl: string, baseUrl = ''): AssetStore {
  const base = baseUrl ? `${baseUrl.replace(/\/+$/, '')}/` : `${publicUrl.replace(/\/+$/, '')}/assets/`;
  let ready: Promise<unknown> | undefined;
  return {
    async put(bytes, contentType) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const ext = EXT[contentType] ?? 'bin';
      const name = `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
      const file = path.join(dir, name);
      // Same bytes, same name: an existing file is already the asset.
      if (!(await stat(file).catch(() => undefined))) await writeFile(file, bytes);
      return withSize({ url: base + name, type: ext }, bytes.length);
    },
    async get(name) {
      const m = NAME.exec(name);
      if (!m) return undefined;
      const bytes = await readFile(path.join(dir, name)).catch(() => undefined);
      return bytes ? { bytes, contentType: TYPE[m[2]!] ?? 'application/octet-stream' } : undefined;
    },
    nameOf(url) {
      if (!url.startsWith(base)) return undefined;
      const name = url.slice(base.length);
      return NAME.test(name) ? name : undefined;
    },
  };
}
