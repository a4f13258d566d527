import { camelCase, definePlugin, RefractError, isRefractError, z, type Need } from '../../engine/index.ts';
import { lazyDoc } from '../shared/page/helpers.ts';
import { validSelector } from '../shared/page/select.ts';
import { TYPES, type ValueType } from './types.ts';
import { rulesOf, runSet, usesEvaluate, type Scope } from './extract.ts';

/** One extraction rule, as Microlink's query language sends it. */
export interface DataRule {
  selector?: string | string[];
  selectorAll?: string | string[];
  attr?: string | string[] | Record<string, DataRule | DataRule[]>;
  type?: ValueType;
  evaluate?: string;
}

// Selectors are parsed when the plan is built, so a broken one is refused before any fetch.
const selectorText = z
  .string({ error: 'expected a CSS selector' })
  .trim()
  .min(1, { error: 'expected a CSS selector' })
  .refine(validSelector, { error: 'expected a valid CSS selector' });
const selectors = z.union([selectorText, z.array(selectorText).min(1)]);

const RULE_KEYS = new Set(['selector', 'selectorAll', 'attr', 'type', 'evaluate']);

/** Rule keys arrive in camelCase or snake_case (`selector_all`); names of fields are left as written. */
function ruleKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [RULE_KEYS.has(camelCase(k)) ? camelCase(k) : k, v]));
}

const rule: z.ZodType<DataRule> = z.lazy(() =>
  z.preprocess(
    ruleKeys,
    z
      .object(
        {
          selector: selectors
            .optional()
            .describe('CSS selectors (comma-separated fallbacks): the first match is the value.'),
          selectorAll: selectors.optional().describe('CSS selectors: every match, as a list.'),
          attr: z
            .union([
              z.string().trim().min(1, { error: 'expected an attribute name' }),
              z.array(z.string().trim().min(1)).min(1),
              z.record(z.string(), ruleSet),
            ])
            .optional()
            .describe('What to read of the match: an attribute, `text`, `html`, `markdown`, or nested rules.'),
          type: z
            .enum(TYPES, { error: `expected one of ${TYPES.join(', ')}` })
            .optional()
            .describe('Read the value as this type (number, date, url, image...); one that is not counts as none.'),
          evaluate: z
            .string()
            .trim()
            .min(1, { error: 'expected a JavaScript expression' })
            .optional()
            .describe('A JavaScript expression evaluated in the page (browser), instead of a selector.'),
        },
        { error: 'expected a rule with selector, selectorAll, attr, type or evaluate' },
      )
      .strict()
      .refine((r) => !(r.selector && r.selectorAll), { error: 'use either selector or selectorAll, not both' }),
  ),
);

const ruleSet: z.ZodType<DataRule | DataRule[]> = z.lazy(() => z.union([rule, z.array(rule).min(1)]));

const params = z
  .record(z.string().regex(/^[\w$-]+$/, { error: 'expected a field name' }), ruleSet, {
    error: 'expected named rules such as data.price.selector=.price',
  })
  .refine((rules) => Object.keys(rules).length > 0, {
    error: 'expected at least one named rule such as data.price.selector=.price',
  });

/** Custom extraction: named rules (selector, attr, type, evaluate), with fallbacks, nesting and lists. */
export default definePlugin({
  name: 'data',
  description: 'Values read with your own rules: CSS selectors, attributes, markdown, typed and validated.',
  needs: (rules): Need => (Object.values(rules).some(usesEvaluate) ? 'browser' : 'html'),
  // With a script rule the page is live; selector rules beside it still read its HTML.
  readsDocument: (rules) => Object.values(rules).some((set) => rulesOf(set).some((r) => !r.evaluate)),
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
    // The page is parsed (cheerio) only when a rule reads it: a rule for the whole page's Markdown reads its HTML
    // (parsed by the main-content extractor), and parsing a 600 kB page for nothing cost ~15 ms.
    let html: string | undefined;
    const scope: Scope = {
      get $() {
        return ctx.$;
      },
      ctx,
      doc: lazyDoc(() => ctx.$, ctx.url),
      html: () => (html ??= ctx.response.text || ctx.$.html()),
    };
    const out: Record<string, unknown> = {};
    for (const [name, set] of Object.entries(rules)) {
      try {
        out[name] = await runSet(scope, set, undefined);
      } catch (err) {
        if (ctx.signal.aborted || isRefractError(err)) throw err;
        // A selector the engine cannot run, or a script that throws, names the broken rule.
        throw new RefractError('EINVALDATA', `Invalid \`data.${name}\`: ${(err as Error).message.split('\n')[0]}`, {
          cause: err,
          data: { param: `data.${name}` },
        });
      }
    }
    return out;
  },
});
