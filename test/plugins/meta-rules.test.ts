// Each metadata rule and normalisation step on a minimal snippet of its own, grouped by field, in the order of
// docs/metadata.md: a rule's behaviour is documented by its test. (No corpus page here: those are scored by
// meta-corpus.test.ts.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHtml } from '../../engine/kernel/html.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';

const PAGE = 'https://news.example.com/2024/05/story.html';

function meta(head: string, body = '', url = PAGE): Record<string, any> {
  const html = `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
  return extractMeta(createDoc(parseHtml(html, url), url), { audio: true, video: true });
}

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

/** One field's rules: [what, head, body, expected value (or, for media, its URL)]. */
type Row = [string, string, string, unknown];

function field(name: string, rows: Row[], read: (m: Record<string, any>) => unknown = (m) => m[name]) {
  const s = suite(name);
  for (const [what, head, body, expected] of rows) {
    s(`${name}: ${what}`, () => assert.equal(read(meta(head, body)), expected));
  }
  s.run();
}

const mediaUrl = (name: string) => (m: Record<string, any>) => m[name]?.url ?? null;

field('title', [
  [
    'og:title first',
    '<meta property="og:title" content="OG"><meta name="twitter:title" content="TW"><title>T</title>',
    '',
    'OG',
  ],
  ['twitter:title', '<meta name="twitter:title" content="TW"><title>T</title>', '', 'TW'],
  ['<title> before JSON-LD headline', `<title>T</title>${ld({ '@type': 'Article', headline: 'H' })}`, '', 'T'],
  ['JSON-LD headline', ld({ '@type': 'Article', headline: 'H' }), '<h1>Heading</h1>', 'H'],
  ['.post-title', '', '<div class="post-title">Post</div><h1>Heading</h1>', 'Post'],
  ['.entry-title', '', '<div class="entry-title">Entry</div><h1>Heading</h1>', 'Entry'],
  [
    "beyond: a blog's post permalink heading is the title where the page declares only the blog's name",
    '<title>DimidoBlog</title><meta property="og:site_name" content="DimidoBlog">',
    '<h1>DimidoBlog</h1><h2><a href="/2008/07/29/viral/" rel="bookmark">Was ist Virales Marketing?</a></h2><p>Text.</p>',
    'Was ist Virales Marketing?',
  ],
  ['h1[class*=title] a', '', '<h1 class="page-title">x <a href="/">Linked</a></h1>', 'Linked'],
  ['h1[class*=title]', '', '<h1 class="big-title">Titled</h1>', 'Titled'],
  ['beyond: the first h1', '', '<h1>Heading</h1>', 'Heading'],
  [
    "beyond: a heading's words without the CSS that CSS-in-JS writes inside it",
    '',
    '<h1><style>.css-umyvef{font-size:16px;display:block;}</style>Impfen und Boostern</h1>',
    'Impfen und Boostern',
  ],
  ['whitespace condensed', '<title>  A \n  title  </title>', '', 'A title'],
  ['straight quotes made typographic', '<title>The "best" page isn\'t here</title>', '', 'The “best” page isn’t here'],
  ['over 2,000 characters refused', `<title>${'a'.repeat(2001)}</title>`, '', null],
  [
    'an og:title cut short at a quote the page left unescaped is the <title> that says it whole',
    '<meta property="og:title" content="Senator calls the plan "unworkable"" /><title>Senator calls the plan "unworkable"</title>',
    '',
    'Senator calls the plan “unworkable”',
  ],
  [
    'a generic part at an end of the title (a section called News, Blog Archive) goes as the site name does',
    '<title>News - Digital cameras return | Blog Archive</title>',
    '',
    'Digital cameras return',
  ],
  [
    'an og:title that only begins the <title> (no quote after it) stays the title',
    '<meta property="og:title" content="Senator calls the plan"><title>Senator calls the plan unworkable</title>',
    '',
    'Senator calls the plan',
  ],
]);

field('description', [
  [
    'og:description first',
    '<meta property="og:description" content="OG"><meta name="description" content="D">',
    '',
    'OG',
  ],
  [
    'twitter:description',
    '<meta name="twitter:description" content="TW"><meta name="description" content="D">',
    '',
    'TW',
  ],
  ['meta description', '<meta name="description" content="D">', '', 'D'],
  ['meta itemprop=description', '<meta itemprop="description" content="IP">', '', 'IP'],
  [
    'JSON-LD articleBody before description',
    ld({ '@type': 'Article', articleBody: 'Body', description: 'Desc' }),
    '',
    'Body',
  ],
  ['JSON-LD description', ld({ '@type': 'Article', description: 'Desc' }), '', 'Desc'],
  ['beyond: microdata itemprop=description text', '', '<div itemprop="description">Micro</div>', 'Micro'],
  [
    'beyond: the first long paragraph',
    '',
    `<p>short</p><article><p>${'word '.repeat(20)}</p></article>`,
    'word '.repeat(20).trim(),
  ],
  ['a dateline removed', '<meta name="description" content="WASHINGTON — The vote passed.">', '', 'The vote passed.'],
  ['trailing ... as an ellipsis', '<meta name="description" content="And then...">', '', 'And then…'],
  ['quotes made typographic', '<meta name="description" content="She said \'yes\'">', '', 'She said ‘yes’'],
]);

field('author', [
  [
    'the writer a page declares in its summary card (`twitter:label1` Written by) comes first',
    `<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="Tyler Brown">${ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Jane Doe' } })}`,
    '',
    'Tyler Brown',
  ],
  [
    "declared so, the site's own name is the writer (a company's post by the company)",
    '<meta property="og:site_name" content="Swoogo"><meta name="twitter:label2" content="Written by"><meta name="twitter:data2" content="Swoogo">',
    '',
    'Swoogo',
  ],
  [
    "a declared placeholder (`admin`) is no writer: the page's other rules decide",
    `<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="admin">${ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Jane Doe' } })}`,
    '',
    'Jane Doe',
  ],
  [
    'a job title glued after the name (no comma between) is cut off',
    ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Keith Barry Senior Autos Reporter' } }),
    '',
    'Keith Barry',
  ],
  [
    'a byline whose name and job title stand in elements of their own is read apart, the title cut off',
    '',
    '<h1>Chips</h1><div class="author-card"><span class="author-name">Harry Rabinowitz</span><span>Tech Reporter</span></div>',
    'Harry Rabinowitz',
  ],
  [
    'a one-word job title after a two-word name is cut off',
    ld({ '@type': 'Article', author: 'Rachel MacDonald Writer' }),
    '',
    'Rachel MacDonald',
  ],
  [
    "a machine's date after the name is cut off",
    '',
    '<h1>Rain</h1><div class="article-author"><span>Nick van Mead</span><span>2022-11-23T08:10+02:00</span></div>',
    'Nick van Mead',
  ],
  [
    'a reading time beside the name is cut off',
    ld({ '@type': 'Article', author: 'Lauren Vetter •5 min read' }),
    '',
    'Lauren Vetter',
  ],
  [
    "the page's interface words where a byline goes name nobody (`Sign In Join Us`, `Topic Author`)",
    ld({ '@type': 'Article', author: ['Sign In Join Us', 'Topic Author'] }),
    '',
    null,
  ],
  [
    'another label (reading time) names no writer',
    '<meta name="twitter:label1" content="Est. reading time"><meta name="twitter:data1" content="4 minutes">',
    '',
    null,
  ],
  [
    'JSON-LD author.name',
    `${ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Jane Doe' } })}<meta name="author" content="Meta Name">`,
    '',
    'Jane Doe',
  ],
  [
    "differs: a product's brand is no author (people label none)",
    ld({ '@type': 'Product', brand: { '@type': 'Brand', name: 'Acme Tools' } }),
    '',
    null,
  ],
  [
    "beyond: a scholarly page's citation tags: every author, in order, surname-first turned (not a name and its degree)",
    '<meta name="dc.creator" content="Ann Lee"><meta name="citation_author" content="Lee, Ann"><meta name="citation_author" content="Bo Chen"><meta name="citation_author" content="Jane Roe, MD">',
    '<p>Ann Lee, Bo Chen and Jane Roe, MD</p>',
    'Ann Lee; Bo Chen; Jane Roe',
  ],
  [
    'beyond: citation_authors, one list of several',
    '<meta name="citation_authors" content="Ann Lee; Bo Chen">',
    '',
    'Ann Lee; Bo Chen',
  ],
  ['meta author', '<meta name="author" content="Meta Name">', '<p>Meta Name</p>', 'Meta Name'],
  ['article:author', '<meta property="article:author" content="Art Author">', '<p>Art Author</p>', 'Art Author'],
  [
    'article:author that is a URL refused',
    '<meta property="article:author" content="https://facebook.com/someone">',
    '',
    null,
  ],
  ['beyond: book:author', '<meta property="book:author" content="Book Writer">', '<p>Book Writer</p>', 'Book Writer'],
  ['beyond: sailthru.author', '<meta name="sailthru.author" content="Sail Thru">', '<p>Sail Thru</p>', 'Sail Thru'],
  ['beyond: parsely-author', '<meta name="parsely-author" content="Parse Ly">', '<p>Parse Ly</p>', 'Parse Ly'],
  [
    'itemprop author > itemprop name',
    '',
    '<div itemprop="author"><span itemprop="name">Micro Data</span> extra</div>',
    'Micro Data',
  ],
  ['itemprop*=author', '', '<span itemprop="author">Item Prop</span>', 'Item Prop'],
  ['rel=author', '', '<a rel="author" href="/me">Rel Author</a>', 'Rel Author'],
  ['a[class*=author], two words', '', '<a class="author-link" href="/a">Link Author</a>', 'Link Author'],
  ['a[class*=author], one word refused', '', '<a class="author-link" href="/a">Staff</a>', null],
  ['[class*=author] a', '', '<div class="post-author"><a href="/a">Nested Author</a></div>', 'Nested Author'],
  ['a[href*=/author/]', '', '<a href="/author/jd">Href Author</a>', 'Href Author'],
  [
    'a[href*=/authors/]',
    '',
    '<span>by </span><a href="/articles/authors/shannon-grilli">Shannon Grilli</a>',
    'Shannon Grilli',
  ],
  ['a[class*=screenname], one word allowed', '', '<a class="screenname">handle</a>', 'handle'],
  ['[class*=author], two words', '', '<span class="author">Span Author</span>', 'Span Author'],
  ['[class*=byline] that is not a date', '', '<div class="byline">By Byline Writer</div>', 'Byline Writer'],
  ['[class*=byline] that is a date refused', '', '<div class="byline">July 4, 2019</div>', null],
  [
    'a part whose class says it has no byline (`no-byline`) is none: its breadcrumb is no name',
    '',
    '<h1>Consulting</h1><div class="post-meta no-byline"><span>Home » Consulting Services</span></div>',
    null,
  ],
  [
    'a wrapper whose class says what its layout has (`has-byline`) is not the byline: the byline inside it is',
    '',
    '<article class="post has-byline"><h1>Tide tables</h1><p class="byline">Maren Holt</p><p>The tide turns twice a day along this coast.</p></article>',
    'Maren Holt',
  ],
  [
    "a customer quoted on a service page (testimonial, customer quote, carousel) is not the page's author",
    '',
    '<h1>Cloud backup</h1><p>We back up your files.</p><div class="testimonial"><p>It saved us.</p><div class="author-details"><span class="author-name">Carlos Escobar, VP, RevMed</span></div></div><div class="customer-quotes"><p>Great service.</p><p class="quote-author">Laura Baker</p></div><div class="carousel"><div class="author">Tom Keller</div></div>',
    null,
  ],
  [
    "a quotation's attribution names who is quoted, not who wrote the page",
    '',
    '<h1>Quarterly news</h1><p>Our team grew.</p><blockquote><p>We grew fast.</p><footer><span class="author">Susan Hallam</span></footer></blockquote>',
    null,
  ],
  [
    "a critic's review names its byline as the review's (`review-byline`): it is the page's author",
    '',
    '<div class="review-header"><h1>The album of the year</h1></div><div class="review-meta"><span class="review-byline">Jane Doe</span></div><p>It is loud.</p>',
    'Jane Doe',
  ],
  [
    'a byline beside a testimonial is still the byline',
    '',
    '<h1>Why we switched</h1><div class="byline">By Jane Doe</div><div class="testimonial"><span class="author">Tom Keller</span></div>',
    'Jane Doe',
  ],
  [
    'beyond: a Japanese byline, labelled `記者：` in the text',
    '<meta property="og:locale" content="ja_JP">',
    '<h1>新しい駅が開業</h1><p>2025年3月12日</p><p>（記者：山田太郎）</p><p>本文です。</p>',
    '山田太郎',
  ],
  [
    "differs: a twitter:creator handle is no author (the site's account, mostly)",
    '<meta name="twitter:creator" content="@tweeter">',
    '',
    null,
  ],
  ['a leading "By" removed', '<meta name="author" content="By Jane Doe">', '<p>By Jane Doe</p>', 'Jane Doe'],
  ['beyond: a "By" glued to the name removed', '', '<span class="author">ByJane Doe</span>', 'Jane Doe'],
  [
    'beyond: "Published on" glued after the name removed',
    '',
    '<div class="author-name">Jane DoePublished on</div>',
    'Jane Doe',
  ],
  ['beyond: a date glued before the name removed', '', '<span class="author">Dec 17, 2025Jane Doe</span>', 'Jane Doe'],
  [
    'beyond: an e-mail line: the address, its envelope and "Corresponding author." removed',
    '<meta name="author" content="✉ Jane Doe jane.doe@example.com ✉Corresponding author.">',
    '<p>Jane Doe</p>',
    'Jane Doe',
  ],
  [
    'beyond: quotes around the name removed',
    '<meta name="author" content="“Jane Doe”">',
    '<p>Jane Doe</p>',
    'Jane Doe',
  ],
  ['beyond: interface words where a byline goes refused', '', '<a class="author-link" href="/a">Full Bio</a>', null],
  ['beyond: "undefined" refused', '<meta name="author" content="undefined">', '', null],
  ['a URL refused', '<meta name="author" content="https://example.com/jane">', '', null],
  ['over 128 characters refused', `<meta name="author" content="${'a'.repeat(129)}">`, '', null],
  [
    'quotes made typographic',
    '<meta name="author" content="Jane &quot;JD&quot; Doe">',
    '<p>Jane “JD” Doe</p>',
    'Jane “JD” Doe',
  ],
  [
    'beyond: several JSON-LD authors named',
    ld({
      '@type': 'Article',
      author: [
        { '@type': 'Person', name: 'Ann Lee' },
        { '@type': 'Person', name: 'Bo Chan' },
      ],
    }),
    '<p>Ann Lee and Bo Chan</p>',
    'Ann Lee; Bo Chan',
  ],
  [
    "beyond: a byline's words in any language go",
    '<a rel="author">Zeige alle Beiträge von Petra Ruland</a>',
    '',
    'Petra Ruland',
  ],
  [
    'beyond: "Von X -" and a date after the name go',
    '<span class="author">Von Ulrike Meier 18.10.2019 16:06 Uhr</span>',
    '',
    'Ulrike Meier',
  ],
  [
    'beyond: a degree after the name goes',
    '<meta name="author" content="Grant Tinsley, PhD">',
    '<p>Grant Tinsley</p>',
    'Grant Tinsley',
  ],
  [
    "beyond: the site's name is no author",
    '<meta property="og:site_name" content="Marketing Land"><meta name="author" content="Marketing Land">',
    '',
    null,
  ],
  [
    "beyond: the site's own team named as the writer is an author (`The Investopedia Team`, `auto-motor.at Redaktion`)",
    `<meta property="og:site_name" content="Investopedia">${ld({ '@type': 'Article', author: { '@type': 'Person', name: 'The Investopedia Team' } })}`,
    '<p>By The Investopedia Team</p>',
    'The Investopedia Team',
  ],
  [
    "beyond: a person's name inside the site's name stays (a blog named after its writer)",
    '<meta property="og:site_name" content="Daniel Lemire\'s blog"><meta name="author" content="Daniel Lemire">',
    '<p>Daniel Lemire</p>',
    'Daniel Lemire',
  ],
  [
    "beyond: a reviewer's line is no author",
    '',
    '<h1>Innere Zufriedenheit</h1><div class="author-box">Geprüft von Dr. med. Stefan Frädrich</div>',
    null,
  ],
  ['beyond: a commenter is no author', '<div class="author">Harm Otten sagt: 12. März 2020</div>', '', null],
  ['beyond: a placeholder is no author', '<meta name="author" content="Super User">', '', null],
  ['beyond: a company is no author', '<meta name="author" content="Perform Media Deutschland GmbH">', '', null],
  [
    "beyond: a byline its style hides is never shown (a theme's hidden microformat login), nor is JSON-LD's person it names",
    `${ld({
      '@graph': [
        { '@type': 'Article', author: { '@id': '#p1' } },
        { '@type': 'Person', '@id': '#p1', name: 'fhaacker' },
      ],
    })}`,
    '<h1>Vogelgrippe</h1><div class="td-author-name vcard author" style="display: none"><span class="fn"><a href="/author/fhaacker/">fhaacker</a></span></div><p>Text.</p>',
    null,
  ],
  [
    "beyond: a meta author the page never shows is none (a CMS names the site's owner on every page)",
    '<meta name="author" content="Deutsches Rotes Kreuz">',
    '<p>Text.</p>',
    null,
  ],
  [
    'beyond: a meta author the page never shows gives way to its byline',
    '<meta name="author" content="Agency Desk">',
    '<span class="author">Ann Lee</span>',
    'Ann Lee',
  ],
  [
    'beyond: a JSON-LD author stands though the page shows no byline (a script writes it)',
    ld({ '@type': 'Article', author: { name: 'Ann Lee' } }),
    '<div id="root"></div>',
    'Ann Lee',
  ],
  [
    "beyond: an author link in a sidebar is not the page's",
    '',
    '<div class="sidebar"><a href="/author/x">Other Writer</a></div><article><h1>T</h1><p>Text.</p></article>',
    null,
  ],
  [
    'beyond: a layout named after its sidebar holds the byline',
    '',
    '<div class="content-sidebar-wrap"><h1>T</h1><a href="/author/x">Page Writer</a></div>',
    'Page Writer',
  ],
  [
    'beyond: a byline written as text near the headline',
    '',
    '<h1>Title</h1><p>yas! | By Cara Stiles | April 13, 2020</p>',
    'Cara Stiles',
  ],
  [
    'beyond: a byline written as text that its style hides is not read',
    '',
    '<h1>Pflegefinanzierung</h1><div style="display:none"><p>Redaktion: Multimedia Redaktion</p></div><p>Text.</p>',
    null,
  ],
  ['beyond: a byline word in running text is none', '', '<h1>Title</h1><p>By contrast, the Other Side won.</p>', null],
  [
    'beyond: a page with no headline found is read further for its byline (its menus first)',
    '',
    `<div>${'<p>Strompreise Gaspreise Heizöl</p>'.repeat(60)}</div><h4>Energiepreiskrise</h4><p>Von Leonora Holling (21. November 2022) Text.</p>`,
    'Leonora Holling',
  ],
  [
    "beyond: a 'By' after a participle names a maker, not an author",
    '',
    '<h1>Title</h1><p>Developed By: <span>CAPCOM Co., Ltd.</span></p><p>Published By: <span>Mega Crit Games</span></p>',
    null,
  ],

  [
    "beyond: a labelled byline at the article's end",
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><p>Autor: <a href="/p/1">Klausmartin Friedrich</a> Tags: x</p>`,
    'Klausmartin Friedrich',
  ],
  [
    "beyond: an author box after the story, its element starting 'Written by'",
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><div class="bio"><img src="/a.jpg" alt=""><p>Written by John Crenshaw</p><p>John writes on search.</p></div>`,
    'John Crenshaw',
  ],
  [
    "beyond: an author box's sentence, 'This post was written by …'",
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><div class="bio">This post was written by Danielle Padula, Head of Marketing</div>`,
    'Danielle Padula',
  ],
  [
    'beyond: a label that is an element of its own, the name in the next',
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><h2>Article by</h2><div>Matias Heikkilä</div>`,
    'Matias Heikkilä',
  ],
  [
    "beyond: a shop's specifications table writes a bare Author beside a book's",
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><div><span>Author</span><span>J. B. Mackinnon</span></div>`,
    null,
  ],
  [
    'beyond: a lower-case "by:" starting the line under the headline',
    '',
    '<h1>Title</h1><p>by: Ziyi Xu, Dec 17, 2025</p>',
    'Ziyi Xu',
  ],
  [
    'beyond: "written by" inside a sentence far from the headline is no byline',
    '',
    `<h1>Title</h1><p>${'Text. '.repeat(400)}</p><p>The song was written by Paul Simon in 1964.</p>`,
    null,
  ],
  [
    "beyond: a labelled byline at a long article's end (30,000 characters of text before it)",
    '',
    `<h1>Title</h1>${'<p>A sentence of the story. '.repeat(1100)}</p><p><strong>Text:</strong> Klausmartin Friedrich</p>`,
    'Klausmartin Friedrich',
  ],
  [
    'beyond: a page without an <h1> has its headline in the lower heading that says its title',
    '<title>Herons return to the marsh | Marsh News</title>',
    `<div>${'Links to other pages. '.repeat(80)}</div><h5>Herons return to the marsh</h5><p><em>Von Leonie Hall</em></p>`,
    'Leonie Hall',
  ],
  [
    'beyond: a name written twice and a copyright sign',
    '',
    '<span class="author">© Kathrin Führes Kathrin Führes</span>',
    'Kathrin Führes',
  ],
  [
    'beyond: "Alle Artikel" after the name goes',
    '',
    '<span class="author">Johanna Kropfitsch Alle Artikel</span>',
    'Johanna Kropfitsch',
  ],
  [
    'beyond: three JSON-LD authors',
    ld({ '@type': 'Article', author: [{ name: 'Ann Lee' }, { name: 'Bo Chan' }, { name: 'Cy Dorn' }] }),
    '<p>Cy Dorn</p>',
    'Ann Lee; Bo Chan; Cy Dorn',
  ],
  [
    'beyond: a JSON-LD author given by reference (@id) to a person of the graph, whom the page shows',
    ld({
      '@graph': [
        { '@type': 'WebPage', author: { '@id': 'https://x.example/#/person/1' } },
        { '@type': 'Person', '@id': 'https://x.example/#/person/1', name: 'Harald Brauer' },
      ],
    }),
    '<h1>Title</h1><p>Text.</p><div class="box"><p>Harald Brauer</p></div>',
    'Harald Brauer',
  ],
  [
    'beyond: a person referred to by @id whom the page never shows is not its author (the account that posted)',
    ld({
      '@graph': [
        { '@type': 'WebPage', author: { '@id': '#p' } },
        { '@type': 'Person', '@id': '#p', name: 'Webmaster Account' },
      ],
    }),
    '<h1>Title</h1><p>Text.</p>',
    null,
  ],
  [
    'beyond: Dublin Core dc.creator, shown',
    '<meta name="dc.creator" content="Eliza Gibbon">',
    '<h3>Eliza Gibbon</h3>',
    'Eliza Gibbon',
  ],
  [
    "beyond: a byline naming the site gives way to a later one naming a person (a syndicated post's credit)",
    '<meta property="og:site_name" content="The Planet Press">',
    '<h1>Title</h1><p>By The Planet Press - January 17, 2020</p><p><em>Written by: <a href="/x">Julia Moll</a></em></p>',
    'Julia Moll',
  ],
  [
    'beyond: a byline of a date, a dash and the name under the headline',
    '',
    '<h1>Variablen</h1><p class="text-muted">11.12.2019 - Amalia Lorenz</p><p>Text.</p>',
    'Amalia Lorenz',
  ],
  [
    'beyond: an element that starts with a byline word in lower case',
    '',
    '<h1>Grenzen</h1><p><i>von Daniela Obermann</i></p><p>Text.</p>',
    'Daniela Obermann',
  ],
  [
    'beyond: a first name alone after words that introduce nothing else',
    '',
    '<h1>Interning</h1><span class="category">Posted by Konstantin</span><p>Text.</p>',
    'Konstantin',
  ],
  [
    "beyond: a byline's name ends before the words that say where or when it was posted",
    '',
    '<h1>Antipoden</h1><p>Posted by Nesselsetzer under <a href="/c/fun">Just For Fun</a></p>',
    'Nesselsetzer',
  ],
  [
    'beyond: a login set as an element of its own between the byline word and the day',
    '',
    '<h1>Tomaten richtig schneiden</h1><p>von <a href="/user/1">Marianne1</a> am 20.09.2020</p>',
    'Marianne1',
  ],
  ['beyond: "By" and a first name alone is none', '', '<h1>Title</h1><p>By Tuesday</p>', null],
  [
    "beyond: hCard's name in an author element, one word",
    '',
    '<h1>Top 100</h1><p class="headline_meta">by <span class="author vcard fn">oz</span></p>',
    'oz',
  ],
  [
    "beyond: Drupal's submitted line, the user's name one word",
    '',
    '<h1>FairCoin hackathon</h1><div class="submitted">Gespeichert von <span class="username">rasos</span> am 24. Juli 2017</div>',
    'rasos',
  ],
  ['beyond: a label for authors is no author', '', '<h1>Title</h1><a href="/autoren/">Autoren</a>', null],
  [
    'beyond: a job title after the name, capitalised up to a comma, is cut off',
    '',
    '<h1>Wine for beginners</h1><div class="blog-author">Matt Check Head Winemaker, Co-Founder</div><p>Text.</p>',
    'Matt Check',
  ],
  [
    "beyond: a forum's user card after the poster's name (counts behind their labels) is cut off",
    '',
    '<h1>SMF or MyBB?</h1><div class="post-author">Ada Lind Posts: 116 Threads: 23 Joined: Feb 2019</div><p>Text.</p>',
    'Ada Lind',
  ],
  [
    'beyond: a byline whose label has nobody after it (an empty link) is none',
    '',
    '<h1>Zero waste</h1><div class="blog-meta author"><time>Jun 2</time> Written By <a href="/blog?author=1"></a></div><p>Text.</p>',
    null,
  ],
  [
    "beyond: an author box a page builder names a widget (Elementor's) is the page's own, its role after the name cut off",
    '',
    '<h1>Case interviews</h1><p>Text.</p><div class="elementor-widget elementor-widget-author-box"><div class="elementor-widget-container"><h4 class="elementor-author-box__name">Liz Kenny Former McKinsey Consultant</h4></div></div>',
    'Liz Kenny',
  ],
  [
    "beyond: a sidebar's widget still names other people",
    '',
    '<h1>Case interviews</h1><p>Text.</p><div class="widget widget_authors"><div class="author-card">Liz Kenny</div></div>',
    null,
  ],
  [
    "beyond: a thread's line that says who started it (SMF's) names its author",
    '',
    '<h1>How is everyone implementing AI?</h1><p>Started by Mira Okafor, June 04, 2024, 11:23:55 AM</p><p>Text.</p>',
    'Mira Okafor',
  ],
  [
    "beyond: a shop's sort control where a byline would be is none",
    '',
    '<h1>Monitors</h1><div class="sorter"><label>Sort By</label> <a class="sorter-action"><span>Set Descending Direction</span></a></div><p>Text.</p>',
    null,
  ],
  [
    'several: a byline that names two people, each linked to a profile, is answered whole as the page writes it',
    '',
    '<h1>Viren</h1><div class="content__author"><span>von <a href="/profil/fischer">Lars Fischer</a> und <a href="/profil/schadwinkel">Alina Schadwinkel</a></span></div><p>Text.</p>',
    'Lars Fischer und Alina Schadwinkel',
  ],
  [
    "several: JSON-LD's list of the same people is written as the page's byline writes it",
    ld({
      '@type': 'NewsArticle',
      author: [
        { '@type': 'Person', name: 'David Brand' },
        { '@type': 'Person', name: 'Ramsey Khalifeh' },
      ],
    }),
    '<h1>Rezoning</h1><p class="byline">By David Brand and Ramsey Khalifeh</p><p>Text.</p>',
    'David Brand and Ramsey Khalifeh',
  ],
  [
    "several: a meta tag's one author and the byline's three, with their courtesy titles",
    '<meta name="author" content="Marna van der Merwe">',
    '<h1>HR</h1><div class="post-author">Written by Dr Marna van der Merwe, Dr Dieter Veldsman, Erik van Vulpen</div><p>Text.</p>',
    'Dr Marna van der Merwe, Dr Dieter Veldsman, Erik van Vulpen',
  ],
  [
    "several: a list labelled as the authors' (`Authors:`) is their names",
    '',
    '<h1>Paper</h1><p class="byline">Authors: Aniruddha Roy, Jyoti Patel, Aman Chadha</p><p>Text.</p>',
    'Aniruddha Roy, Jyoti Patel, Aman Chadha',
  ],
  [
    "several: a byline made of links to each author's page, joined by commas and `&`, is answered whole",
    '',
    '<h1>Courses</h1><div class="meta"><span><a href="/report/author/ruima/">Rui Ma</a><span>, </span><a href="/report/author/heba/">Heba Ledwon</a><span> &amp; </span><a href="/report/author/suparn/">Suparn Patra</a></span></div><p>Text.</p>',
    'Rui Ma, Heba Ledwon & Suparn Patra',
  ],
  [
    'several: author links with other words between them (a sentence naming two writers) are not one byline',
    '',
    '<h1>Courses</h1><p>Read <a href="/author/ruima/">Rui Ma</a> on data, or ask <a href="/author/heba/">Heba Ledwon</a>, who edits the guides.</p><p>Text.</p>',
    'Rui Ma',
  ],
  [
    "several: one person's name and job title after a comma lists no second person",
    '<meta name="author" content="Brett Cruz">',
    '<h1>VPNs</h1><div class="post-author">Brett Cruz, Privacy and Digital Security Expert</div><p>Text.</p>',
    'Brett Cruz',
  ],
  [
    "several: one person's name and degrees after commas lists no second person",
    '<meta name="author" content="Jillian Kubala">',
    '<h1>Diet</h1><div class="post-author">Jillian Kubala, MS, RD</div><p>Text.</p>',
    'Jillian Kubala',
  ],
  [
    "beyond: a layout wrapper named after its sidebar holding the headline is read for the byline's text",
    '',
    '<div class="panel-display one-sidebar-second"><h1>Title</h1><span class="signature">Par&nbsp;<a href="/n/m">Matt Hylan</a></span><p>Text.</p></div>',
    'Matt Hylan',
  ],
  [
    'beyond: a login is the full name the page writes out for it',
    ld({ '@type': 'Article', author: { '@type': 'Person', name: 'christian.stadtfeld' } }),
    '<h1>Wahl</h1><p>Die Gemeindepolitik bleibt spannend. (Christian P. Stadtfeld)</p>',
    'Christian P. Stadtfeld',
  ],
  [
    'beyond: a login the page never writes out, nor shows, is the account that posted: no author',
    ld({ '@type': 'Article', author: { '@type': 'Person', name: 'robert.stitz' } }),
    '<h1>Tischdecke</h1><p>Robert erklärt es.</p>',
    null,
  ],
  [
    'beyond: a person JSON-LD declares the author is the author on a site bearing their name (a personal blog)',
    `<meta property="og:site_name" content="Sam Bossley">${ld({ '@type': 'BlogPosting', author: [{ '@type': 'Person', name: 'Sam Bossley' }] })}`,
    '<nav><a href="/">Sam Bossley</a></nav><h1>Thoughts on Zig</h1><p>Zig is my favourite language.</p>',
    'Sam Bossley',
  ],
  [
    "beyond: the summary card's writer the page never shows gives way to the structured data's author it shows",
    `<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="Colin Madison">${ld({ '@type': 'BlogPosting', author: { '@type': 'Person', name: 'Christian Dupuis' } })}`,
    '<h1>Hardened images</h1><a class="contributor" href="/contributors/christian-dupuis/">Christian Dupuis</a><p>Text.</p>',
    'Christian Dupuis',
  ],
  [
    'beyond: a login (one word) the structured data names and the page never shows is the account that posted, no author',
    ld({ '@type': 'BlogPosting', author: { '@type': 'Person', name: 'brandon-peaktwo' } }),
    '<h1>Eight ways to grow</h1><p>Growth takes a plan and the patience to keep to it.</p>',
    null,
  ],
  [
    'beyond: a one-word author the page shows stays',
    ld({ '@type': 'BlogPosting', author: { '@type': 'Person', name: 'Supriya' } }),
    '<h1>Eight ways to grow</h1><p class="meta">Posted by Supriya</p><p>Growth takes a plan.</p>',
    'Supriya',
  ],
  [
    "beyond: a graph's person referred to by id (Yoast) is the author on a site of their name",
    `<meta property="og:site_name" content="Wolfgang Schmale">${ld({
      '@graph': [
        { '@type': 'Article', author: { '@id': '#/person/1' } },
        { '@type': 'Person', '@id': '#/person/1', name: 'Wolfgang Schmale' },
      ],
    })}`,
    '<header><a href="/">Wolfgang Schmale</a></header><h1>Abgebrochene Forschung</h1><p>Eine neue Studie.</p>',
    'Wolfgang Schmale',
  ],
  [
    'beyond: a person-shaped <meta name=author> is the author on a site of that name when nothing else names one',
    '<meta property="og:site_name" content="Cory Dransfeldt"><meta name="author" content="Cory Dransfeldt"><meta property="og:type" content="article">',
    '<header><a href="/">Cory Dransfeldt</a></header><h1>A brief intro to git</h1><p>Git tracks changes.</p>',
    'Cory Dransfeldt',
  ],
  [
    'beyond: the name an author box opens with, its bio after it',
    '<meta property="og:type" content="article">',
    '<h1>SEO tips</h1><p>Text.</p><div class="blog_author-wrapper"><img alt="" src="/a.jpg"><div>Lauren Vetter</div><p>Lauren Vetter is a growth-focused marketing professional.</p></div>',
    'Lauren Vetter',
  ],
  [
    'beyond: an author box after its label (`Article by`)',
    '<meta property="og:type" content="article">',
    '<h1>Proofs as types</h1><p>Text.</p><section id="author"><h2>Article by</h2><div>Matias Heikkilä</div></section>',
    'Matias Heikkilä',
  ],
  [
    "beyond: author boxes naming three people are a listing's cards, no author",
    '',
    `<h1>Posts</h1>${['Jess Lee', 'Ben Halpern', 'Anna Lopez'].map((n) => `<div class="author-card"><span>${n}</span><p>${n.split(' ')[0]} writes about the community, its tools and the many people in it.</p></div>`).join('')}`,
    null,
  ],
  [
    "beyond: a page's body whose class names an author (`hide-author`) is no author box",
    '',
    '<body class="blog hide-author"><a href="/jobs">Live Jobs</a><h1>Industry News</h1><p>McKinsey and Inception sign a strategic partnership to help leaders drive their transformation, the firms said on Monday in a joint statement to the press.</p></body>',
    null,
  ],
  [
    "beyond: a site typed a person in JSON-LD whose name is not a person's shape stays the site",
    `<meta property="og:site_name" content="Eat What Tonight">${ld({ '@type': 'Recipe', author: { '@type': 'Person', name: 'Eat What Tonight' } })}`,
    '<nav><a href="/">Eat What Tonight</a></nav><h1>Char kway teow</h1><p>Stir fry the noodles.</p>',
    null,
  ],
  [
    "beyond: a first name alone is the full name its JSON-LD person's description opens with",
    ld({
      '@graph': [
        { '@type': 'Article', author: { '@id': '#/person/1' } },
        { '@type': 'Person', '@id': '#/person/1', name: 'Nils', description: 'Nils Pickert ist freier Autor.' },
      ],
    }),
    '<h1>Kulturtechnik</h1><p>Von Nils</p><p>Nils Pickert ist freier Autor.</p>',
    'Nils Pickert',
  ],
  [
    'beyond: a first name alone whose person is described otherwise stays as it is',
    ld({ '@type': 'Article', author: { '@type': 'Person', name: 'Nils', description: 'Schreibt über Väter.' } }),
    '<h1>Kulturtechnik</h1><p>Von Nils</p><p>Nils Pickert und Nils Autor</p>',
    'Nils',
  ],
  [
    'beyond: a sentence where a byline stands (a caption) is no author',
    '',
    '<h1>Loriot</h1><div class="byline">Jan Fleischhauer, deutscher Journalist, Kolumnist und Autor</div>',
    null,
  ],
  [
    "beyond: three words may be a user's name",
    '',
    '<h1>Rod test</h1><a href="/author/catch">Catch more fish</a>',
    'Catch more fish',
  ],
  [
    'beyond: a part whose class says what it has beside it (has-sidebar) is read for a byline',
    '',
    '<h1>Energiepreise</h1><div class="main-content has-double-sidebar"><p>Von Leonora Holling</p><p>Text.</p></div>',
    'Leonora Holling',
  ],
]);

field(
  'date',
  [
    [
      'differs: JSON-LD datePublished over dateModified (people date a page by its publication)',
      ld({ '@type': 'Article', dateModified: '2020-02-02T10:00:00Z', datePublished: '2020-01-01T10:00:00Z' }),
      '',
      '2020-01-01T10:00:00.000Z',
    ],
    [
      'differs: *published_time over *modified_time',
      '<meta property="article:modified_time" content="2020-03-03T00:00:00Z"><meta property="article:published_time" content="2020-01-01T00:00:00Z">',
      '',
      '2020-01-01T00:00:00.000Z',
    ],
    [
      '*modified_time when the page states no other date',
      '<meta property="article:modified_time" content="2020-03-03T00:00:00Z">',
      '',
      '2020-03-03T00:00:00.000Z',
    ],
    [
      "beyond: a date written in the page's text after its headline (German month name)",
      '',
      '<h1>Ein Bericht</h1><p>Samstag, 19. Juli 2014</p><p>Text.</p>',
      '2014-07-19T12:00:00.000Z',
    ],
    [
      "beyond: the headline is found where it stands in the text read, however indented the page's markup (a date right after it, an archive's date 6,000 characters on)",
      '',
      `<div>${'\n      '.repeat(900)}<h1>Ein Bericht</h1>${'\n      '.repeat(900)}<p>Samstag, 19. Juli 2014</p><p>${'Text. '.repeat(1050)}</p><p>Archiv: 3. März 2001</p></div>`,
      '2014-07-19T12:00:00.000Z',
    ],
    [
      'beyond: a date the text labels as published wins over an earlier unlabelled one (a sidebar teaser, an event)',
      '',
      '<h1>Folge 158</h1><div class="info"><span class="date">24.08.2019</span></div><p>Veröffentlicht am 16.08.2019</p>',
      '2019-08-16T00:00:00.000Z',
    ],
    [
      'beyond: a date labelled as submitted by someone is the date (Drupal: Gespeichert von … am, Submitted by … on)',
      '',
      '<h1>Hackathon</h1><div class="info"><span class="date">26.08.2017</span></div><div class="submitted">Submitted by <span>rasos</span> on July 24, 2017 - 18:55</div>',
      '2017-07-24T18:55:00.000Z',
    ],
    [
      "beyond: a German passive labels the date after it, in a post's own footer (wurde am … veröffentlicht)",
      '',
      `<h1>Virtual Wall</h1><p>${'Text. '.repeat(400)}</p><div class="post-footer">Dieser Artikel wurde am 14. Dezember 2015 um 14:48 von Heiner geschrieben.</div>`,
      '2015-12-14T14:48:00.000Z',
    ],
    [
      'beyond: a labelled date later changed is not a publication date (Aktualisiert, Updated)',
      '',
      '<h1>Bericht</h1><span class="date">10.01.2020</span><p>Erstellt, zuletzt aktualisiert am 03.02.2020</p>',
      '2020-01-10T00:00:00.000Z',
    ],
    [
      "beyond: milliseconds written after a colon (a CMS's slip) are read as the fraction they are",
      ld({ '@type': 'Article', datePublished: '2022-01-10T22:06:08:684Z' }),
      '',
      '2022-01-10T22:06:08.684Z',
    ],
    [
      'beyond: a dotted date is day first',
      '',
      '<h1>Artikel</h1><p>Artikel veröffentlicht am 16.12.2012</p>',
      '2012-12-16T00:00:00.000Z',
    ],
    [
      "beyond: a page inside one form (ASP.NET wraps the whole body in one) is read: its date is the page's",
      '',
      '<form id="aspnetForm" method="post"><input type="hidden" name="__VIEWSTATE" value="x"><h1>News</h1><h3>Come Together</h3><div class="abstract"><p>06.05.2018</p></div><p>Text.</p></form>',
      '2018-05-06T00:00:00.000Z',
    ],
    [
      'beyond: a form beside the headline (a sign-up, a search) is still not read',
      '',
      '<h1>News</h1><p>Text.</p><form><p>Angebot bis 06.05.2018</p><input name="email"></form>',
      null,
    ],
    [
      'beyond: a page that states no other date is dated by the last change its text labels (Aktualisiert:, last edited)',
      '',
      `<h1>Kinder und Arbeit</h1><p>${'Text. '.repeat(800)}</p><p class="info">Aktualisiert: 30.12.2016</p>`,
      '2016-12-30T00:00:00.000Z',
    ],
    [
      "beyond: a wiki's last edit, its machine date followed by words (`2019-11-10 13:28:18 by Mats`)",
      '',
      `<h1>BeginnersGuide</h1><p>${'Text. '.repeat(800)}</p><p id="pageinfo">BeginnersGuide/Download (last edited 2019-11-10 13:28:18 by <a href="/moin/Mats">Mats</a>)</p>`,
      '2019-11-10T13:28:18.000Z',
    ],
    [
      'beyond: a date the text shows near the headline wins over a labelled later change',
      '',
      `<h1>Bericht</h1><p>Montag, 3. Februar 2020</p><p>${'Text. '.repeat(800)}</p><p>Last updated: March 3, 2021</p>`,
      '2020-02-03T12:00:00.000Z',
    ],
    [
      'beyond: a span of time from now (`within 2 days`, `in 7 days`) is no date; the day written after it is',
      '',
      '<h1>Resumes</h1><p class="date">An interview within 2 days! Reviewed in 7 days, on 12 January 2020</p>',
      '2020-01-12T12:00:00.000Z',
    ],
    [
      'beyond: a word with a figure is no date (`Marianne1` is not 1 March 2001), a date that writes its year is',
      '<meta name="date" content="Marianne1">',
      '<h1>Tomaten</h1><p class="date">Tue, 15 Nov 2022 08:12:31 GMT</p>',
      '2022-11-15T08:12:31.000Z',
    ],
    [
      'beyond: a malformed machine time is not read as its bare day (`23:15:0Z`): the shown date stands',
      '<meta property="article:published_time" content="2020-12-05T23:15:0Z">',
      '<h1>Biden</h1><p>Domenica 06 Dicembre 2020 | 00:36</p>',
      '2020-12-06T12:00:00.000Z',
    ],
    [
      'beyond: a date written in Arabic (its month names, Egyptian or Levantine, and its digits)',
      '',
      '<h1>سر رحيل نعيمة عاكف</h1><p>الأربعاء، 07 أكتوبر 2020 - 12:09 م</p><p>نص.</p>',
      '2020-10-07T12:00:00.000Z',
    ],
    [
      'beyond: a date written in Arabic with Arabic-Indic digits and a Levantine month name',
      '',
      '<h1>خبر</h1><span class="date">٧ تشرين الأول ٢٠٢٠ - ١٢:٠٩ م</span>',
      '2020-10-07T12:09:00.000Z',
    ],
    [
      "beyond: the date shown under the headline wins over a generic markup date the page shows nowhere (a teaser's <time>)",
      '<meta name="date" content="2019-07-30">',
      '<h1>Violences policières</h1><p>27 juin 2019 Par Elba</p><p>Texte.</p>',
      '2019-06-27T12:00:00.000Z',
    ],
    [
      'beyond: a generic markup date the page also shows stands (`22.06.2018` further on), whatever the headline shows',
      '<meta name="date" content="2018-06-22">',
      `<h1>Anpassung der Vorlagen</h1><p>Stand 29.08.2018</p><p>${'Text. '.repeat(100)}</p><p>Vorlage vom 22.06.2018</p>`,
      '2018-06-22T00:00:00.000Z',
    ],
    [
      "beyond: an archive's calendar is read only so far for the markup's day (its first 100 written dates: a page may write thousands)",
      '<meta name="date" content="2018-06-22">',
      `<h1>Archiv</h1><p>3. März 2020</p><ul>${Array.from({ length: 150 }, (_, i) => `<li>${(i % 28) + 1}.01.2019</li>`).join('')}</ul><p>22.06.2018</p>`,
      '2020-03-03T12:00:00.000Z',
    ],
    [
      "beyond: a forum poster's Joined date under the headline is not the page's",
      '<meta name="date" content="2025-12-19">',
      '<h1>How close is the EUV project?</h1><p>beijingwalker</p><p>Joined Nov 4, 2011</p><p>Messages 65,334</p>',
      '2025-12-19T00:00:00.000Z',
    ],
    [
      "beyond: a site's logo set in an <h1> (a link to its home) is not the headline: the date under the real one is read",
      '',
      `<h1><a href="/" class="logo">Deutschlandfunk</a></h1><span class="today">Mittwoch, 26.02.2020</span><div>${'Menü '.repeat(400)}</div><h1>Die Zukunft der Arbeit</h1><p>Beitrag vom 01.05.2017</p>`,
      '2017-05-01T00:00:00.000Z',
    ],
    [
      'beyond: the headline is the first <h1> read: one in navigation (not read) does not hide the one after it',
      '',
      '<nav><h1>Menü</h1><a href="/a">Angebote</a></nav><div class="teaser">Heute, 01.02.2021</div><h1>Bericht</h1><p>05.03.2020</p>',
      '2020-03-05T00:00:00.000Z',
    ],
    [
      "beyond: a date in navigation or comments is not the page's",
      '',
      '<nav>Archiv 03.06.2008</nav><h1>Artikel</h1><p>Text ohne Datum.</p><div class="comments">am 01.02.2019</div>',
      null,
    ],
    [
      'beyond: a UTC date the page also states as a local time is answered in that local time',
      ld({ '@type': 'NewsArticle', datePublished: '2023-11-09T01:49:09Z' }),
      '<time datetime="2023-11-08 17:49:09">November 8</time>',
      '2023-11-08T17:49:09.000-08:00',
    ],
    [
      "beyond: a UTC date is answered in the zone the page's other times state",
      '<meta property="article:published_time" content="2023-11-09T02:11:03+00:00">',
      '<time datetime="2023-11-08T21:05:00-05:00">Nov 8</time>',
      '2023-11-08T21:11:03.000-05:00',
    ],
    [
      'beyond: a day stored as its local midnight east of UTC is that day (23:00 UTC on the 4th is the 5th in Central Europe)',
      '<meta property="article:published_time" content="2021-11-04T23:00:00.000Z">',
      '',
      '2021-11-05T00:00:00.000+01:00',
    ],
    [
      'beyond: a UTC time of a person (not a round hour at night) stays as written',
      '<meta property="article:published_time" content="2021-11-04T23:17:00Z">',
      '',
      '2021-11-04T23:17:00.000Z',
    ],
    [
      "beyond: an embedded video's upload date gives way to the page's own published time",
      `${ld({ '@type': 'VideoObject', uploadDate: '2015-01-16T14:53:35+01:00' })}<meta property="article:published_time" content="2017-12-01T12:01:11+01:00">`,
      '',
      '2017-12-01T12:01:11.000+01:00',
    ],
    [
      'beyond: schema.org data in a script without its type is still read',
      `<script>${JSON.stringify({ '@context': 'https://schema.org', '@type': 'NewsArticle', datePublished: '2022-01-28T06:00:00+01:00' })}</script>`,
      '',
      '2022-01-28T06:00:00.000+01:00',
    ],
    [
      'beyond: a BEM part named beside a breadcrumb is read (not taken for one)',
      '',
      '<div class="m-intro m-intro__breadcrumbNavigation"><h1>Tipp</h1><p>01. November 2021 | Natur</p></div>',
      '2021-11-01T12:00:00.000Z',
    ],
    [
      'beyond: English outside the US writes day first',
      '<meta property="og:locale" content="en_GB">',
      '<p class="date">02/10/2020</p>',
      new Date(2020, 9, 2, 12).toISOString(),
    ],
    [
      'beyond: US English writes month first',
      '<meta property="og:locale" content="en_US">',
      '<p class="date">02/10/2020</p>',
      new Date(2020, 1, 10, 12).toISOString(),
    ],
    [
      'beyond: the first date written wins over a dotted one after it',
      '',
      '<div class="published">26. September 2019 · Aktualisiert am 19.02.2020</div>',
      '2019-09-26T12:00:00.000Z',
    ],
    [
      'beyond: Cyrillic month names on a page that names no language',
      '',
      '<p class="date">15 августа 2016, 13:43</p>',
      new Date(2016, 7, 15, 13, 43).toISOString(),
    ],
    [
      'beyond: a date written in the text gives way to the exact time and offset its <time datetime> states',
      '',
      '<h1>Bericht</h1><p class="published"><time datetime="2025-03-12T14:30:00+01:00">12. März 2025</time></p>',
      '2025-03-12T14:30:00.000+01:00',
    ],
    [
      'beyond: a German date keeps its time (`14:30 Uhr`)',
      '<meta property="og:locale" content="de_DE">',
      '<h1>Bericht</h1><p class="date">12. März 2025, 14:30 Uhr</p>',
      '2025-03-12T14:30:00.000Z',
    ],
    [
      'beyond: a time written in Japanese is a time in Japan (one zone, +09:00)',
      '<meta property="og:locale" content="ja_JP">',
      '<h1>記事</h1><p class="date">2025年3月12日 14:30</p>',
      '2025-03-12T14:30:00.000+09:00',
    ],
    [
      "beyond: a customer review's date on a product page is not the page's",
      ld({ '@type': 'Product', name: 'Kettle', offers: { price: '20' } }),
      '<h1>Kettle</h1><div itemprop="review" itemscope itemtype="https://schema.org/Review"><meta itemprop="datePublished" content="2024-01-05"><span class="review-date">January 5, 2024</span><p>Great kettle</p></div>',
      null,
    ],
    [
      "beyond: the day the page's address states wins over a date years away (a post re-saved)",
      `<link rel="canonical" href="https://blog.example/home/2017/7/12/montauk">${ld({ '@type': 'BlogPosting', datePublished: '2019-06-17T18:28:00+0200' })}`,
      '',
      '2017-07-12T12:00:00.000Z',
    ],
    [
      "beyond: the address's day wins over a day apart written without a time",
      '<link rel="canonical" href="https://news.example/World/megablaze-brought-under-control-20200113">',
      '<h1>Megablaze</h1><span class="date">Tue, 14 Jan 2020</span>',
      '2020-01-13T12:00:00.000Z',
    ],
    [
      "beyond: a page that states no date has its address's (`29-10-2021`)",
      '<meta property="og:url" content="https://verein.example/meldungen/29-10-2021">',
      '<h1>Einbruchschutz</h1><p>Seit 2015 gesunken.</p>',
      '2021-10-29T12:00:00.000Z',
    ],
    [
      "beyond: a UTC instant early on the day after the address's is that day's evening west of Greenwich",
      '<link rel="canonical" href="https://news.example/2020/02/24/exits-role/"><meta property="article:published_time" content="2020-02-25T02:25:54+00:00">',
      '',
      '2020-02-24T12:00:00.000Z',
    ],
    [
      "beyond: a UTC instant late on the day after the address's stays",
      `<link rel="canonical" href="https://news.example/2020/07/08/workers-return">${ld({ '@type': 'NewsArticle', datePublished: '2020-07-09T10:04:04Z' })}`,
      '',
      '2020-07-09T10:04:04.000Z',
    ],
    [
      'beyond: what is no day in an address (`2021/22/`, `2021/02/30`) states none',
      '<link rel="canonical" href="https://snow.example/berichte/2021/22/2021/02/30/woche">',
      '<h1>Wochenbericht</h1><p class="date">14. Januar 2022</p>',
      '2022-01-14T12:00:00.000Z',
    ],
    [
      'beyond: a time with its offset keeps the day its readers saw',
      '<meta property="article:published_time" content="2023-11-08T19:00:00-08:00">',
      '',
      '2023-11-08T19:00:00.000-08:00',
    ],
    [
      'itemprop*=datemodified content',
      '',
      '<meta itemprop="dateModified" content="2020-04-04T00:00:00Z">',
      '2020-04-04T00:00:00.000Z',
    ],
    [
      'JSON-LD datePublished',
      ld({ '@type': 'Article', datePublished: '2019-05-05T08:00:00Z' }),
      '',
      '2019-05-05T08:00:00.000Z',
    ],
    ['JSON-LD dateCreated', ld({ '@type': 'CreativeWork', dateCreated: '2019-06-06' }), '', '2019-06-06T00:00:00.000Z'],
    [
      '*published_time',
      '<meta property="article:published_time" content="2019-07-07T07:07:07Z">',
      '',
      '2019-07-07T07:07:07.000Z',
    ],
    [
      'itemprop=datepublished content',
      '',
      '<span itemprop="datePublished" content="2019-08-08">Aug</span>',
      '2019-08-08T00:00:00.000Z',
    ],
    [
      'itemprop=datepublished title',
      '',
      '<abbr itemprop="datePublished" title="2019-09-09">9 Sep</abbr>',
      '2019-09-09T00:00:00.000Z',
    ],
    ['[class*=publish] text', '', '<div class="published">March 3, 2018</div>', new Date(2018, 2, 3, 12).toISOString()],
    ['meta date', '<meta name="date" content="2018-04-04">', '', '2018-04-04T00:00:00.000Z'],
    ['itemprop*=date content', '', '<meta itemprop="uploadDate" content="2018-05-05">', '2018-05-05T00:00:00.000Z'],
    [
      'itemprop*=date title',
      '',
      '<span itemprop="startDate" title="2018-06-06">June</span>',
      '2018-06-06T00:00:00.000Z',
    ],
    [
      'time[itemprop*=date] datetime',
      '',
      '<time itemprop="dateline" datetime="2018-07-07">x</time>',
      '2018-07-07T00:00:00.000Z',
    ],
    ['time[datetime]', '', '<time datetime="2018-08-08T08:08:08Z">then</time>', '2018-08-08T08:08:08.000Z'],
    ['[class*=byline] text', '', '<p class="byline">Sept 9, 2017</p>', new Date(2017, 8, 9, 12).toISOString()],
    ['[id*=date] text', '', '<p id="post-date">October 10, 2017</p>', new Date(2017, 9, 10, 12).toISOString()],
    ['[class*=date] text', '', '<p class="entry-date">November 11, 2017</p>', new Date(2017, 10, 11, 12).toISOString()],
    ['[class*=time] text', '', '<p class="timestamp">December 12, 2016</p>', new Date(2016, 11, 12, 12).toISOString()],
    [
      'beyond: JSON-LD uploadDate',
      ld({ '@type': 'VideoObject', uploadDate: '2021-01-21T10:00:00Z' }),
      '',
      '2021-01-21T10:00:00.000Z',
    ],
    ['beyond: Dublin Core dc.date', '<meta name="DC.date" content="2015-05-15">', '', '2015-05-15T00:00:00.000Z'],
    [
      'beyond: parsely-pub-date',
      '<meta name="parsely-pub-date" content="2015-06-16T00:00:00Z">',
      '',
      '2015-06-16T00:00:00.000Z',
    ],
    [
      'beyond: a date without its zone gives way to the JSON-LD one of the same day',
      `<meta name="date" content="2017-07-14">${ld({ '@type': 'NewsArticle', dateModified: '2017-07-14T20:28:07+02:00' })}`,
      '',
      '2017-07-14T20:28:07.000+02:00',
    ],
    [
      'a date without a zone stays when JSON-LD names another day',
      `<meta name="date" content="2017-07-20">${ld({ '@type': 'NewsArticle', dateCreated: '2017-07-14T20:28:07+02:00' })}`,
      '',
      '2017-07-14T20:28:07.000+02:00',
    ],
    [
      'its time zone kept',
      '<meta property="article:published_time" content="2017-07-14T20:28:07+02:00">',
      '',
      '2017-07-14T20:28:07.000+02:00',
    ],
    ['epoch seconds', '<meta name="date" content="1500000000">', '', '2017-07-14T02:40:00.000Z'],
    ['epoch milliseconds', '<meta name="date" content="1500000000000">', '', '2017-07-14T02:40:00.000Z'],
    ['a bare year refused', '<meta name="date" content="2016">', '', null],
    ['relative text refused', '', '<p class="date">3 hours ago</p>', null],
    ['before 1990 refused', '<meta name="date" content="1970-01-01">', '', null],
  ],
  (m) => m.date,
);

field(
  'image',
  [
    [
      'og:image:secure_url first',
      '<meta property="og:image:secure_url" content="https://cdn.example.com/s.jpg"><meta property="og:image" content="/o.jpg">',
      '',
      'https://cdn.example.com/s.jpg',
    ],
    [
      'og:image:url',
      '<meta property="og:image:url" content="/u.jpg"><meta property="og:image" content="/o.jpg">',
      '',
      'https://news.example.com/u.jpg',
    ],
    [
      'og:image, resolved against the page',
      '<meta property="og:image" content="o.jpg">',
      '',
      'https://news.example.com/2024/05/o.jpg',
    ],
    [
      'twitter:image:src',
      '<meta name="twitter:image:src" content="/ts.jpg"><meta name="twitter:image" content="/t.jpg">',
      '',
      'https://news.example.com/ts.jpg',
    ],
    ['twitter:image', '<meta name="twitter:image" content="/t.jpg">', '', 'https://news.example.com/t.jpg'],
    ['meta itemprop=image', '<meta itemprop="image" content="/ip.jpg">', '', 'https://news.example.com/ip.jpg'],
    [
      'JSON-LD image list, first url',
      ld({ '@type': 'Article', image: [{ '@type': 'ImageObject', url: '/l0.jpg' }, { url: '/l1.jpg' }] }),
      '',
      'https://news.example.com/l0.jpg',
    ],
    [
      'JSON-LD image.url',
      ld({ '@type': 'Article', image: { '@type': 'ImageObject', url: '/obj.jpg' } }),
      '',
      'https://news.example.com/obj.jpg',
    ],
    [
      'JSON-LD image as text',
      ld({ '@type': 'Article', image: '/plain.jpg' }),
      '',
      'https://news.example.com/plain.jpg',
    ],
    [
      "a video's poster",
      '',
      '<video src="/v.mp4" poster="/poster.jpg"></video><img src="/other.jpg">',
      'https://news.example.com/poster.jpg',
    ],
    [
      'beyond: JSON-LD thumbnailUrl',
      ld({ '@type': 'VideoObject', thumbnailUrl: '/thumb.jpg' }),
      '',
      'https://news.example.com/thumb.jpg',
    ],
    ['beyond: link rel=image_src', '<link rel="image_src" href="/isrc.jpg">', '', 'https://news.example.com/isrc.jpg'],
    [
      'article img',
      '',
      '<img src="/nav.png"><article><img src="/in-article.jpg"></article>',
      'https://news.example.com/in-article.jpg',
    ],
    [
      '#content img',
      '',
      '<img src="/nav.png"><div id="content"><img src="/in-content.jpg"></div>',
      'https://news.example.com/in-content.jpg',
    ],
    [
      'img[alt*=author]',
      '',
      '<img src="/nav.png" aria-hidden="true"><img alt="The author" src="/face.jpg">',
      'https://news.example.com/face.jpg',
    ],
    [
      'any img not aria-hidden',
      '',
      '<img src="/hidden.png" aria-hidden="true"><img src="/shown.png">',
      'https://news.example.com/shown.png',
    ],
    [
      'not an img inside noscript',
      '',
      '<noscript><img src="https://tracker.example.com/tr?id=1"></noscript><img src="/shown.png">',
      'https://news.example.com/shown.png',
    ],
    ['a video file is not an image', '<meta property="og:image" content="/clip.mp4">', '', null],
    ['a data URI refused', '<meta property="og:image" content="data:image/png;base64,iVBORw0KGgo=">', '', null],
    ['a placeholder refused', '<meta property="og:image" content="/img/spacer.gif">', '', null],
  ],
  mediaUrl('image'),
);

field(
  'logo',
  [
    [
      'og:logo first',
      '<meta property="og:logo" content="/og-logo.png"><link rel="icon" href="/i.png">',
      '',
      'https://news.example.com/og-logo.png',
    ],
    ['meta itemprop=logo', '<meta itemprop="logo" content="/ip-logo.png">', '', 'https://news.example.com/ip-logo.png'],
    ['img itemprop=logo', '', '<img itemprop="logo" src="/img-logo.png">', 'https://news.example.com/img-logo.png'],
    [
      '[itemprop=logo] img',
      '',
      '<span itemprop="logo"><img src="/nested-logo.png"></span>',
      'https://news.example.com/nested-logo.png',
    ],
    [
      'JSON-LD square logo before icons',
      `${ld({ '@type': 'Organization', logo: { '@type': 'ImageObject', url: '/sq.png', width: 200, height: 200 } })}<link rel="icon" href="/i.png">`,
      '',
      'https://news.example.com/sq.png',
    ],
    [
      'JSON-LD brand.logo, square',
      ld({ '@type': 'Product', brand: { '@type': 'Brand', logo: { url: '/brand.png', width: 90, height: 90 } } }),
      '',
      'https://news.example.com/brand.png',
    ],
    [
      'JSON-LD publisher.logo, square',
      ld({
        '@type': 'Article',
        publisher: { '@type': 'Organization', logo: { url: '/pub.png', width: 60, height: 60 } },
      }),
      '',
      'https://news.example.com/pub.png',
    ],
    [
      'a wide JSON-LD logo waits behind the icons',
      `${ld({ '@type': 'Organization', logo: { url: '/wide.png', width: 600, height: 60 } })}<link rel="icon" href="/i.png">`,
      '',
      'https://news.example.com/i.png',
    ],
    [
      'the best icon: square, then size',
      '<link rel="icon" href="/16.png" sizes="16x16"><link rel="apple-touch-icon" href="/180.png" sizes="180x180">',
      '',
      'https://news.example.com/180.png',
    ],
    [
      'beyond: a wide JSON-LD logo as the last resort',
      ld({ '@type': 'Organization', logo: { url: '/wide.png', width: 600, height: 60 } }),
      '',
      'https://news.example.com/wide.png',
    ],
  ],
  mediaUrl('logo'),
);

field('publisher', [
  [
    'JSON-LD publisher.name first',
    `${ld({ '@type': 'Article', publisher: { '@type': 'Organization', name: 'LD Pub' } })}<meta property="og:site_name" content="Site">`,
    '',
    'LD Pub',
  ],
  ['og:site_name', '<meta property="og:site_name" content="Site Name">', '', 'Site Name'],
  ['meta name*=application-name', '<meta name="msapplication-name" content="App Name">', '', 'App Name'],
  ['meta name*=app-title', '<meta name="apple-mobile-web-app-title" content="App Title">', '', 'App Title'],
  ['meta property*=app_name', '<meta property="al:android:app_name" content="Android App">', '', 'Android App'],
  ['meta publisher', '<meta name="publisher" content="Meta Pub">', '', 'Meta Pub'],
  ['twitter:app:name:iphone', '<meta name="twitter:app:name:iphone" content="iPhone App">', '', 'iPhone App'],
  ['twitter:app:name:ipad', '<meta name="twitter:app:name:ipad" content="iPad App">', '', 'iPad App'],
  ['twitter:app:name:googleplay', '<meta name="twitter:app:name:googleplay" content="Play App">', '', 'Play App'],
  ['#logo text', '', '<div id="logo">Logo Text</div>', 'Logo Text'],
  ['.logo text', '', '<a class="logo">Class Brand</a>', 'Class Brand'],
  ['a[class*=brand] text', '', '<a class="navbar-brand" href="/">Brand Link</a>', 'Brand Link'],
  [
    '[class*=logo] a img alt',
    '',
    '<div class="site-logo"><a href="/"><img src="/l.png" alt="Alt Pub"></a></div>',
    'Alt Pub',
  ],
  [
    '[class*=logo] img alt, " logo" dropped',
    '',
    '<div class="header-logo-box"><img src="/l.png" alt="Acme logo"></div>',
    'Acme',
  ],
  [
    "a button in the brand's colours is no brand; the title's part that is the site's address is",
    '<title>Example - Where the news is</title>',
    '<a class="button button-brand" href="/login">Log In</a>',
    'Example',
  ],
  [
    "a logo's words that are the page's interface",
    '',
    '<div class="logo"><img src="/l.png" alt="Home page"></div>',
    null,
  ],
  ["the title's last part", '<title>Story of the day | The Daily</title>', '', 'The Daily'],
  ["the title's last of several parts", '<title>Story - Section - Daily Paper</title>', '', 'Daily Paper'],
  ['a URL refused', '<meta property="og:site_name" content="https://example.com">', '', null],
]);

field('lang', [
  ['og:locale first', '<meta property="og:locale" content="fr_FR">', '', 'fr'],
  ['meta itemprop=inLanguage', '<meta itemprop="inLanguage" content="de-DE">', '', 'de'],
  ['beyond: JSON-LD inLanguage', ld({ '@type': 'Article', inLanguage: 'it' }), '', 'it'],
  ['beyond: content-language', '<meta http-equiv="content-language" content="nl">', '', 'nl'],
  ['a three-letter ISO 639-3 code', '<meta property="og:locale" content="spa">', '', 'es'],
  ['an unknown two-letter code refused', '<meta property="og:locale" content="xx">', '', null],
]);

{
  const s = suite('lang: html lang');
  s('lang: html lang attribute', () => {
    const url = PAGE;
    const m = extractMeta(createDoc(parseHtml('<html lang="en-GB"><head></head><body></body></html>', url), url));
    assert.is(m.lang, 'en');
  });
  s.run();
}

field('url', [
  [
    'og:url first',
    '<meta property="og:url" content="https://news.example.com/og"><link rel="canonical" href="/canon">',
    '',
    'https://news.example.com/og',
  ],
  ['twitter:url', '<meta name="twitter:url" content="/tw">', '', 'https://news.example.com/tw'],
  ['link rel=canonical, resolved', '<link rel="canonical" href="/canon">', '', 'https://news.example.com/canon'],
  [
    'alternate x-default',
    '<link rel="alternate" hreflang="x-default" href="/default">',
    '',
    'https://news.example.com/default',
  ],
  ["the page's address", '', '', PAGE],
  ['javascript: refused', '<meta property="og:url" content="javascript:alert(1)">', '', PAGE],
]);

field(
  'video',
  [
    [
      'og:video:secure_url',
      '<meta property="og:video:secure_url" content="https://cdn.example.com/v.mp4">',
      '',
      'https://cdn.example.com/v.mp4',
    ],
    [
      'og:video by its og:video:type',
      '<meta property="og:video" content="/stream?id=4"><meta property="og:video:type" content="video/mp4">',
      '',
      'https://news.example.com/stream?id=4',
    ],
    [
      'og:video, a player page refused',
      '<meta property="og:video" content="https://player.example.com/embed/4">',
      '',
      null,
    ],
    [
      'twitter:player:stream by content type',
      '<meta name="twitter:player:stream" content="/s?v=1"><meta name="twitter:player:stream:content_type" content="video/webm">',
      '',
      'https://news.example.com/s?v=1',
    ],
    [
      'JSON-LD contentUrl',
      ld({ '@type': 'VideoObject', contentUrl: '/ld.mp4' }),
      '',
      'https://news.example.com/ld.mp4',
    ],
    ['video src', '', '<video src="/tag.webm"></video>', 'https://news.example.com/tag.webm'],
    [
      'video > source by its type',
      '',
      '<video><source src="/get?f=1" type="video/mp4"></video>',
      'https://news.example.com/get?f=1',
    ],
    ['beyond: a link to a video file', '', '<a href="/file.mp4">download</a>', 'https://news.example.com/file.mp4'],
  ],
  mediaUrl('video'),
);

field(
  'audio',
  [
    ['og:audio', '<meta property="og:audio" content="/a.mp3">', '', 'https://news.example.com/a.mp3'],
    [
      'og:audio by its og:audio:type',
      '<meta property="og:audio" content="/listen?id=2"><meta property="og:audio:type" content="audio/mpeg">',
      '',
      'https://news.example.com/listen?id=2',
    ],
    [
      'twitter:player:stream by content type',
      '<meta name="twitter:player:stream" content="/s?a=1"><meta name="twitter:player:stream:content_type" content="audio/ogg">',
      '',
      'https://news.example.com/s?a=1',
    ],
    [
      'JSON-LD contentUrl',
      ld({ '@type': 'AudioObject', contentUrl: '/ld.m4a' }),
      '',
      'https://news.example.com/ld.m4a',
    ],
    ['audio src', '', '<audio src="/tag.ogg"></audio>', 'https://news.example.com/tag.ogg'],
    [
      'audio > source by its type',
      '',
      '<audio><source src="/get?f=2" type="audio/mpeg"></audio>',
      'https://news.example.com/get?f=2',
    ],
    ['any link to an audio file', '', '<a href="/ep.flac">episode</a>', 'https://news.example.com/ep.flac'],
  ],
  mediaUrl('audio'),
);

// A product, a shelf, a list of stories, a service page or a home page names people (reviewers, the authors of the
// stories it lists) but has an author only where it declares one as its own (issue 53, item 1).
const unauthored = suite('author: pages of kinds that have no author unless they declare one');
const REVIEW = '<div class="review"><span class="author">Ash Carter</span><p>Lovely wool, warm and soft.</p></div>';
const TEASER = '<article><h2><a href="/s/1">Herons return</a></h2><p class="byline">By Maya Stone</p></article>';
for (const [what, url, head, body, expected] of [
  [
    "a product's reviewer (JSON-LD Product and its Review)",
    'https://shop.example/wool-hat',
    ld({ '@type': 'Product', name: 'Wool hat', review: { '@type': 'Review', author: { name: 'Ash Carter' } } }) +
      ld({ '@type': 'Review', author: { '@type': 'Person', name: 'Ash Carter' } }),
    REVIEW,
    null,
  ],
  [
    "a product page's reviewer (og:type product)",
    'https://shop.example/p/1',
    '<meta property="og:type" content="product">',
    REVIEW,
    null,
  ],
  ["a product page's reviewer (its address)", 'https://shop.example/products/wool-hat', '', REVIEW, null],
  [
    "a list of reviews declared as an ItemList alone: the first card's byline",
    'https://news.example.com/wirecutter/electronics/',
    ld({ '@type': 'ItemList', itemListElement: [{ '@type': 'ListItem', position: 1, url: '/s/1' }] }),
    '<div><h3><a href="/s/1">The Best Monitor Arms</a></h3><p>by <!-- -->Arriana Vasquez</p></div>',
    null,
  ],
  [
    'a listicle declaring an Article beside its ItemList: its byline',
    'https://news.example.com/best-monitor-arms',
    ld({ '@type': 'Article', headline: 'Best arms' }) + ld({ '@type': 'ItemList', itemListElement: [] }),
    '<h1>Best arms</h1><p class="byline">By Maya Stone</p>',
    'Maya Stone',
  ],
  ["a home page's first story's byline", 'https://news.example.com/', '', TEASER, null],
  ["a topic page's first story's byline", 'https://news.example.com/topic/birds', '', TEASER, null],
  [
    "a list of stories by three people at an address of no kind: the first story's byline",
    'https://news.example.com/birds-this-week',
    '',
    ['Maya Stone', 'Ola Berg', 'Tim Ruiz']
      .map((name, i) => `<article><h2><a href="/s/${i}">Story ${i}</a></h2><p class="byline">By ${name}</p></article>`)
      .join(''),
    null,
  ],
  [
    "an article's byline beside its readers' comments by three people (no list of stories)",
    'https://news.example.com/herons-return',
    '',
    '<h1>Herons return</h1><p class="byline">By <a href="/author/maya-stone" rel="author">Maya Stone</a></p><p>The herons are back.</p>' +
      '<ol class="comment-list">' +
      ['Ola Berg', 'Tim Ruiz', 'Ann Lee']
        .map(
          (name, i) =>
            `<li><a href="/author/u${i}" rel="external nofollow ugc" class="url">${name}</a><p>Nice.</p></li>`,
        )
        .join('') +
      '</ol>',
    'Maya Stone',
  ],
  [
    "a product's declared author (a book's)",
    'https://shop.example/products/a-book',
    '<meta name="author" content="Lena Ford">',
    '<p>A novel by Lena Ford.</p>',
    'Lena Ford',
  ],
  [
    'an article declared beside a product in its address: its byline',
    'https://news.example.com/products/2024/review-of-the-hat',
    ld({ '@type': 'NewsArticle', headline: 'Review of the hat' }),
    '<p class="byline">By Maya Stone</p>',
    'Maya Stone',
  ],
  [
    "a business's blog post (LocalBusiness declared site-wide): its byline",
    'https://plumber.example/blog/fix-a-tap',
    ld({ '@type': 'LocalBusiness', name: 'Tap Masters' }),
    '<p class="byline">By Maya Stone</p>',
    'Maya Stone',
  ],
] as const)
  unauthored(what, () => assert.equal(meta(head, body, url).author ?? null, expected));
unauthored.run();

// A thread's author is whoever started it, named by the forum software beside its first post.
const threads = suite("author: a forum thread is its first post's");
const post = (name: string, text: string) =>
  `<article class="message message--post"><div class="message-userDetails"><a class="username" href="/members/${name}">${name}</a><span>Posts: 40</span></div><div class="bbWrapper">${text}</div></article>`;
for (const [what, body, expected] of [
  [
    "the first post's poster, not a later reply's nor the latest poster in the sidebar",
    `<aside><div class="latest-post"><span class="post-author">late_comer</span></div></aside><h1>Dripping tap</h1>${post('rowan_fixes', 'My tap drips.')}${post('ivy.plumber', 'Worn seat.')}`,
    'rowan_fixes',
  ],
  [
    'a user card that says more than a name (posts, joined) gives the name alone',
    `<h1>Board</h1><div class="postbody"><dl class="postprofile"><dt><a class="username">StarredSkies</a></dt><dd>Posts: 116</dd></dl><div class="content">Hello</div></div>`,
    'StarredSkies',
  ],
  [
    "a post as a web component names its author in an attribute (Reddit's), beside its commenters' names",
    `<shreddit-post post-title="Dripping tap" author="rowan_fixes" created-timestamp="2026-03-03T09:47:05.754000+0000"><h1 slot="title">Dripping tap</h1><p>My tap drips.</p></shreddit-post><shreddit-comment author="ivy.plumber"><p>Worn seat.</p></shreddit-comment>`,
    'rowan_fixes',
  ],
  [
    "vBulletin 3's first post, known by its message's id, names its poster in a bigusername link",
    `<h1>Wrong refresh rate</h1><table id="post1"><tr><td><a class="bigusername" href="member.php?u=1">microfast</a><div>Registered User</div></td><td><div id="post_message_1">My card.</div></td></tr></table><table id="post2"><tr><td><a class="bigusername" href="member.php?u=2">helper7</a></td><td><div id="post_message_2">Update.</div></td></tr></table>`,
    'microfast',
  ],
  [
    'an article whose comments name their writers (no forum markup) is not a thread',
    `<h1>Rain</h1><p>It rained.</p><div class="comments"><span class="username">rowan_fixes</span><p>Wet.</p></div>`,
    null,
  ],
] as const)
  threads(what, () =>
    assert.equal(meta('', body, 'https://forum.example/threads/dripping-tap.12/').author ?? null, expected),
  );
threads(
  'forum software that calls its threads articles (og:type, as XenForo 1 writes it) still names the first poster',
  () =>
    assert.equal(
      meta(
        '<meta property="og:type" content="article">',
        `<h1>Dripping tap</h1>${post('rowan_fixes', 'My tap drips.')}${post('ivy.plumber', 'Worn seat.')}`,
        'https://forum.example/threads/dripping-tap.12/',
      ).author,
      'rowan_fixes',
    ),
);
threads("a post as a web component gives the thread's time too", () =>
  assert.equal(
    meta(
      '',
      '<shreddit-post author="rowan_fixes" created-timestamp="2026-03-03T09:47:05.754000+0000"><p>My tap drips.</p></shreddit-post>',
    ).date,
    '2026-03-03T09:47:05.754Z',
  ),
);
threads.run();
