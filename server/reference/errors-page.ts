import { marked } from 'marked';

/** A heading's anchor: `EFATAL` is `efatal`, `Reporting a request` is `reporting-a-request` (the `more` links' targets). */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * docs/errors.md as a page: one anchor per code (so each error's `more` link lands on its section), and the
 * request id of a `report` link shown in the reporting section.
 */
export function errorsPage(markdown: string): string {
  const html = (marked.parse(markdown, { async: false }) as string).replace(
    /<h([23])>(.*?)<\/h\1>/g,
    (_, level: string, text: string) =>
      `<h${level} id="${anchorOf(text)}"><a href="#${anchorOf(text)}">${text}</a></h${level}>`,
  );
  // A table of contents after the introduction: each code with its HTTP status, linked to its section.
  const sections = [...markdown.matchAll(/^## (.+)\n+(?:HTTP (\d{3}))?/gm)].map(
    (m) => `<li><a href="#${anchorOf(m[1]!)}">${m[1]}</a>${m[2] ? ` <span class="status">${m[2]}</span>` : ''}</li>`,
  );
  const contents = `<nav aria-label="Error codes"><ul class="toc">${sections.join('')}</ul></nav>`;
  const withContents = html.replace(/(<\/p>)/, `$1${contents}`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Cpath d='M8 1 15 14H1z' fill='%234361ee'/%3E%3C/svg%3E">
<title>Refract error codes</title><style>
body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;color:#1d1d1f}
h2{margin-top:2rem;border-top:1px solid #ddd;padding-top:1rem}h2 a,h3 a{color:inherit;text-decoration:none}
code{background:#f2f2f4;padding:0 .25em;border-radius:3px;word-break:break-word}:target{background:#fff7d6}
#request{background:#eef6ff;padding:.5rem .75rem;border-radius:6px}
.toc{columns:3 10rem;padding-left:1.1rem;font-size:15px}.toc .status{color:#777;font-size:13px}
</style></head><body>${withContents}<script>
const q = new URLSearchParams(location.search);
if (q.get('id')) {
  const p = document.createElement('p'); p.id = 'request';
  p.textContent = 'This request: id ' + q.get('id') + (q.get('code') ? ', code ' + q.get('code') : '') + '.';
  document.getElementById('reporting-a-request')?.after(p);
}
</script></body></html>`;
}
