// The document as the rules see it: the parsed page and its address, with its JSON-LD, its meta tags and the text
// it shows read once, on first use.
import type { CheerioAPI } from 'cheerio';
import { select } from './select.ts';
import { readJsonLd } from './jsonld.ts';
import { comparable, shownText } from './shown.ts';

/** The document and its address, as every rule sees them. */
export interface Doc {
  $: CheerioAPI;
  url: string;
  /** Every JSON-LD object of the page, `@graph` members included (parsed once). */
  readonly jsonld: Record<string, unknown>[];
  /** `<meta>` contents by lower-cased property/name (and, separately, itemprop), built in one pass. */
  readonly meta: MetaIndex;
  /** What the page shows a reader, as written: its body's text, scripts and styles aside (read once). */
  readonly shownText: string;
  /** The same text as `comparable` writes it, for comparing names with it. */
  readonly shown: string;
  /** What `read` makes of this page, made on the first call and kept for the page's other rules. */
  once<T>(read: (doc: Doc) => T): T;
}

/** `<meta>` values of a page, keyed by lower-cased property or name, and by itemprop. */
export interface MetaIndex {
  byName: Map<string, string[]>;
  byItemprop: Map<string, string[]>;
}

const push = (map: Map<string, string[]>, key: string, value: string) =>
  (map.get(key) ?? map.set(key, []).get(key)!).push(value);

/** Reads every `<meta>` once into an index. */
export function indexMeta($: CheerioAPI): MetaIndex {
  const byName = new Map<string, string[]>();
  const byItemprop = new Map<string, string[]>();
  for (const el of select($, 'meta')) {
    const attrs = el.attribs;
    const value = clean(attrs.content ?? attrs.value);
    if (!value) continue;
    const key = attrs.property ?? attrs.name;
    if (key) push(byName, key.toLowerCase(), value);
    else if (attrs.itemprop) push(byItemprop, attrs.itemprop.toLowerCase(), value);
  }
  return { byName, byItemprop };
}

/** Wraps a parsed page for the rules; the JSON-LD and the meta index are built on first use. */
export function createDoc($: CheerioAPI, url: string): Doc {
  return lazyDoc(() => $, url);
}

/** A page for the rules that is parsed (`parse`) only when a rule first reads it; the rest as `createDoc`. */
export function lazyDoc(parse: () => CheerioAPI, url: string): Doc {
  let $: CheerioAPI | undefined;
  let jsonld: Record<string, unknown>[] | undefined;
  let meta: MetaIndex | undefined;
  let text: string | undefined;
  let shown: string | undefined;
  const kept = new Map<(doc: Doc) => unknown, unknown>();
  return {
    get $() {
      return ($ ??= parse());
    },
    url,
    get jsonld() {
      return (jsonld ??= readJsonLd(this.$));
    },
    get meta() {
      return (meta ??= indexMeta(this.$));
    },
    get shownText() {
      return (text ??= shownText(this.$));
    },
    get shown() {
      return (shown ??= comparable(this.shownText));
    },
    once<T>(read: (doc: Doc) => T): T {
      if (!kept.has(read)) kept.set(read, read(this));
      return kept.get(read) as T;
    },
  };
}

/**
 * Format characters nobody sees, which a field must not carry (one was seen ending a title): soft hyphens, zero-width
 * spaces, word joiners, direction marks, embeddings and isolates, byte-order marks. The joiners that shape a script
 * or an emoji (U+200C, U+200D) stay.
 */
const INVISIBLE = /[\u00AD\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** Collapses whitespace, drops invisible format characters and trims; returns undefined for an empty result. */
export function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(INVISIBLE, '').replace(/\s+/g, ' ').trim();
  return text || undefined;
}
