// The rules' kit: a rule reads one candidate from the document (doc.ts); these make rules of meta tags, texts and
// attributes, and try them in turn (firstOf, candidatesOf).
import type { CheerioAPI } from 'cheerio';
import type { AnyNode, Element, Text } from 'domhandler';
import { select } from './select.ts';
import { UNSEEN } from './shown.ts';
import { clean, type Doc } from './doc.ts';
export { byJsonLd } from './jsonld.ts';
export { clean, createDoc, lazyDoc, indexMeta, type Doc, type MetaIndex } from './doc.ts';

/** A rule reads one candidate value from the document; throwing or returning nothing is a miss. */
export type Rule = (doc: Doc) => unknown;

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

/**
 * A rule that takes the first non-empty value `read` gives of the elements matching a selector; with `outside`,
 * of those not inside an element matching it.
 */
function firstMatch(selector: string, read: ($: CheerioAPI, el: Element) => unknown, outside?: string): Rule {
  return ({ $ }) => {
    for (const el of select($, selector)) {
      const v = clean(read($, el));
      if (v && !(outside && $(el).closest(outside).length)) return v;
    }
    return undefined;
  };
}

/** A rule that takes the text of the first element matching a selector (not inside `outside`, when given). */
export const byText = (selector: string, outside?: string): Rule =>
  firstMatch(selector, ($, el) => $(el).text(), outside);

/**
 * An element's text as `text()` joins it, without the elements a reader never sees (shown.ts's UNSEEN: code, such as
 * the `<style>` CSS-in-JS writes inside a heading).
 */
function wordsOf(node: AnyNode): string {
  if (node.type === 'text') return (node as Text).data;
  if (node.type !== 'tag' || UNSEEN.has((node as Element).name)) return '';
  return (node as Element).children.map(wordsOf).join('');
}

/** As `byText`, without the code an element holds: a heading's words, never its CSS (`.css-umyvef{…}Headline`). */
export const byWords = (selector: string): Rule => firstMatch(selector, (_, el) => wordsOf(el));

/** A rule that takes an attribute of the first element matching a selector that has it (not inside `outside`). */
export const byAttr = (selector: string, attr: string, outside?: string): Rule =>
  firstMatch(selector, (_, el) => el.attribs[attr], outside);

/** A rule that lists an attribute of every element matching a selector, for fields that probe candidates in turn. */
export function byAttrs(selector: string, attr: string, limit = 8): Rule {
  return ({ $ }) =>
    select($, selector)
      .slice(0, limit)
      .map((el) => clean(el.attribs[attr]))
      .filter(Boolean);
}

/** Resolves a possibly relative URL against the document; undefined when it is not an http(s) URL. */
export function absoluteUrl(value: unknown, base: string): string | undefined {
  const text =
    typeof value === 'string'
      ? value.trim()
      : typeof value === 'object' && value
        ? ((value as { url?: unknown; '@id'?: unknown }).url ?? (value as { contentUrl?: unknown }).contentUrl)
        : undefined;
  if (typeof text !== 'string' || !text || text.startsWith('data:') || text.startsWith('javascript:')) return undefined;
  try {
    const url = new URL(text.startsWith('//') ? `${new URL(base).protocol}${text}` : text, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** What a rule reads of a page; a rule that throws reads nothing (a miss, never the end of the field). */
export function readRule(rule: Rule, doc: Doc): unknown {
  try {
    return rule(doc);
  } catch {
    return undefined;
  }
}

/**
 * Every value that `normalize` accepts, rule by rule, read only as they are asked for; a throwing rule or
 * normalisation is a miss.
 */
function* accepted<T>(
  doc: Doc,
  rules: readonly Rule[],
  normalize: (v: unknown, doc: Doc) => T | undefined,
): Generator<T> {
  for (const rule of rules) {
    const raw = readRule(rule, doc);
    for (const item of Array.isArray(raw) ? raw : [raw]) {
      let value: T | undefined;
      try {
        value = normalize(item, doc);
      } catch {
        continue;
      }
      if (value !== undefined) yield value;
    }
  }
}

/** Yields every distinct value that `normalize` accepts, rule by rule, evaluating rules only as they are needed. */
export function* candidatesOf<T>(
  doc: Doc,
  rules: readonly Rule[],
  normalize: (v: unknown, doc: Doc) => T | undefined,
  key: (v: T) => string,
): Generator<T> {
  const seen = new Set<string>();
  for (const value of accepted(doc, rules, normalize)) {
    if (seen.has(key(value))) continue;
    seen.add(key(value));
    yield value;
  }
}

/** Returns the first value that `normalize` accepts, trying each rule in order; a throwing rule is a miss. */
export function firstOf<T>(
  doc: Doc,
  rules: readonly Rule[],
  normalize: (v: unknown, doc: Doc) => T | undefined,
): T | undefined {
  return accepted(doc, rules, normalize).next().value;
}
