// Change tracking (`changes`): what a page's last successful read said, by caller, address and tag, and what changed
// since. The `changes` step (plugins/changes) reads a snapshot of the page (its main content as Markdown, its fields);
// here, outside the response cache, it is compared with the baseline and, when the read was clean, becomes the new
// baseline. A read that failed, answered an error status or lacks part of its answer is never a change and never
// moves the baseline. Baselines live in files under the data folder, or in Redis when the service has it.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Keyv from 'keyv';
import { createTwoFilesPatch } from 'diff';
import type { Clock } from './state.ts';
import type { Media } from '../kernel/media.ts';
import { compareScreens } from './visual.ts';

/** A field's value as compared: a leaf of the Data object (an array as its JSON). */
export type FieldValue = string | number | boolean | null;

/** What the `changes` step reads of a page: its main content as Markdown and its fields by path (`price`, `image`). */
export interface ChangeSnapshot {
  content: string;
  fields: Record<string, FieldValue>;
  /** The read's screenshot (when it took one), scaled to one width, as base64 PNG: compared pixel by pixel. */
  visual?: string;
}

/** A snapshot of a clean read, with when it was made. */
export interface Baseline extends ChangeSnapshot {
  at: string;
}

/** The change report answered as `data.changes`. */
export interface ChangeReport {
  /** `new` (no earlier read), `same`, `changed`, or `failed` (this read is not compared: see `reason`). */
  status: 'new' | 'same' | 'changed' | 'failed';
  tag: string | null;
  checkedAt: string;
  /** When the read compared with was made (null when there was none). */
  previousAt: string | null;
  reason?: string;
  /** `content`: a unified diff of the Markdown (null when it did not change); `fields`: each changed field. */
  diff?: {
    content: string | null;
    fields: Record<string, { before: FieldValue; after: FieldValue }>;
    /** Both reads took a screenshot: the share of its pixels that changed, and them drawn in red (a file). */
    visual?: { share: number; image: Media | null };
  };
}

/** Where baselines are kept. */
export interface ChangeStore {
  get(key: string): Promise<Baseline | undefined>;
  set(key: string, baseline: Baseline): Promise<void>;
}

/** Baselines as files (`<dir>/<key>.json`), written whole and renamed into place: a crash never leaves half of one. */
export function fileChangeStore(dir: string): ChangeStore {
  let made: Promise<unknown> | undefined;
  const file = (key: string) => path.join(dir, `${key}.json`);
  return {
    async get(key) {
      try {
        return JSON.parse(await readFile(file(key), 'utf8')) as Baseline;
      } catch {
        return undefined;
      }
    },
    async set(key, baseline) {
      // Made once; a failure (a folder that cannot be written) is tried again by the next write.
      await (made ??= mkdir(dir, { recursive: true }).catch((err) => {
        made = undefined;
        throw err;
      }));
      const temp = `${file(key)}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      await writeFile(temp, JSON.stringify(baseline));
      await rename(temp, file(key));
    },
  };
}

/** Baselines in a Keyv store (the service's Redis), shared by every process. */
export function keyvChangeStore(store: Keyv['store']): ChangeStore {
  const keyv = new Keyv<Baseline>({ store, namespace: 'refract-changes' });
  return {
    get: async (key) => (await keyv.get(key)) ?? undefined,
    set: async (key, baseline) => {
      await keyv.set(key, baseline);
    },
  };
}

/** How long the content's diff may take (two long pages that share little): past it, the diff says so. */
const DIFF_TIMEOUT_MS = 2000;

/** The differences between two snapshots, or undefined when there are none. */
async function differences(
  before: ChangeSnapshot,
  after: ChangeSnapshot,
  visual: VisualOptions,
): Promise<ChangeReport['diff']> {
  const fields: Record<string, { before: FieldValue; after: FieldValue }> = {};
  for (const name of new Set([...Object.keys(before.fields), ...Object.keys(after.fields)])) {
    const was = before.fields[name] ?? null;
    const now = after.fields[name] ?? null;
    if (was !== now) fields[name] = { before: was, after: now };
  }
  let content: string | null = null;
  if (before.content !== after.content)
    content =
      createTwoFilesPatch('before', 'after', before.content, after.content, undefined, undefined, {
        context: 3,
        timeout: DIFF_TIMEOUT_MS,
      })
        // From its `--- before` line (the lines above it name no file).
        ?.replace(/^[\s\S]*?(?=^--- )/m, '') ?? '(the content changed too much to compare in time)';
  let screens: { share: number; image: Media | null } | undefined;
  if (before.visual && after.visual) {
    const { share, image } = compareScreens(Buffer.from(before.visual, 'base64'), Buffer.from(after.visual, 'base64'));
    // Below the share asked for, the screenshot is the same (a caret, a pixel of a carousel): no file is made.
    if (share >= visual.minShare && share > 0)
      screens = { share: Math.round(share * 1e6) / 1e6, image: image && visual.save ? await visual.save(image) : null };
  }
  if (content === null && Object.keys(fields).length === 0 && !screens) return undefined;
  return screens ? { content, fields, visual: screens } : { content, fields };
}

/** How screenshots are compared: the share of pixels that makes a change, and where the diff image is kept. */
export interface VisualOptions {
  minShare: number;
  save?: (png: Buffer) => Promise<Media>;
}

/** What a read of a page was, for the tracker: its snapshot, the target's status and the answer's warnings. */
export interface ChangeRead {
  scope: string;
  url: string;
  tag: string | undefined;
  snapshot: ChangeSnapshot;
  statusCode: number | undefined;
  warnings: readonly { message: string }[];
  /** The share of the screenshot's pixels (0 to 1) that must differ for it to be a change. */
  minShare?: number;
}

/** Compares reads with their baselines and keeps the clean ones as the next baselines. */
export interface ChangeTracker {
  report(read: ChangeRead): Promise<ChangeReport>;
}

export function createChangeTracker(
  store: ChangeStore,
  clock: Clock,
  saveImage?: VisualOptions['save'],
): ChangeTracker {
  return {
    async report({ scope, url, tag, snapshot, statusCode, warnings, minShare = 0 }) {
      const key = createHash('sha256')
        .update(JSON.stringify([scope, url, tag ?? '']))
        .digest('hex');
      const checkedAt = new Date(clock.now()).toISOString();
      const previous = await store.get(key);
      const base = { tag: tag ?? null, checkedAt, previousAt: previous?.at ?? null };
      const failed =
        statusCode !== undefined && statusCode >= 400
          ? `The page answered ${statusCode}`
          : warnings.length
            ? `The read is incomplete: ${warnings[0]!.message}`
            : undefined;
      if (failed) return { status: 'failed', ...base, reason: `${failed}; the last good read stays the baseline` };
      await store.set(key, { ...snapshot, at: checkedAt });
      if (!previous) return { status: 'new', ...base };
      const diff = await differences(previous, snapshot, { minShare, save: saveImage });
      return diff ? { status: 'changed', ...base, diff } : { status: 'same', ...base };
    },
  };
}
