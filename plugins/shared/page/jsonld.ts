import type { CheerioAPI } from 'cheerio';
import type { Text } from 'domhandler';
import { jsonrepair } from 'jsonrepair';
import type { Rule } from './helpers.ts';
import { select } from './select.ts';

/** Adds a JSON-LD node and its `@graph` members to `out`. */
function flatten(node: unknown, out: Record<string, unknown>[]): void {
  if (Array.isArray(node)) {
    for (const n of node) flatten(n, out);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  out.push(obj);
  if (obj['@graph']) flatten(obj['@graph'], out);
}

/** A script that holds JSON-LD: typed so, or untyped and holding one schema.org object (a publisher's slip). */
const LINKED_DATA = /^\{\s*"@context"\s*:\s*"https?:\/\/schema\.org/;

/** Parses every JSON-LD block of the page into a flat list of objects (`@graph` members included). */
export function readJsonLd($: CheerioAPI): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const el of select($, 'script')) {
    const type = el.attribs.type?.toLowerCase();
    if (type !== 'application/ld+json' && type !== undefined) continue;
    // An untyped script is code but for this slip: its start is read before its whole text is.
    const start = el.children[0]?.type === 'text' ? (el.children[0] as Text).data.slice(0, 200).trimStart() : '';
    if (type === undefined && !LINKED_DATA.test(start)) continue;
    out.push(...parseJsonLd($(el).text()));
  }
  return out;
}

/** The objects of one JSON-LD block's text (`@graph` members included); none when it cannot be read. */
export function parseJsonLd(text: string): Record<string, unknown>[] {
  const raw = text.trim();
  const out: Record<string, unknown>[] = [];
  if (!raw) return out;
  try {
    flatten(JSON.parse(raw), out);
  } catch {
    // Publishers ship broken JSON-LD (`"width": ,`, control characters, trailing commas): repair, else a miss.
    try {
      flatten(JSON.parse(jsonrepair(raw)), out);
    } catch {
      /* unparsable block: a miss */
    }
  }
  return out;
}

/** An object's schema.org types, their namespaces taken off. */
export const typesOf = (obj: Record<string, unknown>): string[] =>
  (Array.isArray(obj['@type']) ? obj['@type'] : [obj['@type']])
    .filter((t): t is string => typeof t === 'string')
    .map((t) => t.replace(/^.*[/:]/, ''));

/** The first non-empty value at `path`, looking into every member of a list on the way. */
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
