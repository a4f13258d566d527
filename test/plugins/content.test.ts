// The main-content rules one by one, each on a small page: what goes (the site around the article, link lists,
// captions, decorative images, bylines, copyright lines, blocks the page's own articleBody lacks, dangling
// headings) and what stays (the article, its images, a page that lives inside a form).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseHTML } from 'refract-linkedom';
import { load } from 'cheerio';
import fc from '../util/fc.ts';
import { fragmentToMarkdown, pageContent, pageToMarkdown } from '../../plugins/shared/content/markdown.ts';
import { words } from '../../plugins/shared/content/content-text.ts';
import { prune } from '../../plugins/shared/content/content-prune.ts';
import dataPlugin from '../../plugins/data/index.ts';
import type { Context } from '../../engine/index.ts';

const BASE = 'https://news.example/2026/story';
const para = (n: number, word = 'river') =>
  `<p>${Array.from({ length: n }, (_, i) => `The ${word} keeps flowing past stone number ${i} near the old mill.`).join(' ')}</p>`;
const page = (body: string, head = '') =>
  `<html><head><title>Site | Tagline: The River Story</title>${head}</head><body>${body}</body></html>`;
const md = (body: string, head = '') => pageToMarkdown(page(body, head), BASE);

test("the title heads the text once: the page's h1 that the document title contains, without the site name", () => {
  const out = md(`<article><h1>The River Story</h1>${para(6)}${para(5, 'stream')}</article>`);
  assert.ok(out.startsWith('# The River Story\n'), out.slice(0, 80));
  assert.is(out.split('The River Story').length - 1, 1);
});

test('a Japanese headline (no spaces between its words) heads the text once, without the site name', () => {
  const body = Array.from(
    { length: 12 },
    (_, i) => `<p>新しい駅は午前六時に開業し、${i}番目の列車が到着しました。多くの人が集まりました。</p>`,
  ).join('');
  const out = pageToMarkdown(
    `<html lang="ja"><head><title>新しい駅が開業 | 毎日ニュース</title></head><body><article><h1>新しい駅が開業</h1>${body}</article></body></html>`,
    BASE,
  );
  assert.ok(out.startsWith('# 新しい駅が開業\n'), out.slice(0, 80));
  assert.is(out.split('新しい駅が開業').length - 1, 1, out.slice(0, 200));
});

test('boilerplate named by class, id or role goes; the article stays', () => {
  const out = md(`<div class="share-bar"><a href="/s">Share on social</a> tweet this now please</div>
    <article>${para(6)}<div class="related-articles"><h3>More about things</h3><p>Another headline entirely unrelated today</p></div>${para(4, 'stream')}</article>
    <div role="complementary"><p>Sidebar words that are not the article at all</p></div>`);
  assert.match(out, /stone number 5/);
  assert.match(out, /The stream keeps flowing/);
  for (const gone of ['Share on social', 'Another headline', 'Sidebar words']) assert.not.match(out, gone);
});

test('an element named like boilerplate that holds most of the text is the article, and stays (a page inside a form)', () => {
  const out = md(`<form id="aspnetForm"><div class="elementor-widget">${para(8)}${para(6, 'stream')}</div></form>`);
  assert.match(out, /stone number 7/);
  assert.match(out, /The stream keeps flowing/);
});

test('lists and paragraphs of links (related stories) go, and the heading left over them', () => {
  const out =
    md(`<article>${para(6)}<h3>You may also like</h3><p><a href="/a">First other story</a></p><p><a href="/b">Second other story</a></p>
    <ul><li><a href="/c">Third other story</a></li><li><a href="/d">Fourth other story</a></li></ul></article>`);
  for (const gone of ['other story', 'You may also like']) assert.not.match(out, gone);
  assert.match(out, /stone number 5/);
});

test('a list whose items are written as headings keeps every item (none heads nothing: it is the item)', () => {
  const out = md(
    `<article>${para(3)}<h2>What the brand uses</h2><ul><li><h3>organic cotton</h3></li><li><h3>hemp options</h3></li><li><h3>recycled swim fabric</h3></li></ul>${para(2)}</article>`,
  );
  for (const item of ['organic cotton', 'hemp options', 'recycled swim fabric'])
    assert.match(out, `- ### ${item}`, out);
});

