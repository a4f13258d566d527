import { definePlugin, options, bool, oneOf, list, z, useSandbox, type Context } from '../../engine/index.ts';
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
    .optional()
    .describe('Lighthouse categories to audit (comma-separated); all five by default.'),
  preset: oneOf(['mobile', 'desktop']).default('mobile').describe("Lighthouse's device and throttling preset."),
  output: oneOf(['json', 'html', 'csv'])
    .default('json')
    .describe('The report: JSON in the answer, or an HTML or CSV file.'),
});

/** `insights=true` means both parts; naming parts (`insights.technologies=true`) asks for those alone. */
const params = z.preprocess(
  (v) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) return v;
    return { technologies: 'true', lighthouse: 'auto' };
  },
  options({
    technologies: bool()
      .default(false)
      .describe('The technologies the page uses (Wappalyzer rules), in about a second.'),
    // `auto` (what a bare `insights` asks for): the audit when the request's time left allows one.
    lighthouse: z
      .union([z.literal('auto'), bool(), lighthouseOptions])
      .default(false)
      .describe('A Lighthouse audit (takes 10 s or more); a bare `insights` runs it only when the time left allows.'),
  }),
);

const TYPES = { json: 'application/json', html: 'text/html', csv: 'text/csv' } as const;

/**
 * The time a bare `insights` must have left to start an audit (a Lighthouse run of a simple page takes 7-9 s on two
 * cores; a real page more): with less, the audit is left out with a warning rather than started to be cut off.
 */
const AUDIT_MIN_MS = 15_000;
/** Time kept for the answer after an audit is cut off (its Chrome killed and waited for). */
const AUDIT_RESERVE_MS = 1500;

/** Runs one part; a failure of it is a warning and the part is left out, so the parts that finished are answered. */
async function part<T>(ctx: Context, name: string, run: () => Promise<T>, failures: unknown[]): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    failures.push(err);
    ctx.warn(`insights.${name} left out: ${(err as Error).message}`);
    return undefined;
  }
}

/** Technology detection (Wappalyzer's data) and a Lighthouse audit of the page, each its own part. */
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
    const failures: unknown[] = [];
    let asked = 0;
    if (o.technologies) {
      asked++;
      const found = await part(
        ctx,
        'technologies',
        () => detectTechnologies(ctx.response, ctx.$, ctx.url, ctx.page),
        failures,
      );
      if (found !== undefined) out.technologies = found;
    }
    if (o.lighthouse === 'auto' && ctx.timeLeft() < AUDIT_MIN_MS) {
      ctx.warn(
        `insights.lighthouse left out: an audit needs about ${AUDIT_MIN_MS / 1000} s and ${Math.floor(ctx.timeLeft() / 1000)} s were left; ask for \`insights.lighthouse\` with a longer \`timeout\``,
      );
    } else if (o.lighthouse) {
      asked++;
      const lh = typeof o.lighthouse === 'object' ? o.lighthouse : lighthouseOptions.parse({});
      // The audit stops short of the step's cutoff, so what finished before it is still answered.
      const budgetMs = Math.max(1, Math.floor(ctx.timeLeft() - AUDIT_RESERVE_MS));
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(budgetMs)]);
      const audit = async () => {
        const result = await (ctx.state as Auditor)(
          ctx.url,
          { categories: lh.categories, preset: lh.preset, output: lh.output, budgetMs },
          ctx.guard,
          signal,
        );
        // JSON is the payload itself; an HTML or CSV report is stored as an asset that `embed` serves.
        return lh.output === 'json'
          ? { scores: result.scores, ...result.lhr }
          : { scores: result.scores, report: await ctx.store(Buffer.from(result.report), TYPES[lh.output]) };
      };
      const report = await part(ctx, 'lighthouse', audit, failures);
      if (report !== undefined) out.lighthouse = report;
    }
    // Nothing asked for finished: the step failed (a contained failure, as its parts' warnings say: never the request).
    if (asked > 0 && failures.length === asked) throw new Error((failures[0] as Error).message);
    return out;
  },
});
