// The content of a page as Markdown (page-content.ts finds it; markdown-turndown.ts writes it), and a fragment of a
// page (a `data` selection) as Markdown.
import { parseHTML } from 'refract-linkedom';
import { clean } from './content-clean.ts';
import { pageContent, type PageContent } from './page-content.ts';
import { toMarkdown } from './markdown-turndown.ts';

export { pageContent, type PageContent };

/** Converts an HTML fragment (a selection of the page) to Markdown. */
export function fragmentToMarkdown(html: string, base: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return toMarkdown(clean(document.body as unknown as Element, base));
}

/** Media that are content without words. */
const MEDIA = 'img, picture, video, audio, iframe, embed, object';

/**
 * Whether a page's content has anything to read: words or media. A script's empty shell has none, and its outputs are
 * empty (its title alone would pass for content; `data.title` holds it).
 */
export const readable = (root: Element): boolean => !!(root.textContent ?? '').trim() || !!root.querySelector(MEDIA);

/** Starts a text with its title (a heading in Markdown) unless the text already opens with it. */
export function headed(title: string | undefined, body: string, heading: string): string {
  if (!title || body.startsWith(`${heading}${title}`) || (heading && body.startsWith(heading))) return body;
  return body ? `${heading}${title}\n\n${body}` : `${heading}${title}`;
}

/** Markdown of a page's content, the title as its first heading, once; empty when it has nothing to read. */
export function contentMarkdown(content: PageContent): string {
  return readable(content.root) ? headed(content.title, toMarkdown(content.root), '# ') : '';
}

/** Converts a whole page to Markdown of its main content; the title heads the text once. */
export function pageToMarkdown(html: string, base: string): string {
  return contentMarkdown(pageContent(html, base));
}
