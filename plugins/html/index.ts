import { contentOutput } from '../shared/content/content-output.ts';
import { contentHtml } from '../shared/content/content-render.ts';

/** `html` (`html.main=false` for the whole page): see plugins/shared/content/content.ts for how the main content is found. */
export default contentOutput({
  name: 'html',
  description: "The page's main content as clean HTML (absolute links, no scripts, styles or boilerplate).",
  render: contentHtml,
  type: 'text/plain; charset=utf-8',
});
