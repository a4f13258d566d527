// The `text` output as the WCXB scorer takes it (../shared/corpus/wcxb/score.mjs --module): a page's HTML and URL
// in, the main content as plain text out (what `GET /?url=…&text&prerender=false` answers), in process.
import { pageContent } from '../plugins/shared/content/markdown.ts';
import { contentText } from '../plugins/shared/content/content-render.ts';

export function extract({ html, url }: { html: string; url: string }): { text: string } {
  return { text: contentText(pageContent(html, url)) };
}
