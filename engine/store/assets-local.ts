import { createReadStream } from 'node:fs';
import { mkdir, readdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EventEmitter } from 'node:events';
import { withSize } from '../kernel/media.ts';
import type { Logger } from '../kernel/log.ts';
import { assetLink, linkBase, nameUnder, storedNameOf, type AssetStore } from './assets.ts';

/** Bounds of a local asset folder: total bytes and age of a file (0: unbounded). */
export interface Retention {
  maxBytes: number;
  maxAgeMs: number;
}

export interface LocalStoreOptions {
  dir: string;
  publicUrl: string;
  baseUrl?: string;
  retention?: Retention;
  logger?: Logger;
  /** Told `assets-pruned` ({ removed, bytes }) after each pruning pass that removed files. */
  events?: EventEmitter;
}

/** A pass prunes down to this share of the size bound, so that it does not run again after every new file. */
const LOW_WATER = 0.8;
/** How often files past their age are looked for (at most; a shorter age bound checks more often). */
const AGE_SWEEP_MS = 10 * 60_000;
const STORED = /^[a-f0-9]{64}\.[a-z0-9]{2,5}$/;

/**
 * The embedded default: generated files in a local folder, linked as `<publicUrl>/assets/<name>` (or `baseUrl`).
 * The folder stays under its bounds by a pass in the background, oldest files first (a file written again counts
 * as new): a request never waits for it.
 */
export function createLocalStore(opts: LocalStoreOptions): AssetStore {
  const { dir } = opts;
  const base = linkBase(opts.publicUrl, opts.baseUrl ?? '');
  const retention = createPruner(opts);
  let ready: Promise<unknown> | undefined;
  const file = (stored: string) => path.join(dir, stored);
  const store: AssetStore = {
    async put(bytes, contentType, filename) {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const { digest, ext, stored } = storedNameOf(bytes, contentType);
      const target = file(stored);
      // Same bytes, same name: an existing file is already the asset; touched, it is the newest for the pruner.
      const now = new Date();
      const existed = await utimes(target, now, now).then(
        () => true,
        () => false,
      );
      if (!existed) {
        await writeFile(target, bytes);
        retention.added(bytes.length);
      }
      return withSize({ url: assetLink(base, digest, ext, filename), type: ext }, bytes.length);
    },
    async read(stored, range) {
      const size = await store.size(stored);
      if (size === undefined) return undefined;
      // Opened now: a file pruned between the stat and the first read fails this answer, not the process.
      const body = createReadStream(file(stored), range ? { start: range.start, end: range.end } : {});
      body.on('error', () => {});
      return { body, size };
    },
    size: (stored) =>
      stat(file(stored)).then(
        (s) => (s.isFile() ? s.size : undefined),
        () => undefined,
      ),
    has: async (stored) => (await store.size(stored)) !== undefined,
    nameOf: (url) => nameUnder(base, url),
    async probe() {
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      const check = path.join(dir, `.refract-write-check-${process.pid}`);
      await writeFile(check, 'ok');
      await unlink(check);
    },
    close: async () => retention.close(),
  };
  return store;
}

/** The background pass that keeps the folder within its bounds. */
function createPruner(opts: LocalStoreOptions) {
  const { dir, retention, logger, events } = opts;
  const maxBytes = retention?.maxBytes ?? 0;
  const maxAgeMs = retention?.maxAgeMs ?? 0;
  /** The folder's size as last counted plus what was written since; undefined until first counted. */
  let total: number | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  async function pass(): Promise<void> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const files = (
      await Promise.all(
        names
          .filter((n) => STORED.test(n))
          .map(async (name) => {
            const s = await stat(path.join(dir, name)).catch(() => undefined);
            return s?.isFile() ? { name, size: s.size, mtime: s.mtimeMs } : undefined;
          }),
      )
    )
      .filter((f) => f !== undefined)
      .sort((a, b) => a.mtime - b.mtime);
    let bytes = files.reduce((sum, f) => sum + f.size, 0);
    const oldest = maxAgeMs > 0 ? Date.now() - maxAgeMs : -Infinity;
    const target = maxBytes > 0 && bytes > maxBytes ? maxBytes * LOW_WATER : Infinity;
    let removed = 0;
    for (const f of files) {
      if (f.mtime >= oldest && bytes <= target) break;
      if (
        await unlink(path.join(dir, f.name)).then(
          () => true,
          () => false,
        )
      ) {
        bytes -= f.size;
        removed++;
      }
    }
    total = bytes;
    if (removed) events?.emit('assets-pruned', { removed, bytes });
  }

  function schedule(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err) => logger?.warn('pruning the assets folder failed', { error: (err as Error).message }))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  }

  const bounded = maxBytes > 0 || maxAgeMs > 0;
  const sweep =
    maxAgeMs > 0 ? setInterval(schedule, Math.min(AGE_SWEEP_MS, Math.max(1000, maxAgeMs / 4))).unref() : undefined;
  // The first count runs at start-up, in the background.
  if (bounded) setImmediate(schedule);
  return {
    added(size: number) {
      if (total !== undefined) total += size;
      if (maxBytes > 0 && (total === undefined || total > maxBytes)) schedule();
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      await running;
    },
  };
}