test("a code block's comments, marked by its highlighter (hljs-comment, token comment), are the code's own text", () => {
  const out = md(
    `<article>${para(4)}<pre><code class="language-bash hljs"><span class="hljs-comment"># view the state of the repo</span>\ngit status\n<span class="token comment"># stage every change</span>\ngit add -A</code></pre>${para(2)}</article>`,
  );
  assert.match(out, /```bash\n# view the state of the repo\ngit status\n# stage every change\ngit add -A\n```/, out);
});

test('a table of data whose cells link their data is content, though its class says sticky-header; a navigation box of links is not', () => {
  const row = (y: number) =>
    `<tr><td>${y}</td><td><span class="vcard"><span class="fn"><a href="/wiki/P${y}">Physicist ${y}</a></span></span></td><td><a href="/wiki/C${y}">Chemist ${y}</a></td><td><a href="/wiki/W${y}">Writer ${y}</a></td></tr>`;
  const table = `<table class="wikitable sortable sticky-header"><tbody><tr><th>Year</th><th>Physics</th><th>Chemistry</th><th>Literature</th></tr>${[1901, 1902, 1903, 1904, 1905, 1906].map(row).join('')}</tbody></table>`;
  const navbox = `<table class="nav-box"><tbody><tr><th>Prizes</th><td><a href="/a">Physics prize</a> <a href="/b">Chemistry prize</a> <a href="/c">Peace prize</a></td></tr><tr><th>People</th><td><a href="/d">Every laureate</a> <a href="/e">Laureates by country</a></td></tr></tbody></table>`;
  const out = md(`<article>${para(4)}${table}${para(2)}${navbox}</article>`);
  for (const name of ['Physicist 1901', 'Chemist 1903', 'Writer 1906']) assert.match(out, name, out);
  assert.not.match(out, /Laureates by country/, out);
});

test('links inside sentences stay, absolute', () => {
  const out = md(
    `<article>${para(5)}<p>Read <a href="/report">the full report</a> from the agency, which explains the flow in detail and more.</p></article>`,
  );
  assert.match(out, /\[the full report\]\(https:\/\/news\.example\/report\)/);
});

