import { contentOutput } from '../shared/content/content-output.ts';
import { contentMarkdown } from '../shared/content/markdown.ts';

/** `markdown` (`markdown.main=false` for the whole page): see plugins/shared/content/content.ts for how the main content is found. */
export default contentOutput({
  name: 'markdown',
  description:
    "The page's main content as Markdown for language models: headings, lists, tables, code with its language, absolute links, the title first; empty when the page has nothing to read without a browser (use prerender).",
  render: contentMarkdown,
  type: 'text/markdown; charset=utf-8',
});
