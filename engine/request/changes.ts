// A request with `changes`: read fresh, then its snapshot compared with the baseline (store/changes.ts) and the
// report answered in its place.
import type { Plan } from '../plan/plan.ts';
import type { ChangeSnapshot, ChangeTracker } from '../store/changes.ts';
import type { ExtractOptions, Outcome } from './lifecycle.ts';

type Extract = (plan: Plan, opts?: ExtractOptions) => Promise<Outcome>;

/** The lifecycle's extract, and for a plan with a `changes` step, its change report as `data.changes`. */
export function withChanges(extract: Extract, tracker: ChangeTracker): Extract {
  return async (plan, opts) => {
    const step = plan.steps.find((s) => s.name === 'changes');
    if (!step) return extract(plan, opts);
    // A change is judged on a fresh read: never on a cached one (whose snapshot was compared already).
    const outcome = await extract({ ...plan, options: { ...plan.options, force: true } }, opts);
    const snapshot = (outcome.data.changes as { snapshot?: ChangeSnapshot } | null | undefined)?.snapshot;
    // The step failed (its warning says so): nothing to compare.
    if (!snapshot) return outcome;
    const report = await tracker.report({
      scope: opts?.scope ?? '',
      url: plan.url,
      tag: typeof step.opts.tag === 'string' ? step.opts.tag : undefined,
      snapshot,
      statusCode: typeof outcome.data.statusCode === 'number' ? outcome.data.statusCode : undefined,
      warnings: outcome.warnings,
      minShare: typeof step.opts.pixels === 'number' ? step.opts.pixels : undefined,
    });
    return { ...outcome, data: { ...outcome.data, changes: report } };
  };
}
