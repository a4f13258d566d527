import { definePlugin, bool, options, type Context, type Plugin } from '../../../engine/index.ts';
import { pageContent, type PageContent } from './markdown.ts';

/**
 * The page content of a request (the whole page's, or its main content), found once for the `markdown`, `text` and
 * `html` outputs together (each reads the same element without changing it): shared through the request's context.
 */
export function contentOf(ctx: Context, main: boolean): PageContent {
  return ctx.shared(`content:${main ? 'main' : 'page'}`, () =>
    pageContent(ctx.response.text || ctx.$.html(), ctx.url, main),
  );
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What a named output of the page's content is: its parameter, its description, how it renders, its `embed` type. */
export interface ContentOutput {
  name: 'markdown' | 'text' | 'html';
  description: string;
  render: (content: PageContent) => string;
  type: string;
}

/** One named output of the page's content: `markdown`, `text` or `html` (`<name>.main=false` for the whole page). */
export function contentOutput({ name, description, render, type }: ContentOutput): Plugin {
  return definePlugin({
    name,
    description,
    needs: 'html',
    // `pageType` beside the content: the kind of page it was read from (content-kind.ts).
    merge: true,
    outputs: [name, 'pageType'],
    params: options({
      main: bool()
        .default(true)
        .describe('Only the main content (true), or the whole page without scripts and styles (false).'),
    }),
    // HTML read from a target is served as text: as text/html from this origin it would run there.
    embedType: (path) => (path.length === 1 && path[0] === name ? type : undefined),
    run: (ctx, opts) => {
      const { kind, contentType, text } = ctx.response;
      // A text target (text/plain, JSON, CSS...) is its own content, as written; any other type has none to give.
      if (kind === 'text') return { [name]: name === 'html' ? `<pre>${escapeHtml(text)}</pre>` : text, pageType: null };
      if (kind !== 'html') {
        ctx.warn(
          `The target is ${contentType.split(';')[0] || 'not a document'}, not an HTML page: it has no ${name} content`,
        );
        return { [name]: null, pageType: null };
      }
      const content = contentOf(ctx, opts.main);
      return { [name]: render(content), pageType: content.kind ?? null };
    },
  });
}
