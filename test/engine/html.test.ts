// Parsing in slices gives the document a parse in one piece gives (entities, tags and comments cut between slices
// included), and a long page's metadata is read from its lean source with the same results as from the whole page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { parseHtml, parseHtmlSliced, documentText } from '../../engine/kernel/html.ts';
import { metaSource, META_WHOLE_CHARS } from '../../plugins/meta/source.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';
import { refreshOf } from '../../engine/browser/settle.ts';

/** Pieces of HTML whose joins fall anywhere (inside a tag, an entity, a comment, a script). */
const piece = fc.constantFrom(
  '<p class="a">',
  '</p>',
  'text &amp; more',
  '&eacute;',
  '&#x263A;',
  '<!-- note -->',
  '<script>if (a < b) x = "</p>";</script>',
  '<br/>',
  '<img src="/i.png" alt="x">',
  '<a href="/q?a=1&b=2">link</a>',
  '<title>T &lt;1&gt;</title>',
  '<table><tr><td>c</td></tr></table>',
  'word ',
  '\n',
);

test('property: a document parsed in slices equals the document parsed whole', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(piece, { minLength: 1, maxLength: 400 }),
      fc.integer({ min: 1, max: 30 }),
      async (pieces, repeat) => {
        const html = `<html><head><title>x</title></head><body>${pieces.join('').repeat(repeat)}</body></html>`;
        const whole = parseHtml(html, 'https://example.com/').html();
        const sliced = (await parseHtmlSliced(html, 'https://example.com/')).html();
        assert.is(sliced, whole);
      },
    ),
    { numRuns: 60 },
  );
});

test('a document is read up to a tag near its bound; a short one whole', () => {
  assert.is(documentText('<p>ab</p>', 100), '<p>ab</p>');
  assert.is(documentText('<p>abcdef</p><p>ghi</p>', 15), '<p>abcdef</p>');
});

/** A long article: a head with its tags, megabytes of scripts, styles and SVG, the article, JSON-LD at the end. */
function longPage(): string {
  const noise = `<script>${'var x = "<div>not markup</div>";'.repeat(20_000)}</script><style>${'.a{color:red}'.repeat(20_000)}</style><svg>${'<path d="M0 0"/>'.repeat(10_000)}</svg>`;
  return `<html lang="de"><head><title>Der Titel | Zeitung</title><meta property="og:title" content="Der Titel">
    <meta name="description" content="Worum es geht."><meta property="og:image" content="/bild.jpg">${noise}</head>
    <body><h1>Der Titel</h1><p class="byline">Von Anna Beispiel</p>${noise}${'<p>Absatz mit Text.</p>'.repeat(5000)}${noise}
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Der Titel","datePublished":"2024-03-05T10:00:00Z","author":{"@type":"Person","name":"Anna Beispiel"}}</script></body></html>`;
}

test("a long page's metadata from its lean source equals its metadata from the whole page (JSON-LD at the end kept)", () => {
  const html = longPage();
  assert.ok(html.length > 2 * META_WHOLE_CHARS, `${html.length} characters`);
  const lean = metaSource(html);
  assert.ok(lean.length < html.length / 4, `lean ${lean.length} of ${html.length}`);
  const url = 'https://zeitung.example/artikel';
  const whole = extractMeta(createDoc(parseHtml(html, url), url));
  const fromLean = extractMeta(createDoc(parseHtml(lean, url), url));
  assert.equal(fromLean, whole);
  assert.is(whole.date, '2024-03-05T10:00:00.000Z');
});

test("a CDATA section in a page's markup ends at the next '>', as in a browser; in scripts, styles and SVG it stays", async () => {
  const html =
    '<html><head><title>Graphics cards</title><script>//<![CDATA[\nvar a = "<b>";\n//]]></script><style>/*<![CDATA[*/p{}/*]]>*/</style></head>' +
    '<body class="forum"><![CDATA[\n<div id="top"></div><article class="message--post"><h1>Which card?</h1><p>Pick one under $300.</p></article>' +
    '<svg><text><![CDATA[a < b]]></text></svg><p>Last line.</p></body></html>';
  for (const $ of [parseHtml(html), await parseHtmlSliced(html, undefined)]) {
    assert.is($('article h1').text(), 'Which card?');
    // As a browser reads it: the comment ends at the first '>', the one of the tag opened inside it.
    assert.is($('#top').length, 0);
    assert.is($('article').length, 1);
    assert.is($('p').last().text(), 'Last line.');
    assert.match($('script').text(), '//<![CDATA[\nvar a = "<b>";\n//]]>');
    assert.match($('style').text(), '/*<![CDATA[*/');
    assert.match($('svg').html() ?? '', 'CDATA');
  }
  // A page with no CDATA section is parsed as written.
  assert.is(parseHtml('<p>a</p><p>b</p>')('p').length, 2);
});

test.run();

test('a refresh value: its delay and its target resolved against the page (none is the page itself)', () => {
  const base = 'https://example.com/a/b.html';
  const cases: [string, { seconds: number; url: string } | undefined][] = [
    ['0;url=/next', { seconds: 0, url: 'https://example.com/next' }],
    ['1; URL="next?x=1"', { seconds: 1, url: 'https://example.com/a/next?x=1' }],
    ["5 , url='https://other.example/'", { seconds: 5, url: 'https://other.example/' }],
    ['0.5; https://other.example/x', { seconds: 0.5, url: 'https://other.example/x' }],
    ['3', { seconds: 3, url: base }],
    ['soon', undefined],
    ['', undefined],
  ];
  for (const [value, expected] of cases) assert.equal(refreshOf(value, base), expected, value);
});
