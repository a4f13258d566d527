import { definePlugin, options, bool, oneOf, list, z, useSandbox } from '../../engine/index.ts';
import { detectTechnologies } from './technologies.ts';
import { createAuditor, type Auditor } from './lighthouse.ts';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

const lighthouseOptions = options({
  categories: z
    .preprocess(
      (v) =>
        typeof v === 'string'
          ? v
              .split(',')
              .map((c) => c.trim())
              .filter(Boolean)
          : v,
      list(),
    )
    .refine((l) => l.every((c) => (CATEGORIES as readonly string[]).includes(c)), {
      error: `expected categories among ${CATEGORIES.join(', ')}`,
    })
    .meta({ items: { type: 'string', enum: [...CATEGORIES] } })
    .optional(),
  preset: oneOf(['mobile', 'desktop']).default('mobile'),
  output: oneOf(['json', 'html', 'csv']).default('json'),
});

/** `insights=true` means both parts; naming parts (`insights.technologies=true`) asks for those alone. */
const params = z.preprocess(
  (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) return v;
    return { technologies: 'true', lighthouse: 'true' };
  },
  options({
    technologies: bool().default(false),
    lighthouse: z.union([bool(), lighthouseOptions]).default(false),
  }),
);

const TYPES = { json: 'application/json', html: 'text/html', csv: 'text/csv' } as const;

/** Technology detection (Wappalyzer's data) and a Lighthouse audit of the page. */
export default definePlugin({
  name: 'insights',
  description: 'Technologies the page is built with, and a Lighthouse audit (JSON, HTML or CSV report).',
  needs: 'html',
  settings: ['chromePath', 'chromiumSandbox'],
  // One audit at a time per engine: Lighthouse measures performance, and two at once on two cores measure each other.
  init: (settings) => createAuditor(settings.chromePath!, useSandbox(settings.chromiumSandbox ?? 'auto')),
  params,
  async run(ctx, o) {
    const out: Record<string, unknown> = {};
    if (o.technologies) out.technologies = await detectTechnologies(ctx.response, ctx.$, ctx.url, ctx.page);
    if (o.lighthouse) {
      const lh = o.lighthouse === true ? lighthouseOptions.parse({}) : o.lighthouse;
      const result = await (ctx.state as Auditor)(
        ctx.url,
        { categories: lh.categories, preset: lh.preset, output: lh.output },
        ctx.guard,
        ctx.signal,
      );
      // JSON is the payload itself; an HTML or CSV report is stored as an asset that `embed` serves.
      out.lighthouse =
        lh.output === 'json'
          ? { scores: result.scores, ...result.lhr }
          : { scores: result.scores, report: await ctx.store(Buffer.from(result.report), TYPES[lh.output]) };
    }
    return out;
  },
});
