import type { CheerioAPI } from 'cheerio';

/** The document and its address, as every rule sees them. */
export interface Doc { $: CheerioAPI; url: string; jsonld: Record<string, unknown>[] }

/** A rule reads one candidate value from the document; throwing or returning nothing is a miss. */
export type Rule = (doc: Doc) => unknown;

/** Collapses whitespace and trims; returns undefined for an empty result. */
export function clean(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/[\s\u200B\uFEFF]+/g, ' ').trim();
  return text || undefined;
}

/** Reads `<meta>` content by property, name or itemprop (case-insensitive names). */
export function metaValues($: CheerioAPI, name: string): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  $('meta').each((_, el) => {
    const attrs = el.attribs;
    const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').toLowerCase();
    if (key === lower) {
      const v = clean(attrs.content ?? attrs.value);
      if (v) out.push(v);
    }
  });
  return out;
}

/** A rule that takes the first `<meta>` with this property, name or itemprop. */
export function byMeta(name: string): Rule {
  return ({ $ }) => metaValues($, name)[0];
}

/** A rule that takes the text of the first element matching a selector. */
export function byText(selector: string): Rule {
  return ({ $ }) => {
    for (const el of $(selector).toArray()) {
      const v = clean($(el).text());
      if (v) return v;
    }
    return undefined;
  };
}

/** A rule that takes an attribute of the first element matching a selector that has it. */
export function byAttr(selector: string, attr: string): Rule {
  return ({ $ }) => {
    for (const el of $(selector).toArray()) {
      const v = clean($(el).attr(attr));
      if (v) return v;
    }
    return undefined;
  };
}

function flatten(node: unknown, out: Record<string, unknown>[]): void {
  if (Array.isArray(node)) { for (const n of node) flatten(n, out); return; }
  if (!node || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  out.push(obj);
  if (obj['@graph']) flatten(obj['@graph'], out);
}

/** Parses every JSON-LD block of the page into a flat list of objects (`@graph` members included). */
export function readJsonLd($: CheerioAPI): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  $('script[type="application/ld+json" i]').each((_, el) => {
    const raw = $(el).text().trim();
    if (!raw) return;
    try {
      flatten(JSON.parse(raw), out);
    } catch {
      try { flatten(JSON.parse(raw.replace(/[\u0000-\u001f]+/g, ' ')), out); } catch { /* unparsable block: a miss */ }
    }
  });
  return out;
}

function pick(value: unknown, path: string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const found = pick(v, path);
      if (found !== undefined && found !== null && found !== '') return found;
    }
    return undefined;
  }
  if (!value || typeof value !== 'object') return undefined;
  return pick((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

/** A rule that takes a dotted path from the first JSON-LD object that has it. */
export function byJsonLd(path: string, accept: (v: unknown) => unknown = (v) => v): Rule {
  const parts = path.split('.');
  return ({ jsonld }) => {
    for (const obj of jsonld) {
      const v = accept(pick(obj, parts));
      if (v !== undefined && v !== null && v !== '') return v;
    }
    return undefined;
  };
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

/** Returns the first value that `normalize` accepts, trying each rule in order; a throwing rule is a miss. */
export function firstOf<T>(doc: Doc, rules: readonly Rule[], normalize: (v: unknown, doc: Doc) => T | undefined): T | undefined {
  for (const rule of rules) {
    try {
      const value = normalize(rule(doc), doc);
      if (value !== undefined) return value;
    } catch { /* a failing rule is a miss */ }
  }
  return undefined;
}
