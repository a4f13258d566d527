import type { CheerioAPI } from 'cheerio';
import { compile, selectAll } from 'css-select';
import { parse as parseSelector } from 'css-what';
import type { AnyNode, Element } from 'domhandler';
import { LRUCache } from 'lru-cache';

// Bounded: the built-in rules ask a few dozen selectors, but a plugin may pass its own.
const compiled = new LRUCache<string, ReturnType<typeof compile<AnyNode, Element>>>({ max: 1000 });

/**
 * The elements matching a CSS selector, in document order: the selector is compiled once for the process (css-select,
 * what cheerio runs, compiles it on every `$(selector)`; the rules ask the same few dozen on every page).
 */
export function select($: CheerioAPI, selector: string): Element[] {
  let query = compiled.get(selector);
  if (!query) compiled.set(selector, (query = compile<AnyNode, Element>(selector, { xmlMode: false })));
  return selectAll<AnyNode, Element>(query, $.root().toArray());
}

/** Whether a CSS selector (a list of them, apart by commas) parses: refused when the plan is built, before any fetch. */
export function validSelector(value: string): boolean {
  try {
    parseSelector(value);
    return true;
  } catch {
    return false;
  }
}
