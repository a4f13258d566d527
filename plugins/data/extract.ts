import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import type { Context } from '../../engine/index.ts';
import { clean, type Doc } from '../shared/page/helpers.ts';
import { toType } from './types.ts';
import { contentMarkdown, fragmentToMarkdown } from '../shared/content/markdown.ts';
import { contentOf } from '../shared/content/content-output.ts';
import type { DataRule } from './index.ts';

/** What the rules of one request read from: the document, its helpers, and the whole page's HTML (once). */
export interface Scope {
  $: CheerioAPI;
  doc: Doc;
  ctx: Context;
  html: () => string;
}

export function rulesOf(set: DataRule | DataRule[]): DataRule[] {
  return Array.isArray(set) ? set : [set];
}

export function usesEvaluate(set: DataRule | DataRule[]): boolean {
  return rulesOf(set).some(
    (r) =>
      r.evaluate !== undefined ||
      (r.attr && typeof r.attr === 'object' && !Array.isArray(r.attr) && Object.values(r.attr).some(usesEvaluate)),
  );
}

function readValue(scope: Scope, el: Cheerio<AnyNode> | undefined, attr: string): unknown {
  // The parsed page is read only where an attribute needs it (`scope.$` parses it on first use).
  const node = el?.get(0) as Element | undefined;
  switch (attr) {
    case 'html':
      return el ? el.html() : scope.html();
    case 'outerHTML':
      return el ? scope.$.html(el) : scope.html();
    case 'text':
      return clean((el ?? scope.$('body')).text());
    case 'markdown':
      // The whole page's is its main content, found once per request with the `markdown`, `text` and `html` outputs.
      return el ? fragmentToMarkdown(scope.$.html(el), scope.doc.url) : contentMarkdown(contentOf(scope.ctx, true));
    case 'json': {
      const text = (el ?? scope.$('body')).text().trim();
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    }
    case 'val': {
      if (!el || !node) return undefined;
      if (node.name === 'select')
        return el.find('option[selected]').attr('value') ?? el.find('option').first().attr('value');
      if (node.name === 'textarea') return el.text();
      return el.attr('value');
    }
    case 'tagName':
    case 'nodeName':
      return node?.name?.toUpperCase();
    default:
      return el ? el.attr(attr) : undefined;
  }
}

async function extractFrom(scope: Scope, rule: DataRule, el: Cheerio<AnyNode> | undefined): Promise<unknown> {
  // Untyped rules read the element's HTML, as Microlink's do; a typed value (a number, a date...) is read from its text.
  const attr =
    rule.attr ?? (rule.type === undefined || rule.type === 'auto' || rule.type === 'string' ? 'html' : 'text');
  if (typeof attr === 'object' && !Array.isArray(attr)) {
    // Nested rules: each field is read within this match.
    const out: Record<string, unknown> = {};
    for (const [key, set] of Object.entries(attr)) out[key] = await runSet(scope, set, el);
    return out;
  }
  const type = rule.type ?? 'auto';
  for (const name of Array.isArray(attr) ? attr : [attr]) {
    const value = await toType(readValue(scope, el, name), type, scope.doc, scope.ctx);
    if (value !== undefined) return value;
  }
  return undefined;
}

function select(scope: Scope, selector: string, within: Cheerio<AnyNode> | undefined): Cheerio<AnyNode> {
  return within ? within.find(selector) : scope.$(selector);
}

async function runRule(scope: Scope, rule: DataRule, within: Cheerio<AnyNode> | undefined): Promise<unknown> {
  if (rule.evaluate !== undefined) return evaluate(scope, rule);
  if (rule.selectorAll !== undefined) {
    for (const selector of [rule.selectorAll].flat()) {
      const matches = select(scope, selector, within);
      const values: unknown[] = [];
      for (const node of matches.toArray()) {
        const value = await extractFrom(scope, rule, scope.$(node));
        if (value !== undefined && value !== null) values.push(value);
      }
      if (values.length) return values;
    }
    return undefined;
  }
  if (rule.selector === undefined) return extractFrom(scope, rule, within);
  for (const selector of [rule.selector].flat()) {
    for (const node of select(scope, selector, within).toArray()) {
      const value = await extractFrom(scope, rule, scope.$(node));
      if (
        value !== undefined &&
        value !== null &&
        !(typeof value === 'object' && Object.values(value).every((v) => v === null))
      )
        return value;
    }
  }
  return undefined;
}

/** Runs a page expression in the browser, under the page's own sandbox (the network guard still applies). */
async function evaluate(scope: Scope, rule: DataRule): Promise<unknown> {
  const page = scope.ctx.page;
  if (!page) return undefined;
  // Evaluated through the DevTools protocol, so a page's Content-Security-Policy does not block it; the value
  // comes back as JSON (what cannot be serialized comes back as undefined).
  const value: unknown = await page.evaluate(`(async () => (${rule.evaluate}))()`);
  return toType(value, rule.type ?? 'auto', scope.doc, scope.ctx);
}

export async function runSet(
  scope: Scope,
  set: DataRule | DataRule[],
  within: Cheerio<AnyNode> | undefined,
): Promise<unknown> {
  for (const rule of rulesOf(set)) {
    const value = await runRule(scope, rule, within);
    if (value !== undefined && value !== null) return value;
  }
  return null;
}