test('video and audio: a link to the clip in Markdown (absolute), so no heading is left empty; headings over nothing go', () => {
  const out = md(`<article><h2>The River Story</h2>${para(5)}<h2>Video</h2><video src="/clip.mp4" controls></video>
    <h2>Sound</h2><audio controls><source src="/sound.mp3" type="audio/mpeg"></audio><h2>Widgets</h2><h3>Empty</h3>
    <h2>Code</h2><pre><code># not a heading\n## nor this</code></pre></article>`);
  assert.match(out, /\n\[Video\]\(https:\/\/news\.example\/clip\.mp4\)\n/);
  assert.match(out, /\n\[Audio\]\(https:\/\/news\.example\/sound\.mp3\)\n/);
  assert.not.match(out, /Widgets|### Empty/);
  // No heading heads nothing: each is followed by text, or by a heading one level deeper.
  let inCode = false;
  const levels = out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      if (l.startsWith('```')) inCode = !inCode;
      return inCode || l.startsWith('```') ? 7 : (/^(#+) /.exec(l)?.[1]?.length ?? 7);
    });
  levels.forEach((own, i) => {
    if (own < 7) assert.ok((levels[i + 1] ?? 0) > own, `heading ${i} heads nothing:\n${out}`);
  });
  assert.match(out, /## Code\n\n```\n# not a heading\n## nor this\n```/);
});

test('HTML output: media sources, posters and srcsets are absolute like links', () => {
  const root = pageContent(
    page(`<article>${para(6)}<video src="/clip.mp4" poster="poster.jpg"><source src="/clip.webm"></video>
    <picture><source srcset="/a.webp 1x, /b.webp 2x"><img src="/r.jpg" srcset="/r-1.jpg 480w, r-2.jpg 800w" alt="River in spring"></picture>${para(4, 'stream')}</article>`),
    BASE,
  ).root;
  const html = root.innerHTML;
  for (const url of [
    'https://news.example/clip.mp4',
    'https://news.example/2026/poster.jpg',
    'https://news.example/clip.webm',
    'https://news.example/a.webp 1x, https://news.example/b.webp 2x',
    'https://news.example/r-1.jpg 480w, https://news.example/2026/r-2.jpg 800w',
  ]) {
    assert.ok(html.includes(url), `${url} in ${html.slice(0, 600)}`);
  }
  assert.not.match(html, /(src|poster)="\//);
});

test('a content image stays once as ![alt](url) without its caption; decorative, tracking and linked ones go', () => {
  const out =
    md(`<article>${para(4)}<div class="media"><img src="/river.jpg" alt="The river at dawn"><span>The river at dawn, seen from the bridge (Photo: Agency)</span></div>
    ${para(3, 'stream')}<p><img src="/river.jpg" alt="The river at dawn"></p><img src="/spacer.gif" alt=""><img src="/pixel.gif" alt="px" width="1" height="1">
    <p><a href="/other"><img src="/teaser.jpg" alt="Teaser of another story"></a></p></article>`);
  assert.is(out.split('![The river at dawn](https://news.example/river.jpg)').length - 1, 1, out);
  for (const gone of ['seen from the bridge', 'spacer.gif', 'pixel.gif', 'teaser.jpg']) assert.not.match(out, gone);
});

test('teaser cards of other articles (each an <article> with a linked heading) go; the article stays', () => {
  const card = (n: number) =>
    `<article class="card"><a href="/s${n}"><img src="/t${n}.jpg" alt="Teaser ${n}"></a><header><div class="kicker">KICKER WORD ${n}</div><h2><a href="/s${n}">Headline of story ${n}</a></h2></header><div class="description"><p>Summary sentence of the other story number ${n} here.</p></div></article>`;
  const out = md(
    `<div class="main">${para(8)}${para(6, 'stream')}</div><div class="grid">${card(1)}${card(2)}${card(3)}</div>`,
  );
  assert.match(out, /stone number 7/);
  for (const gone of ['KICKER WORD', 'Summary sentence', 'Headline of story']) assert.not.match(out, gone);
});

test('lines that label the site around the article (ads, comments, more stories, reading time, credits) go', () => {
  const labels = [
    'Advertisement',
    'Iklan',
    '3 Comments',
    'Tell us what YOU think...',
    'You may also like...',
    'RECENT ARTICLES',
    'Tempo de leitura: 2 minutos',
    'Reuters',
    '(Image: © Agency Collaboration)',
    '***Like this story? Share it with a friend!***',
    'Enjoyed this article?',
  ];
  const out = md(
    `<article>${para(5)}${labels.map((l) => `<p>${l}</p>`).join('')}${para(4, 'stream')}<p>More rain fell on the valley than in any year before.</p><p>Don't miss the river walk on Friday.</p><p>More from the mayor's speech below.</p><p>I love this story of the valley and its people.</p></article>`,
  );
  for (const label of labels) assert.not.ok(out.includes(label.replace(/\*/g, '')), label);
  for (const kept of [
    'More rain fell',
    'river walk on Friday',
    "the mayor's speech",
    'I love this story of the valley',
  ])
    assert.match(out, kept, 'a sentence that starts like a label stays');
  assert.match(out, /The stream keeps flowing/);
});

test('a caption: a line ending with its photo credit, or in italics right under its picture, goes', () => {
  const out =
    md(`<article>${para(5)}<p>Workers load trims into a truck outside a store in Hialeah, Fla. (AP Photo/Jane Doe, File)</p>
    <p><img src="/river.jpg" alt="The river at dawn"></p><p><em>The river seen from the bridge</em></p>${para(4, 'stream')}
    <p>The water rose two metres and two villages were cut off for a week (see image)</p></article>`);
  for (const gone of ['Hialeah', 'seen from the bridge']) assert.not.match(out, gone);
  assert.match(out, 'rose two metres', 'a sentence that refers to a picture is no caption');
  assert.match(out, /!\[The river at dawn\]\(https:\/\/news\.example\/river\.jpg\)/);
  assert.match(out, /The stream keeps flowing/);
});

test('a link inside a sentence stays even wrapped in a <span>; a picture linked to its own file stays; no empty links', () => {
  const out =
    md(`<article>${para(5)}<p>According to the <span><a href="/study">study</a></span>, published in a journal, the flow doubled.</p>
    <p><a href="/full/river-large.jpg"><img src="/river-small.jpg" alt="The river in spring"></a></p><p><a href="/x"><i class="icon"></i></a> ${para(2, 'creek')}</p>${para(3, 'stream')}</article>`);
  assert.match(out, /According to the \[study\]\(https:\/\/news\.example\/study\), published/);
  assert.match(out, /!\[The river in spring\]\(https:\/\/news\.example\/river-small\.jpg\)/);
  assert.not.match(out, '[](');
});

test('a table in Markdown: its head, body and foot rows in order, every row of a long one; a nested table has its own rows', () => {
  const body = Array.from({ length: 300 }, (_, i) => `<tr><td>r${i}</td><td>${i * 2}</td></tr>`).join('');
  const out = fragmentToMarkdown(
    `<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody>${body}</tbody><tfoot><tr><td>sum</td><td>all</td></tr></tfoot></table>`,
    BASE,
  );
  const lines = out.split('\n');
  assert.is(lines[0], '| Name | Value |');
  assert.match(lines[1]!, /^\| -+ \| -+ \|$/);
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  assert.equal(lines.slice(2, 5).map(cells), [
    ['r0', '0'],
    ['r1', '2'],
    ['r2', '4'],
  ]);
  assert.is(lines.length, 2 + 300 + 1, out.slice(-200));
  assert.equal(cells(lines[301]!), ['r299', '598']);
  assert.equal(cells(lines.at(-1)!), ['sum', 'all']);
  // A table inside a cell is a table of its own rows (the outer one, which GFM cannot hold, is its text).
  const nested = fragmentToMarkdown(
    '<table><tr><th>Outer</th><th>Other</th></tr><tr><td><table><tr><td>in1</td></tr><tr><td>in2</td></tr></table></td><td>x</td></tr></table>',
    BASE,
  );
  assert.equal(
    nested
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .map(cells),
    [[''], ['---'], ['in1'], ['in2']],
  );
});

test('tables by our own rules: a layout table is its cells as paragraphs, a table of lists its HTML (no editor wrapper), alignment and spans kept', () => {
  const out = fragmentToMarkdown(
    '<table><tr><td>one</td><td>two</td></tr><tr><td>three<table><tr><td>i</td><td>j</td></tr></table></td></tr></table>' +
      '<table><tr><td><ul><li>a</li></ul></td><td>b</td></tr></table>' +
      '<table><thead><tr><th align="right">N</th><th colspan="2">Wide</th></tr></thead><tr><td align="right">1</td><td>x</td></tr></table>',
    BASE,
  );
  const blocks = out.split('\n\n');
  assert.equal(blocks.slice(0, 3), ['one', 'two', 'three']);
  assert.ok(blocks.includes('<table><tr><td><ul><li>a</li></ul></td><td>b</td></tr></table>'), out);
  assert.not.match(out, 'joplin');
  assert.match(out, '| N   | Wide |     |\n| ---: | --- | --- |\n| 1   | x   |     |');
  // Nothing of a conversion is left on linkedom's classes (another user of linkedom in the process sees them as published).
  assert.not.ok('rows' in parseHTML('<table></table>').document.createElement('table'));
});

test('an alt text several pictures share, or a file name, is no description: the pictures stay without it', () => {
  const out = md(
    `<article>${para(4)}<p><img src="/a.jpg" alt="Story title image"></p>${para(3, 'stream')}<p><img src="/b.jpg" alt="Story title image"></p><p><img src="/c.jpg" alt="010_Clymer-2"></p>${para(2, 'creek')}</article>`,
  );
  assert.not.match(out, 'Story title image');
  assert.not.match(out, 'Clymer');
  for (const file of ['a.jpg', 'b.jpg', 'c.jpg']) assert.match(out, `![](https://news.example/${file})`);
});

test('a post quoted from a social network stays, though its wrapper is named like a share bar', () => {
  const out = md(
    `<article>${para(5)}<div class="social-media-embed"><blockquote class="twitter-tweet"><p>Yes this is real and the state paid for it <a href="https://t.co/x">https://t.co/x</a></p>— A Person (@person) <a href="https://twitter.com/p/status/1">November 18, 2019</a></blockquote></div>${para(4, 'stream')}</article>`,
  );
  assert.match(out, /Yes this is real and the state paid for it/);
});

test('a byline or dateline among the first blocks, and a copyright line among the last, go', () => {
  const out = md(
    `<article><p>By Jane Writer - 11/18/19 11:04 PM EST</p>${para(6)}${para(4, 'stream')}<p>© 2019 News Example Publishing Corp. All rights reserved.</p></article>`,
  );
  assert.not.match(out, 'Jane Writer');
  assert.not.match(out, 'rights reserved');
  assert.match(out, /stone number 5/);
});

test("a writer's one-line bio among the last blocks goes; a sentence about a writer inside the article, or a last line that is no bio, stays", () => {
  const out = md(
    `<article>${para(5)}<p>Dana Reyes is a freelance writer whose new book about the mill comes out in May.</p>${para(2, 'stream')}${para(2, 'lake')}<p><em>Dallas Robinson is a freelance writer living in Minneapolis.</em></p></article>`,
  );
  assert.not.match(out, 'Dallas Robinson');
  assert.match(out, 'Dana Reyes is a freelance writer whose new book', "inside the article: the story's own words");
  const kept = md(
    `<article>${para(5)}${para(4, 'stream')}<p>Maria Lopez is a nurse in Ohio who saw the flood.</p></article>`,
  );
  assert.match(kept, 'Maria Lopez is a nurse', "no writer's role: no bio");
});

test('a notice that the page needs JavaScript is no content', () => {
  const out = md(
    `<article>${para(5)}<p>This slideshow requires JavaScript.</p>${para(4, 'stream')}<p>Please enable JavaScript to view the comments.</p></article>`,
  );
  assert.not.match(out, 'requires JavaScript');
  assert.not.match(out, 'enable JavaScript');
  assert.match(out, /The stream keeps flowing/);
});

test("the page's JSON-LD articleBody is evidence: a block it lacks goes when it has the whole text, and is ignored when it is a summary", () => {
  const article = `${para(6)}<p>Subscribe to our daily letter for more updates delivered every morning to you.</p>${para(4, 'stream')}`;
  const text = (html: string) => html.replace(/<[^>]+>/g, ' ');
  const whole = `<script type="application/ld+json">${JSON.stringify({ '@type': 'NewsArticle', articleBody: text(para(6) + para(4, 'stream')) })}</script>`;
  assert.not.match(md(`<article>${article}</article>`, whole), 'Subscribe to our daily letter');
  const summary = `<script type="application/ld+json">${JSON.stringify({ '@type': 'NewsArticle', articleBody: text(para(1)).repeat(8).slice(0, 600) })}</script>`;
  const out = md(`<article>${article}</article>`, summary);
  assert.match(out, /The stream keeps flowing/, 'a summary does not cut the article');
});

test('a page with no article (a list of products) still gives its content, not an empty string', () => {
  const out = pageToMarkdown(
    `<html><head><title>Shop</title></head><body><nav><a href="/">Home</a></nav><main><h1>Kettles</h1>
    <ul><li>Steel kettle, 1.7 l, 39 EUR</li><li>Glass kettle, 1.5 l, 45 EUR</li></ul></main></body></html>`,
    BASE,
  );
  assert.match(out, /Steel kettle, 1\.7 l, 39 EUR/);
  assert.match(out, /Glass kettle/);
  assert.not.match(out, /\[Home\]/);
});

test('a home page of teasers gives its teasers (links kept), not its title alone', () => {
  const teaser = (i: number) =>
    `<div class="card"><h2><a href="/story/${i}">Story number ${i} about the river and the town</a></h2><p><a href="/story/${i}">A short summary of story ${i}, linked.</a></p></div>`;
  const out = pageToMarkdown(
    `<html><head><title>Example News - Home</title></head><body><nav><a href="/">Home</a><a href="/world">World</a></nav>
    <main>${Array.from({ length: 12 }, (_, i) => teaser(i)).join('')}</main></body></html>`,
    BASE,
  );
  for (const i of [0, 11])
    assert.ok(
      out.includes(`## [Story number ${i} about the river and the town](https://news.example/story/${i})`),
      out.slice(0, 300),
    );
  assert.not.match(out, /\[World\]/);
});

test('a card (a link around a thumbnail, a heading and a summary) is its picture, then its text as one link', () => {
  const card = (
    i: number,
  ) => `<li><a href="/episodes/${i}"><div class="thumb"><img src="/img/${i}.jpg" alt="Cover ${i}"></div>
    <h3>Episode ${i}: the river at night</h3><p>Forty minutes on water, light and the town.</p></a></li>`;
  const out = pageToMarkdown(
    `<html><head><title>Podcast</title></head><body><main><h1>Episodes</h1><ol>${[1, 2, 3].map(card).join('')}</ol></main></body></html>`,
    BASE,
  );
  for (const i of [1, 2, 3]) {
    assert.ok(out.includes(`![Cover ${i}](https://news.example/img/${i}.jpg)`), out);
    assert.ok(
      out.includes(
        `[Episode ${i}: the river at night Forty minutes on water, light and the town.](https://news.example/episodes/${i})`,
      ),
      out,
    );
  }
  // No bracket left alone on a line, as a link around blocks came out before.
  assert.not.match(out, /^\s*(?:\d+\.\s*)?\[\s*$|^\s*\]\(/m);
  // A link around a picture alone is a linked picture; a link inside a sentence is unchanged.
  assert.is(
    fragmentToMarkdown('<a href="/big.jpg"><figure><img src="/small.jpg" alt="River"></figure></a>', BASE),
    '[![River](https://news.example/small.jpg)](https://news.example/big.jpg)',
  );
  assert.is(
    fragmentToMarkdown('<p>Read <a href="/more">the (long) story</a> now.</p>', BASE),
    'Read [the (long) story](https://news.example/more) now.',
  );
});

test('a product page gives its name, price, description and specifications, without its cart button', () => {
  const out = pageToMarkdown(
    `<html><head><title>Steel Kettle | Shop</title></head><body><nav><a href="/">Home</a></nav><main><h1>Steel Kettle</h1>
    <p class="price">39 EUR</p><div class="description"><p>A 1.7 litre kettle in brushed steel with a blue light.</p></div>
    <ul class="specs"><li>1.7 l</li><li>2200 W</li></ul><button>Add to cart</button></main></body></html>`,
    BASE,
  );
  assert.is(
    out,
    '# Steel Kettle\n\n39 EUR\n\nA 1.7 litre kettle in brushed steel with a blue light.\n\n- 1.7 l\n- 2200 W',
  );
});

test('words are counted as the runs of letters, digits and _ that Unicode names, in every script (a lookup table stands for the expression)', () => {
  const reference = (text: string) => (text.match(/[\p{L}\p{N}_]+/gu) ?? []).length;
  assert.is(words('Grüße, 東京 — 3 кота and x_y 𝒳yz'), 7);
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (text) => words(text) === reference(text)),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => words(text) === reference(text)),
    { numRuns: 5000 },
  );
});

test('linkedom as patched at install (patches/), in a copy of our own: no listener map until one is added, selectors compiled once; events and queries still work', () => {
  const require = createRequire(import.meta.url);
  const eventTarget = (name: string) =>
    readFileSync(require.resolve(name).replace(/cjs[/\\]index\.js$/, 'esm/interface/event-target.js'), 'utf8');
  assert.match(eventTarget('refract-linkedom'), 'patched by Refract', 'patch-package applied its patch');
  // The patched copy is ours alone (installed as `refract-linkedom`): a plugin that depends on `linkedom` gets it as
  // published, and no patch reaches it.
  let published = '';
  try {
    published = eventTarget('linkedom');
  } catch {}
  assert.not.match(published, 'patched by Refract');
  const { document, Event: PageEvent } = parseHTML('<div><p id="a">x</p></div>') as unknown as {
    document: Document;
    Event: typeof Event;
  };
  const p = document.getElementById('a')!;
  const seen: string[] = [];
  const listener = (e: Event) => seen.push(e.type);
  p.removeEventListener('ping', listener);
  p.addEventListener('ping', listener);
  p.dispatchEvent(new PageEvent('ping'));
  p.removeEventListener('ping', listener);
  p.dispatchEvent(new PageEvent('ping'));
  document.body.dispatchEvent(new PageEvent('ping'));
  assert.equal(seen, ['ping']);
  // Selectors are compiled once and reused: on another document, in XML, and with `:scope` (never cached).
  const other = (
    parseHTML('<ul><li class="x">1</li><li>2</li><li class="x">3</li></ul>') as unknown as { document: Document }
  ).document;
  assert.is(other.querySelectorAll('li.x').length, 2);
  assert.is(document.querySelectorAll('li.x').length, 0);
  assert.is(other.querySelector('ul')!.querySelectorAll(':scope > li').length, 3);
  assert.is(document.querySelector('div')!.querySelectorAll(':scope > p').length, 1);
});

test('linkedom as patched: the class attribute kept as written, its token list made on use and kept in step, tag lists matched by name in order', () => {
  const { document } = parseHTML(
    '<div id="d" class="  lead   story lead "><P>one</P><span>two</span><p class="x">three</p></div>',
  ) as unknown as { document: Document };
  const div = document.getElementById('d')!;
  assert.is(div.className, '  lead   story lead ', 'as a browser gives it');
  assert.is(div.getAttribute('class'), '  lead   story lead ');
  assert.ok(div.classList.contains('story'));
  assert.is(div.classList.length, 2);
  div.classList.add('wide');
  assert.ok(div.getAttribute('class')!.split(' ').includes('wide'), 'a change through classList is written back');
  div.className = 'plain';
  assert.is(div.className, 'plain');
  assert.ok(!div.classList.contains('wide'));
  assert.is(document.querySelectorAll('.story, .plain').length, 1);
  assert.is(document.querySelectorAll('[class*="lai"]').length, 1);
  // A list of tag names, any case, matched in document order; anything else still goes through css-select.
  assert.equal(
    [...document.querySelectorAll('SPAN, p')].map((el) => el.textContent),
    ['one', 'two', 'three'],
  );
  assert.equal(
    [...document.querySelectorAll('p.x, span')].map((el) => el.textContent),
    ['two', 'three'],
  );
  assert.is(document.querySelectorAll('div > p').length, 2);
  assert.is(document.createElement('p').className, '');
});

test('Readability as patched at install (patches/): a page hidden by its style attribute is still left out, a byline still found', () => {
  const file = createRequire(import.meta.url).resolve('refract-readability/Readability.js');
  assert.match(
    readFileSync(file, 'utf8'),
    'patched by Refract',
    'patch-package applied patches/@mozilla+readability+*.patch',
  );
  const out = md(
    `<article><h1>The River Story</h1><p class="byline">By Ana Reyes</p>${para(6)}<div style="color: red; display: none">${para(4, 'hidden')}</div><div style="visibility:hidden">${para(3, 'ghost')}</div>${para(5, 'stream')}</article>`,
  );
  assert.ok(out.includes('stream keeps flowing'), out.slice(0, 200));
  assert.not.ok(out.includes('hidden keeps flowing'), 'display: none is not content');
  assert.not.ok(out.includes('ghost keeps flowing'), 'visibility: hidden is not content');
  assert.not.ok(out.includes('Ana Reyes'), 'the byline is not in the body');
});

test("a rule for the whole page's Markdown does not parse the page a second time (cheerio), a rule with a selector does", async () => {
  const html = page(`<article><h1>The River Story</h1>${para(6)}${para(5, 'stream')}</article>`);
  let parses = 0;
  const ctx = {
    url: BASE,
    response: { text: html, kind: 'html' },
    signal: new AbortController().signal,
    shared: <T>(_: string, make: () => T) => make(),
    get $() {
      parses++;
      return load(html);
    },
  } as unknown as Context;
  const run = dataPlugin.run as (ctx: Context, rules: unknown) => Promise<Record<string, unknown>>;
  const out = await run(ctx, { body: { attr: 'markdown' } });
  assert.is(out.body, pageToMarkdown(html, BASE));
  assert.is(parses, 0, 'the Markdown of the page reads its HTML');
  const picked = await run(ctx, { heading: { selector: 'h1', attr: 'text' } });
  assert.is(picked.heading, 'The River Story');
  assert.ok(parses > 0, 'a selector reads the parsed page');
});

test('content written after </body> is read, as a browser puts it into the body (Readability failed on it)', () => {
  const html = `<html><head><title>The River Story</title></head><body><p>Short.</p></body><div><article>${para(8)}${para(6, 'stream')}</article></div></html>`;
  const out = pageToMarkdown(html, BASE);
  assert.match(out, /stone number 7/);
  assert.match(out, /The stream keeps flowing/);
});

test("whole documents written inside the body (a CMS's blocks, an embedded app's page) are read in place, as a browser reads them", () => {
  const block = (inner: string) =>
    `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN"><html><body><div class="block">${inner}</div></body></html>`;
  const words = ['alder', 'birch', 'cedar', 'aspen'];
  const html = page(
    `<header><a href="/">Home</a></header><main><h1>The River Story</h1>${words.map((w) => block(para(4, w))).join('')}</main>` +
      `<aside><a href="/a">Other story</a></aside>`,
  );
  const out = pageToMarkdown(html, BASE);
  for (const w of words) assert.match(out, new RegExp(`The ${w} keeps flowing past stone number 3`));
  const app = page(
    `<main id="main"><!DOCTYPE html><html><head><meta charset="utf-8"><title>Routine builder app</title><link rel="stylesheet" href="/app.css"></head>` +
      `<body><div id="__next"><h1>The River Story</h1>${para(5)}${para(4, 'stream')}</div></body></html></main>`,
  );
  const embedded = pageToMarkdown(app, BASE);
  assert.match(embedded, /The stream keeps flowing past stone number 3/);
  assert.not.match(embedded, /Routine builder app/);
});
test("an application page's content for readers without script (<noscript>, as Discourse writes it) is its content", () => {
  const posts = ['alder', 'birch', 'cedar']
    .map(
      (w, i) =>
        `<div class="topic-body crawler-post" id="post_${i + 1}"><span itemprop="author">user${i}</span>${para(3, w)}</div>`,
    )
    .join('');
  const html = page(`<noscript><img src="/pixel.gif"></noscript><div id="app">Loading</div>
    <noscript data-path="/t/the-river/1"><div id="main-outlet" role="main"><h1>The River Story</h1>${posts}</div></noscript>`);
  const out = pageToMarkdown(html, BASE);
  for (const w of ['alder', 'birch', 'cedar']) assert.match(out, new RegExp(`The ${w} keeps flowing`));
  assert.is(pageContent(html, BASE).kind, 'forum');
});
test('a stray <![CDATA[ in the body is a comment to the next >, as browsers read it, not the end of the page', () => {
  const posts = ['alder', 'birch', 'cedar'].map((w) => `<article class="message">${para(3, w)}</article>`).join('');
  const html = `<!doctype html><html><head><title>The River Story</title><script>//<![CDATA[\nvar a = 1;\n//]]></script></head><body><![CDATA[\n<div id="top"></div><main>${posts}</main></body></html>`;
  const out = pageToMarkdown(html, BASE);
  for (const w of ['alder', 'birch', 'cedar']) assert.match(out, new RegExp(`The ${w} keeps flowing`));
  assert.not.match(out, /var a/);
});

test('a thread inside a form (XenForo) keeps its posts; a search form beside it goes', () => {
  const posts = ['alder', 'birch', 'cedar', 'dogwood']
    .map(
      (w, i) =>
        `<article class="message message--post"><div class="message-inner"><div class="message-cell"><div class="bbWrapper">${para(i ? 2 : 9, w)}</div></div></div></article>`,
    )
    .join('');
  const html = page(
    `<form class="search"><p>Search the whole forum for anything at all today</p></form><form class="InlineModForm">${posts}</form>`,
    '<script type="application/ld+json">{"@type": "DiscussionForumPosting", "headline": "The River Story"}</script>',
  );
  assert.is(pageContent(html, BASE).kind, 'forum');
  const out = pageToMarkdown(html, BASE);
  for (const w of ['alder', 'birch', 'cedar', 'dogwood']) assert.match(out, new RegExp(`The ${w} keeps flowing`));
  assert.not.match(out, /Search the whole forum/);
  // The last cleaning of every output keeps such a form too (it dropped every form).
  const fragment = fragmentToMarkdown(
    `<form class="InlineModForm">${posts}</form><form><p>Search here</p></form>`,
    BASE,
  );
  assert.match(fragment, /The dogwood keeps flowing/);
  assert.not.match(fragment, /Search here/);
});

test('before Readability looks, landmark roles, navigation and hidden parts go, a form holding the page stays', () => {
  const { document } = parseHTML(
    page(`<div role="navigation"><p>Home and all the sections of the site</p></div><nav><p>More links here</p></nav>
      <div hidden><p>A hidden part of the page</p></div><form id="aspnetForm"><article>${para(8)}</article></form>`),
  );
  prune(document as unknown as Document);
  const text = document.body.textContent ?? '';
  for (const gone of ['sections of the site', 'More links', 'hidden part']) assert.not.match(text, gone);
  assert.match(text, /stone number 7/);
});

test("utility classes that set how a box scrolls or clips (overflow-hidden, scroll-mt-2) do not drop it as the site's", () => {
  const code = (name: string) =>
    `<div class="group mt-2 scroll-mt-2 overflow-hidden md:overflow-x-scroll rounded"><div class="highlight"><pre><code class="language-yaml">services:\n  ${name}:\n    image: ${name}:18</code></pre></div></div>`;
  const out = md(
    `<article><h1>The River Story</h1>${para(4)}${code('postgres')}${para(3, 'stream')}<div class="overflow-hidden"><p>The gauge by the weir reads the level of the water every hour, day and night, for the whole valley.</p></div>${code('redis')}${para(3, 'brook')}</article>`,
  );
  assert.match(out, /```yaml\nservices:\n {2}postgres:\n {4}image: postgres:18\n```/, out);
  assert.match(out, /image: redis:18/);
  assert.match(out, /The gauge by the weir/);
});

test.run();
