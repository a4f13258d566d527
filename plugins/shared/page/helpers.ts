import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { select } from './select.ts';
import { readJsonLd } from './jsonld.ts';
import { comparable, shownText } from './shown.ts';
export { byJsonLd } from './jsonld.ts';

/** The document and its address, as every rule sees them. */
export interface Doc {
  $: CheerioAPI;
  url: string;
  /** Every JSON-LD object of the page, `@graph` members included (parsed once). */
  readonly jsonld: Record<string, unknown>[];
  /** `<meta>` contents by lower-cased property/name (and, separately, itemprop), built in one pass. */
  readonly meta: MetaIndex;
  /** What the page shows a reader, as `comparable` writes it: its body's text, scripts and styles aside (read once). */
  readonly shown: string;
}

/** `<meta>` values of a page, keyed by lower-cased property or name, and by itemprop. */
export interface MetaIndex { byName: Map<string, string[]>; byItemprop: Map<string, string[]> }

const push = (map: Map<string, string[]>, key: string, value: string) => (map.get(key) ?? map.set(key, []).get(key)!).push(value);

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
  let shown: string | undefined;
  return {
    get $() { return ($ ??= parse()); },
    url,
    get jsonld() { return (jsonld ??= readJsonLd(this.$)); },
    get meta() { return (meta ??= indexMeta(this.$)); },
    get shown() { return (shown ??= comparable(shownText(this.$))); },
  };
}

/** A rule reads one candidate value from the document; throwing or returning nothing is a miss. */
export type Rule = (doc: Doc) => unknown;

/** Collapses whitespace and trims; returns undefined for an empty result. */
export function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/[\s\u200B\uFEFF]+/g, ' ').trim();
  return text || undefined;
}

/** A rule that takes the first `<meta>` with this property or name (or itemprop, unless told not to). */
export function byMeta(name: string, withItemprop = true): Rule {
  const key = name.toLowerCase();
  return ({ meta }) => meta.byName.get(key)?.[0] ?? (withItemprop ? meta.byItemprop.get(key)?.[0] : undefined);
}

/** A rule that takes the first `<meta>` whose property or name contains a fragment (`modified_time`). */
export function byMetaLike(fragment: string): Rule {
  const part = fragment.toLowerCase();
  return ({ meta }) => {
    for (const [key, values] of meta.byName) if (key.includes(part)) return values[0];
    for (const [key, values] of meta.byItemprop) if (key.includes(part)) return values[0];
    return undefined;
  };
}

/** A rule that takes the first non-empty value `read` gives of the elements matching a selector. */
function firstMatch(selector: string, read: ($: CheerioAPI, el: Element) => unknown): Rule {
  return ({ $ }) => {
    for (const el of select($, selector)) {
      const v = clean(read($, el));
      if (v) return v;
    }
    return undefined;
  };
}

/** A rule that takes the text of the first element matching a selector. */
export const byText = (selector: string): Rule => firstMatch(selector, ($, el) => $(el).text());

/** A rule that takes an attribute of the first element matching a selector that has it. */
export const byAttr = (selector: string, attr: string): Rule => firstMatch(selector, (_, el) => el.attribs[attr]);

/** A rule that lists an attribute of every element matching a selector, for fields that probe candidates in turn. */
export function byAttrs(selector: string, attr: string, limit = 8): Rule {
  return ({ $ }) => select($, selector).slice(0, limit).map((el) => clean(el.attribs[attr])).filter(Boolean);
}

/** Resolves a possibly relative URL against the document; undefined when it is not an http(s) URL. */
export function absoluteUrl(value: unknown, base: string): string | undefined {
  const text = typeof value === 'string' ? value.trim() : typeof value === 'object' && value ? (value as { url?: unknown; '@id'?: unknown }).url ?? (value as { contentUrl?: unknown }).contentUrl : undefined;
  if (typeof text !== 'string' || !text || text.startsWith('data:') || text.startsWith('javascript:')) return undefined;
  try {
    const url = new URL(text.startsWith('//') ? `${new URL(base).protocol}${text}` : text, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Yields every distinct value that `normalize` accepts, rule by rule, evaluating rules only as they are needed. */
export function* candidatesOf<T>(doc: Doc, rules: readonly Rule[], normalize: (v: unknown, doc: Doc) => T | undefined, key: (v: T) => string): Generator<T> {
  const seen = new Set<string>();
  for (const rule of rules) {
    let raw: unknown;
    try { raw = rule(doc); } catch { continue; }
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      let value: T | undefined;
      try { value = normalize(item, doc); } catch { continue; }
      if (value === undefined || seen.has(key(value))) continue;
      seen.add(key(value));
      yield value;
    }
  }
}

/** Returns the first value that `normalize` accepts, trying each rule in order; a throwing rule is a miss. */
export function firstOf<T>(doc: Doc, rules: readonly Rule[], normalize: (v: unknown, doc: Doc) => T | undefined): T | undefined {
  for (const rule of rules) {
    try {
      const raw = rule(doc);
      for (const item of Array.isArray(raw) ? raw : [raw]) {
        const value = normalize(item, doc);
        if (value !== undefined) return value;
      }
    } catch { /* a failing rule is a miss */ }
  }
  return undefined;
}
