import { definePlugin, z } from '../../engine/index.ts';
import { decodeSource, runInSandbox } from './sandbox.ts';

/** Memory ceiling of a function's isolate, in MB. */
const MEMORY_MB = 64;
/** The longest a function may run, within the request's own timeout. */
const MAX_RUN_MS = 20_000;

const params = z.object({
  code: z
    .string({ error: 'expected JavaScript source' })
    .trim()
    .min(1, { error: 'expected JavaScript source' })
    .describe(
      'JavaScript run against the rendered page in an isolate: `({ page }) => page.title()`; its result is `data.function`.',
    ),
});

/** JavaScript run against the live page in an isolated V8 sandbox; its JSON result is `data.function`. */
export default definePlugin({
  name: 'function',
  description: 'Runs your JavaScript with a page handle (goto, evaluate, click, ...) in an isolated sandbox.',
  needs: 'browser',
  invalid: 'EINVALFUNCTION',
  standalone: true,
  // User code may navigate the page (page.goto): it is not kept on the loaded document.
  navigates: true,
  readsBuilt: true,
  // `&function=({ page, n }) => n&n=2`: the query's other parameters reach the function, as on Microlink.
  takesQuery: true,
  params,
  shorthand: (value) => ({ code: value }),
  async run(ctx, opts) {
    const { code } = opts;
    // The plan adds the query's other parameters as `query` (takesQuery): never from the function's own options.
    const query = (opts as { query?: Record<string, unknown> }).query ?? {};
    if (!ctx.page) throw new Error('function needs a browser page');
    const source = await decodeSource(code);
    // The request's other parameters reach the function as Microlink passes them (its options, minus the code).
    const { url, timeout: _timeout, ...rest } = ctx.options as Record<string, unknown>;
    // The sandbox ends a little before this step would be cut off, so a limit is reported as the function's own.
    const budget = Math.floor(Math.max(500, Math.min(MAX_RUN_MS, ctx.timeLeft() - 300)));
    return runInSandbox(source, ctx.page, JSON.parse(JSON.stringify({ url, ...rest, ...query })), {
      memoryMb: MEMORY_MB,
      timeoutMs: budget,
    });
  },
});
