// A fixture site for crawls: page i links to pages 2i+1 and 2i+2 (a binary tree of `pages` pages), to a page that
// robots.txt forbids, to a host off the allowlist and to its own fragment.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sitePages(pages: number) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const m = /^\/site\/p\/(\d+)(?:\?.*)?$/.exec(req.url ?? '');
    if (!m) return false;
    const i = Number(m[1]);
    const links = [2 * i + 1, 2 * i + 2]
      .filter((n) => n < pages)
      .map((n) => `<a href="/site/p/${n}">page ${n}</a>`)
      .join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Page ${i}</title></head><body><main><p>Words on page number ${i} of the site.</p>${links}
      <a href="/site/private/${i}">private</a> <a href="http://127.0.0.2:9/elsewhere">elsewhere</a> <a href="#top">top</a></main></body></html>`);
    return true;
  };
}

/** The URL of page i of the site served at `base`. */
export const pageUrl = (base: string, i: number) => `${base}/site/p/${i}`;

/** Every page's URL, in order. */
export const allPages = (base: string, pages: number) => Array.from({ length: pages }, (_, i) => pageUrl(base, i));
