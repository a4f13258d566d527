// The main content without the title heading the API puts first, as the articles scorer takes it
// (../shared/corpus/articles/score.mjs --module): the figure that compares with extractors that return the body only
// (the labels hold no title).
import { pageContent } from '../plugins/shared/content/markdown.ts';
import { toMarkdown } from '../plugins/shared/content/markdown-turndown.ts';

export function extract(html: string, url: string): string {
  return toMarkdown(pageContent(html, url).root);
}
