import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { parse as parseSelector } from 'css-what';
import { definePlugin, RefractError, z, type Context, type Need } from '../../engine/index.ts';
import { camelCase } from '../../engine/params.ts';
import { clean, createDoc, type Doc } from '../meta/helpers.ts';
import { TYPES, toType, type ValueType } from './types.ts';
import { fragmentToMarkdown, pageToMarkdown } from './markdown.ts';

/** One extraction rule, as Microlink's query language sends it. */
export interface DataRule {
  selector?: string | string[];
  selectorAll?: string | string[];
  attr?: string | string[] | Record<string, DataRule | DataRule[]>;
  type?: ValueType;
  evaluate?: string;
}

function validSelector(value: string): boolean {
  try { parseSelector(value); return true; } catch { return false; }
}

// Selectors are parsed when the plan is built, so a broken one is refused before any fetch.
const selectorText = z.string({ error: 'expected a CSS selector' }).trim().min(1, { error: 'expected a CSS selector' })
  .refine(validSelector, { error: 'expected a valid CSS selector' });
const selectors = z.union([selectorText, z.array(selectorText).min(1)]);

const RULE_KEYS = new Set(['selector', 'selectorAll', 'attr', 'type', 'evaluate']);

/** Rule keys arrive in camelCase or snake_case (`selector_all`); names of fields are left as written. */
function ruleKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [RULE_KEYS.has(camelCase(k)) ? camelCase(k) : k, v]));
}

const rule: z.ZodType<DataRule> = z.lazy(() => z.preprocess(ruleKeys, z.object({
  selector: selectors.optional(),
  selectorAll: selectors.optional(),
  attr: z.union([
    z.string().trim().min(1, { error: 'expected an attribute name' }),
    z.array(z.string().trim().min(1)).min(1),
    z.record(z.string(), ruleSet),
  ]).optional(),
  type: z.enum(TYPES, { error: `expected one of ${TYPES.join(', ')}` }).optional(),
  evaluate: z.string().trim().min(1, { error: 'expected a JavaScript expression' }).optional(),
}, { error: 'expected a rule with selector, selectorAll, attr, type or evaluate' }).strict()
  .refine((r) => !(r.selector && r.selectorAll), { error: 'use either selector or selectorAll, not both' })));

const ruleSet: z.ZodType<DataRule | DataRule[]> = z.lazy(() => z.union([rule, z.array(rule).min(1)]));

const params = z.record(z.string().regex(/^[\w$-]+$/, { error: 'expected a field name' }), ruleSet, { error: 'expected named rules such as data.price.selector=.price' })
  .refine((rules) => Object.keys(rules).length > 0, { error: 'expected at least one named rule such as data.price.selector=.price' });

function rulesOf(set: DataRule | DataRule[]): DataRule[] {
  return Array.isArray(set) ? set : [set];
}

function usesEvaluate(set: DataRule | DataRule[]): boolean {
  return rulesOf(set).some((r) => r.evaluate !== undefined || (r.attr && typeof r.attr === 'object' && !Array.isArray(r.attr) && Object.values(r.attr).some(usesEvaluate)));
}

interface Scope { $: CheerioAPI; doc: Doc; ctx: Context; html: () => string }

function valueOf(scope: Scope, el: Cheerio<AnyNode> | undefined, attr: string): unknown {
  const { $ } = scope;
  const node = el?.get(0) as Element | undefined;
  switch (attr) {
    case 'html':
      return el ? el.html() : scope.html();
    case 'outerHTML':
      return el ? $.html(el) : scope.html();
    case 'text':
      return clean((el ?? $('body')).text());
    case 'markdown':
      return el ? fragmentToMarkdown($.html(el), scope.doc.url) : pageToMarkdown(scope.html(), scope.doc.url);
    case 'json': {
      const text = (el ?? $('body')).text().trim();
      try { return JSON.parse(text); } catch { return undefined; }
    }
    case 'val': {
      if (!el || !node) return undefined;
      if (node.name === 'select') return el.find('option[selected]').attr('value') ?? el.find('option').first().attr('value');
      if (node.name === 'textarea') return el.text();
      return el.attr('value');
    }
    case 'tagName': case 'nodeName':
      return node?.name?.toUpperCase();
    default:
      return el ? el.attr(attr) : undefined;
  }
}

async function extractFrom(scope: Scope, rule: DataRule, el: Cheerio<AnyNode> | undefined): Promise<unknown> {
  const attr = rule.attr ?? 'html';
  if (typeof attr === 'object' && !Array.isArray(attr)) {
    // Nested rules: each field is read within this match.
    const out: Record<string, unknown> = {};
    for (const [key, set] of Object.entries(attr)) out[key] = await runSet(scope, set, el);
    return out;
  }
  const type = rule.type ?? 'auto';
  for (const name of Array.isArray(attr) ? attr : [attr]) {
    const value = await toType(valueOf(scope, el, name), type, scope.doc, scope.ctx);
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
      if (value !== undefined && value !== null && !(typeof value === 'object' && Object.values(value).every((v) => v === null))) return value;
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

async function runSet(scope: Scope, set: DataRule | DataRule[], within: Cheerio<AnyNode> | undefined): Promise<unknown> {
  for (const rule of rulesOf(set)) {
    const value = await runRule(scope, rule, within);
    if (value !== undefined && value !== null) return value;
  }
  return null;
}

/** Custom extraction: named rules (selector, attr, type, evaluate), with fallbacks, nesting and lists. */
export default definePlugin({
  name: 'data',
  description: 'Values read with your own rules: CSS selectors, attributes, markdown, typed and validated.',
  needs: (rules): Need => (Object.values(rules).some(usesEvaluate) ? 'browser' : 'html'),
  invalid: 'EINVALDATA',
  merge: true,
  params,
  embedType: ([name, ...rest], rules) => {
    const set = name !== undefined && !rest.length ? rules[name] : undefined;
    const attrs = set ? rulesOf(set).map((r) => r.attr) : [];
    // HTML read from a target stays text/plain: served as text/html from this origin it would run there.
    return attrs.includes('markdown') ? 'text/markdown; charset=utf-8' : undefined;
  },
  async run(ctx, rules) {
    const { $ } = ctx;
    let html: string | undefined;
    const scope: Scope = { $, ctx, doc: createDoc($, ctx.url), html: () => (html ??= ctx.response.text || $.html()) };
    const out: Record<string, unknown> = {};
    for (const [name, set] of Object.entries(rules)) {
      try {
        out[name] = await runSet(scope, set, undefined);
      } catch (err) {
        if (ctx.signal.aborted || err instanceof RefractError) throw err;
        // A selector the engine cannot run, or a script that throws, names the broken rule.
        throw new RefractError('EINVALDATA', `Invalid \`data.${name}\`: ${(err as Error).message.split('\n')[0]}`, { cause: err, data: { param: `data.${name}` } });
      }
    }
    return out;
  },
});
