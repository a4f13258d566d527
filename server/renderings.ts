// An answer's body as `embed` and `filter` ask (server/handler.ts sends it): the JSend envelope, one field of the
// Data object, or the file a URL field names; each with its entity tag, and kept with its cache entry so that a HIT
// sends bytes made already.
import { createHash } from 'node:crypto';
import { embedValue, filtered, type CacheEntry, type Plan } from '../engine/index.ts';
import { fetchAsset } from './asset.ts';
import type { HandlerDeps } from './handler.ts';
import { success } from './jsend.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The content type a plugin declares for a text field (a data rule read as Markdown answers text/markdown). */
function embedTypeOf(plan: Plan, path: string, deps: Pick<HandlerDeps, 'engine'>): string | undefined {
  const parts = path.split('.');
  for (const step of plan.steps) {
    const type = deps.engine.registry.get(step.name)?.embedType?.(parts, step.opts);
    if (type) return type;
  }
  return undefined;
}

/** An answer's body as sent, with its type and entity tag. */
export interface Rendered {
  type: string;
  body: Buffer;
  etag: string;
}

function rendered(type: string, body: Buffer | string): Rendered {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return { type, body: bytes, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"` };
}

/** Renders an entry as `embed` or `filter` ask; `reuse` says whether the result depends on the entry alone. */
async function render(
  plan: Plan,
  entry: CacheEntry,
  deps: Pick<HandlerDeps, 'engine'>,
): Promise<{ out: Rendered; reuse: boolean }> {
  const { embed } = plan.options;
  if (embed) {
    const value = embedValue(entry.data, embed);
    if (typeof value === 'string' && /^https?:\/\//.test(value) && /(^|\.)url$/.test(embed)) {
      const asset = await fetchAsset(value, deps.engine);
      return { out: rendered(asset.contentType, asset.body), reuse: false };
    }
    if (typeof value === 'string')
      return { out: rendered(embedTypeOf(plan, embed, deps) ?? 'text/plain; charset=utf-8', value), reuse: true };
    return { out: rendered(JSON_TYPE, JSON.stringify(value)), reuse: true };
  }
  const data = filtered(entry.data, plan.options);
  const extra = entry.warnings.length ? { warnings: entry.warnings } : {};
  return { out: rendered(JSON_TYPE, JSON.stringify(success(data, extra))), reuse: true };
}

/** Most variants (filters, embeds) of one entry whose rendered bodies are kept. */
const MAX_VARIANTS = 4;

/**
 * Rendered bodies of stored entries, kept as long as the entry lives in the cache (an unchanged entry is the same
 * frozen object on every read, so its `data` identifies it): a cache HIT sends bytes already made, with their ETag.
 */
export function createRenderings() {
  const byData = new WeakMap<object, Map<string, Rendered>>();
  return async (plan: Plan, entry: CacheEntry, deps: Pick<HandlerDeps, 'engine'>): Promise<Rendered> => {
    const variant = `${plan.options.embed ?? ''}\u0000${plan.options.filter?.join(',') ?? ''}`;
    // Only a stored entry (frozen) is read again as the same object; a fresh MISS result is rendered once.
    const stored = Object.isFrozen(entry.data);
    const kept = stored ? byData.get(entry.data) : undefined;
    const known = kept?.get(variant);
    if (known) return known;
    const { out, reuse } = await render(plan, entry, deps);
    if (reuse && stored) {
      const variants = kept ?? new Map<string, Rendered>();
      if (variants.size < MAX_VARIANTS) variants.set(variant, out);
      byData.set(entry.data, variants);
    }
    return out;
  };
}
