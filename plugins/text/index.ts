import { contentOutput } from '../shared/content/content-output.ts';
import { contentText } from '../shared/content/content-render.ts';

/** `text` (`text.main=false` for the whole page): see plugins/shared/content/content.ts for how the main content is found. */
export default contentOutput({
  name: 'text',
  description: "The page's main content as plain text (the same content as `markdown`, without markup).",
  render: contentText,
  type: 'text/plain; charset=utf-8',
});
