// `changes`: what changed on the page since the last good read of it by the same caller (and tag). This step reads the
// page's snapshot, its main content as Markdown and every field of the answer so far, after the other outputs (it is
// last among the producers); the engine compares it with the baseline outside the response cache and answers the
// report in its place (engine/store/changes.ts).
import { load } from 'cheerio';
import {
  definePlugin,
  num,
  options,
  text,
  type ChangeSnapshot,
  type Context,
  type FieldValue,
} from '../../engine/index.ts';
import sharp from '../shared/sharp.ts';
import { sharedScreenshot } from '../shared/screen.ts';
import { contentMarkdown, pageToMarkdown } from '../shared/content/markdown.ts';
import { contentOf } from '../shared/content/content-output.ts';
import { validSelector } from '../shared/page/select.ts';

/** Fields of the Data object that are not the page's: the response's facts (its status is judged apart). */
const NOT_COMPARED = new Set(['headers', 'redirects', 'statusCode', 'changes', 'markdown', 'text', 'html']);

/** Every leaf of a value by its dotted path; a Media object by its URL (none for a file this service made). */
function leaves(ctx: Context, value: unknown, at: string, out: Record<string, FieldValue>): void {
  if (value === null || value === undefined) out[at] = null;
  else if (Array.isArray(value)) out[at] = JSON.stringify(value);
  else if (typeof value === 'object') {
    const media = value as { url?: unknown; type?: unknown; size?: unknown };
    if (typeof media.url === 'string' && ('type' in media || 'size' in media)) {
      // A screenshot or PDF is made anew on each read, at a new address: what it shows is not compared.
      if (!ctx.isAsset(media.url)) out[at] = media.url;
      return;
    }
    for (const [key, inner] of Object.entries(value)) leaves(ctx, inner, at ? `${at}.${key}` : key, out);
  } else out[at] = value as FieldValue;
}

/** Screenshots are compared at this width (a smaller baseline, a comparison in milliseconds, less noise). */
const VISUAL_WIDTH = 480;

/** The screenshot this request took (shared by its step), scaled to VISUAL_WIDTH (at most 10 times as tall), as base64 PNG. */
async function screen(ctx: Context): Promise<string | undefined> {
  const bytes = sharedScreenshot(ctx);
  if (!bytes) return undefined;
  const scaled = await sharp(bytes)
    .resize({ width: VISUAL_WIDTH, height: VISUAL_WIDTH * 10, fit: 'inside', withoutEnlargement: true })
    .ensureAlpha()
    .png({ compressionLevel: 6 })
    .toBuffer();
  return scaled.toString('base64');
}

export default definePlugin({
  name: 'changes',
  description:
    'What changed on the page since the last good read of it by the same caller: a unified diff of its main content and a diff by field of its metadata and data rules.',
  needs: 'html',
  params: options({
    tag: text()
      .regex(/^[\w.-]{1,64}$/, { error: 'expected a tag of 1-64 letters, digits, dots, dashes or underscores' })
      .optional()
      .describe('Keeps a separate history of the page under this name (a query of its own, say).'),
    ignore: text()
      .min(1)
      .refine(validSelector, { error: 'expected a valid CSS selector' })
      .optional()
      .describe('CSS selectors of parts left out before comparing (a rotating ad, a clock).'),
    pixels: num({ min: 0, max: 1 })
      .default(0.001)
      .describe(
        "With `screenshot`: the share of the screenshot's pixels (0 to 1) that must differ for it to count as a change (default 0.001; 0: any pixel).",
      ),
  }),
  async run(ctx, opts): Promise<{ snapshot: ChangeSnapshot }> {
    const fields: Record<string, FieldValue> = {};
    for (const [name, value] of Object.entries(ctx.data)) if (!NOT_COMPARED.has(name)) leaves(ctx, value, name, fields);
    let content = ctx.response.kind === 'text' ? ctx.response.text : '';
    if (ctx.response.kind === 'html') {
      if (opts.ignore) {
        const $ = load(ctx.response.text || ctx.$.html());
        $(opts.ignore).remove();
        content = pageToMarkdown($.html(), ctx.url);
        // Without parts to leave out, the content `markdown` reads (found once for the request) is compared.
      } else content = contentMarkdown(contentOf(ctx, true));
    }
    const visual = await screen(ctx);
    return { snapshot: visual ? { content, fields, visual } : { content, fields } };
  },
});
