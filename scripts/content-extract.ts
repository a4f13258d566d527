// The main-content extractor as the articles scorer takes it (../shared/corpus/articles/score.mjs --module):
// a page's HTML and URL in, the Markdown of `data.body.attr=markdown` (and of the `markdown` output) out.
import { pageToMarkdown } from '../plugins/shared/content/markdown.ts';

export function extract(html: string, url: string): string {
  return pageToMarkdown(html, url);
}
