// Main content by kind of page, on small pages of each kind (fixtures/sites/kinds/): the kind each page's own
// signals give, what must be in its content (every post, the description and specifications, every card, every
// section, code with its language) and what must not (actions, signatures, buy box, filters, sorting, pagination,
// navigation, sidebars, tables of contents). The same pages through the real server are in server/content.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contentMarkdown, pageContent } from '../../plugins/shared/content/markdown.ts';
import { parseHTML } from 'refract-linkedom';
import { pageBody } from '../../plugins/shared/content/content-page.ts';
import { contentHtml, contentText } from '../../plugins/shared/content/content-render.ts';
import { kindOfUrl } from '../../plugins/shared/content/content-kind-url.ts';

const DIR = path.resolve(import.meta.dirname, '../../fixtures/sites/kinds');
const read = (name: string) => {
  const content = pageContent(readFileSync(path.join(DIR, `${name}.html`), 'utf8'), `https://site.example/${name}/1`);
  return { kind: content.kind, md: contentMarkdown(content) };
};

const KINDS: [string, string, (string | RegExp)[], string[]][] = [
  [
    'forum',
    'forum',
    [
      'my summer tent feels far too light',
      'four season dome earns its weight',
      'closed cell foam pad',
      // Every post with its author and time, though the user cards and attribution bars are gone.
      /\*\*alder\\_walker\*\* · Jan 10, 2025\n\nI am planning/,
      /\*\*birch\\_camper\*\* · Jan 10, 2025\n\nA four season dome/,
      /\*\*cedar\\_ranger\*\* · Jan 11, 2025\n\nWhatever tent/,
    ],
    [
      'Reply',
      'Quote',
      'Report',
      'Sent from my phone',
      'Click to expand',
      'Similar threads',
      'Best sleeping bag',
      'Log in',
      'Terms and rules',
      'Messages: 212',
      // Threads listed after the thread's posts are other threads.
      'Trending threads',
      'frost_fan',
      'Waterproofing an old canvas tent',
    ],
  ],
  [
    'product',
    'product',
    // Its name, price, description and specifications.
    [
      'undyed island wool',
      'finished by hand',
      'Specifications',
      /Material \| 100% island wool/,
      'Hand wash cold',
      "Fisherman's rib",
      '129,00 EUR',
    ],
    // A terms-of-service modal longer than the product is no part of it, whatever its size; nor are its reviews,
    // though they hold more words than its description.
    [
      'Add to cart',
      'Quantity',
      'Free shipping',
      'You may also like',
      'Harbour Beanie',
      'Newsletter',
      'Terms of service',
      'Great sweater',
      'Customer reviews',
      // Other products under a heading that offers them, and a field named in a template's code.
      'also viewed',
      'Trawler Gloves',
      'retail_price_tier2',
    ],
  ],
  [
    'listing',
    'listing',
    [
      'The otters return',
      'record heron count',
      'salmon ladder',
      'Planting willows',
      'kingfisher',
      'first frogspawn',
      'By Ann Writer',
    ],
    ['Sort by', 'Next page', 'Get the field notes in your inbox', 'Birds'],
  ],
  [
    'collection',
    'collection',
    [
      'made to last a lifetime',
      'Enamel Stove Kettle',
      'Cast Iron Teapot',
      'Brushed Steel Kettle',
      'Glass Teapot',
      'Copper Camp Kettle',
      '79 EUR',
    ],
    ['Filter', 'Material: Enamel', 'Sort by', 'Best selling', 'Gift cards'],
  ],
  [
    'service',
    'service',
    [
      'designed around the way you live',
      'What we do',
      'never by subcontractors',
      'Pricing',
      'Care visits from 120 EUR',
      'How long does a build take',
      'not frozen',
    ],
    ['Our work', 'Privacy', '12 Canal Street'],
  ],
  [
    'docs',
    'documentation',
    ['stream of chunks', '```python\nfrom streamkit import open', '```shell\nstreamkit read', 'Choose a chunk size'],
    ['Writing files', 'On this page', 'MIT licence', 'Install'],
  ],
];

for (const [file, kind, have, lack] of KINDS) {
  test(`${kind}: its kind from its own signals, its content in, the site around it out`, () => {
    const { kind: found, md } = read(file);
    assert.is(found, kind);
    for (const want of have)
      assert.ok(typeof want === 'string' ? md.includes(want) : want.test(md), `${kind} lacks ${want}:\n${md}`);
    for (const unwanted of lack) assert.not.ok(md.includes(unwanted), `${kind} has ${unwanted}:\n${md}`);
  });
}

/** A thread of two posts as a kind of forum software writes it (`post` writes one post, given its author and time). */
const thread = (post: (author: string, time: string, text: string) => string) =>
  `<html><head><title>Fixing a dripping tap | Home Repair Forum</title></head><body><nav><a href="/">Home</a><a href="/forum">Forum</a></nav><main><h1>Fixing a dripping tap</h1>${post(
    'rowan_fixes',
    '2024-03-02T10:00:00Z',
    'My kitchen tap keeps dripping after I closed it as tight as it goes, and the washer looks fine to me.',
  )}${post('ivy.plumber', '2024-03-02T12:30:00Z', 'A tap that drips with a good washer usually has a worn seat: a seat grinder costs little and fixes it in ten minutes.')}</main><footer>Forum rules</footer></body></html>`;

test('posts keep their authors and times in the markup of several kinds of forum software', () => {
  const cases: [string, (a: string, t: string, x: string) => string, string][] = [
    // phpBB: a post's author line with its username link and time.
    [
      'phpbb',
      (a, t, x) =>
        `<div class="post bg2"><div class="postbody"><p class="author">by <strong><a class="username" href="/u/${a}">${a}</a></strong> » <time datetime="${t}">Sat Mar 02</time></p><div class="content">${x}</div></div><dl class="postprofile"><dd class="profile-posts">Posts: 40</dd></dl></div>`,
      'Sat Mar 02',
    ],
    // schema.org microdata (Stack Exchange, Discourse's crawler view): the declared author, an editor's card beside it.
    [
      'microdata',
      (a, t, x) =>
        `<div class="answer" itemscope itemtype="https://schema.org/Answer"><div class="s-prose" itemprop="text"><p>${x}</p></div><div class="post-signature"><div class="user-info">edited <span class="relativetime" title="2024-04-01 08:00:00Z">Apr 1</span><div class="user-details"><a href="/users/9">an_editor</a></div></div></div><div class="post-signature owner"><div class="user-info">answered <span class="relativetime" title="${t.replace('T', ' ')}">Mar 2</span><div class="user-details" itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/users/1">${a}</a><span itemprop="name" class="d-none">${a}</span></div></div></div></div>`,
      'Mar 2',
    ],
  ];
  for (const [name, post, shown] of cases) {
    const content = pageContent(thread(post), 'https://forum.example/t/fixing-a-dripping-tap/12');
    const md = contentMarkdown(content);
    assert.match(md, new RegExp(`\\*\\*rowan\\\\_fixes\\*\\* · ${shown}\n\nMy kitchen tap`), `${name}:\n${md}`);
    assert.match(md, new RegExp(`\\*\\*ivy\\.plumber\\*\\* · ${shown}\n\nA tap that drips`), `${name}:\n${md}`);
    // The date as the page shows it; its exact value in the HTML.
    assert.match(contentHtml(content), /<strong>rowan_fixes<\/strong> · <time datetime="2024-03-02[T ]10:00:00Z">/);
    assert.not.match(md, /an_editor|an\\_editor|Posts: 40/, `${name}: no editor or user statistics:\n${md}`);
  }
});

test('a part streamed in after the shell (React server rendering) is read where the browser shows it', () => {
  const spec = (i: number) =>
    `<p>The trail shoe number ${i} grips wet rock and dries within the hour after a river crossing.</p>`;
  const html = `<html><head><title>Trail Shoe | Shop</title><meta property="og:type" content="product"></head><body><header><a href="/">Shop</a></header><main><!--$?--><template id="B:0"></template><div role="status"><p>Loading the product skeleton</p></div><!--/$--></main><footer>Store footer links</footer><div hidden id="S:0"><h1>Trail Shoe</h1>${[1, 2, 3, 4, 5].map(spec).join('')}</div><script>$RC("B:0","S:0")</script></body></html>`;
  const content = pageContent(html, 'https://shop.example/trail-shoe');
  const md = contentMarkdown(content);
  assert.match(md, /number 1 grips wet rock[\s\S]*number 5 grips wet rock/);
  // Over its placeholder: the loading skeleton it replaces is gone.
  assert.not.match(md, /Loading the product skeleton/);
});

test('parts that one name marks are the content when together they hold most of the page', () => {
  const post = (i: number, who: string) =>
    `<article class="ipsEntry"><div class="ipsEntry__content" id="comment-${i}_wrap"><p>${who} writes that the old mill pond froze over on day ${i} and the ice held skaters until late in the evening light.</p><p>Skating went on for ${i + 2} days before the thaw came, the longest run since the winter the bridge was built.</p></div></article>`;
  const html = `<html><head><title>The mill pond - Village Forum</title></head><body><nav><a href="/">Forums</a></nav><main><h1>The mill pond</h1>${['ann', 'bo', 'cy', 'di'].map((w, i) => post(i + 1, w)).join('')}<div class="sidebar"><p>Popular topics this week</p></div></main></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://forum.example/topic/12-the-mill-pond/'));
  for (const who of ['ann', 'bo', 'cy', 'di']) assert.match(md, new RegExp(`${who} writes that the old mill pond`), md);
  assert.not.match(md, /Popular topics/);
});

test('an article stays an article, read as one container', () => {
  const para = (w: string) =>
    `<p>${Array.from({ length: 8 }, (_, i) => `The ${w} keeps flowing past stone number ${i}.`).join(' ')}</p>`;
  const html = `<html><head><title>The River | News</title><meta property="og:type" content="article"><meta property="article:published_time" content="2026-05-02T08:00:00Z"></head><body><nav><a href="/">Home</a></nav><article><h1>The River</h1>${para('river')}${para('stream')}</article><aside><p>Most read today elsewhere</p></aside></body></html>`;
  const content = pageContent(html, 'https://news.example/2026/05/the-river');
  assert.is(content.kind, 'article');
  const md = contentMarkdown(content);
  assert.match(md, /The stream keeps flowing past stone number 7/);
  assert.not.match(md, /Most read/);
});

test('a script shell has no content: its title alone is not given as the text, nor its footer as the page', () => {
  // An application page that draws everything from script: all a reader without script has is the site's footer.
  const links = Array.from({ length: 30 }, (_, i) => `<a href="/help/${i}">Help topic ${i}</a>`).join(', ');
  const html = `<html><head><title>Wool Rug | Rug Shop</title><meta property="og:type" content="product"></head><body><div id="root"></div><footer><dl><dt>Help</dt><dd>${links}</dd></dl></footer></body></html>`;
  const content = pageContent(html, 'https://shop.example/products/wool-rug');
  assert.is(contentMarkdown(content), '');
  assert.is(contentText(content), '');
  assert.is(contentHtml(content), '');
  // The title is still the page's: only the content is empty.
  assert.is(content.title, 'Wool Rug | Rug Shop');
  // A page that shows its heading alone has that to read: its title heads the outputs.
  const heading = pageContent(
    '<html><head><title>Page 3</title></head><body><h1>Page 3</h1></body></html>',
    'https://site.example/3',
  );
  assert.is(contentMarkdown(heading), '# Page 3');
  assert.is(contentText(heading), 'Page 3');
});

test("a page's footer is left out however much of the page it holds, and so are its skip links", () => {
  const card = (i: number) =>
    `<li><a href="/kettles/${i}"><h3>Kettle model ${i}</h3></a><p>Holds ${i} litres.</p></li>`;
  const notice = Array.from(
    { length: 12 },
    (_, i) => `<p>Legal notice paragraph ${i} about returns, taxes and the fine print of every order.</p>`,
  ).join('');
  const html = `<html><head><title>Kettles | Shop</title></head><body><a href="#main" class="skip">Skip to main content</a><main id="main"><h1>Kettles</h1><ul>${[1, 2, 3, 4, 5, 6].map(card).join('')}</ul></main><footer>${notice}</footer></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://shop.example/collections/kettles'));
  assert.match(md, /Kettle model 1[\s\S]*Kettle model 6/);
  assert.not.match(md, /Legal notice paragraph/);
  assert.not.match(md, /Skip to main content/);
});

test("a page's sign-up and log-in forms are the site's, with their consent text and messages", () => {
  const section = (i: number) =>
    `<section><h2>Service ${i}</h2><p>We plan, build and look after city gardens of every size, season ${i} after season.</p></section>`;
  const signup = `<form action="/join"><p>Be the first to hear when our spring planting slots open.</p><input type="email" name="contact_email"><p>By entering your address you agree to receive our letters.</p><p>Thanks for joining the list!</p></form>`;
  const login = `<form action="/login"><p>Members sign in here to see their garden plans.</p><input type="password" name="pw"></form>`;
  const { document } = parseHTML(
    `<html><body><main>${[1, 2, 3, 4].map(section).join('')}${signup}${login}</main></body></html>`,
  );
  const text = pageBody(document as unknown as Document, 'service')?.textContent ?? '';
  assert.match(text, /Service 1[\s\S]*Service 4/);
  for (const gone of ['spring planting slots', 'By entering your address', 'Thanks for joining', 'Members sign in'])
    assert.not.ok(text.includes(gone), `${gone}: ${text}`);
  // A page inside one form (an ASP.NET site's) keeps its content.
  const whole = parseHTML(
    `<html><body><form action="/page"><input type="email" name="email">${[1, 2, 3].map(section).join('')}</form></body></html>`,
  ).document as unknown as Document;
  assert.match(pageBody(whole, 'service')?.textContent ?? '', /Service 1[\s\S]*Service 3/);
});

test("a page's messages to its reader (role status and alert) are no content, unless they hold much of it", () => {
  const para = (i: number) =>
    `<p>The walnut desk number ${i} is oiled by hand and ships flat with every fitting it needs to stand.</p>`;
  const html = `<html><head><title>Walnut Desk | Shop</title><meta property="og:type" content="product"></head><body><main><h1>Walnut Desk</h1>${[1, 2, 3, 4].map(para).join('')}<div role="status" aria-live="polite">Loading the latest stock levels</div><div role="alert">Oops! Something went wrong, please try again.</div></main></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://shop.example/products/walnut-desk'));
  assert.match(md, /walnut desk number 1[\s\S]*walnut desk number 4/);
  assert.not.match(md, /Loading the latest stock|Something went wrong/);
  // A status region that holds the page (a live-updating board) is read.
  const board = `<html><head><title>Departures</title></head><body><main><div role="status">${[1, 2, 3].map(para).join('')}</div></main></body></html>`;
  assert.match(contentMarkdown(pageContent(board, 'https://station.example/departures')), /walnut desk number 3/);
});

test('a table of contents (links within the page) and its heading are no content; the sections it links to are', () => {
  const section = (id: string) =>
    `<h2 id="${id}">The ${id} season</h2><p>In the ${id} season the orchard is pruned, fed and watched for the first signs of blossom on the old trees.</p>`;
  const toc = `<h2>Table of contents</h2><ul><li><a href="#spring">Spring</a></li><li><a href="#summer">Summer</a></li><li><a href="#autumn">Autumn</a></li></ul>`;
  const html = `<html><head><title>The orchard year</title><meta property="og:type" content="article"></head><body><article><h1>The orchard year</h1>${toc}${['spring', 'summer', 'autumn'].map(section).join('')}<p><strong>On this page</strong></p></article></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://garden.example/orchard-year'));
  assert.match(md, /The spring season[\s\S]*The autumn season/);
  assert.not.match(md, /Table of contents|\(#spring\)|On this page/i);
});

test('a thread says nothing twice: quotes of earlier posts and repeated signatures go, every post keeps its line', () => {
  const post = (author: string, body: string, signature = '') =>
    `<article class="message message--post" data-author="${author}"><header class="message-attribution"><time datetime="2025-02-01T10:00:00Z">Feb 1, 2025</time></header><div class="votes"><div class="count">${author.length * 3}</div></div><div class="bbWrapper">${body}${signature}</div><p class="post-number">${author.length}</p></article>`;
  // A signature written into each post's body, where no class names it.
  const sig = '<p>Paddling the northern lakes since 1998, one portage at a time.</p>';
  const first = '<p>Which paddle length suits a touring kayak of five metres for a tall paddler on open water?</p>';
  const html = `<html><head><title>Paddle length | Lake Forum</title><script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Paddle length"}</script></head><body><main><h1>Paddle length</h1>${[
    post('fern_paddler', first, sig),
    post(
      'gull_rower',
      `<blockquote>${first}</blockquote><p>A tall paddler on open water is happiest with a paddle of two hundred and thirty centimetres.</p>`,
    ),
    post(
      'fern_paddler',
      '<p>Thanks, I tried a borrowed paddle of that length on Sunday and the stroke felt easy.</p>',
      sig,
    ),
  ].join('')}</main></body></html>`;
  const content = pageContent(html, 'https://forum.example/threads/paddle-length.12/');
  assert.is(content.kind, 'forum');
  const md = contentMarkdown(content);
  const count = (re: RegExp) => md.match(new RegExp(re, 'g'))?.length ?? 0;
  assert.is(count(/Which paddle length suits/), 1, md);
  assert.is(count(/Paddling the northern lakes/), 1, md);
  assert.match(md, /two hundred and thirty centimetres[\s\S]*borrowed paddle/);
  // Both of one author's posts keep their line, though the two lines say the same.
  assert.is(count(/\*\*fern\\_paddler\*\* · Feb 1, 2025/), 2, md);
  // A post's votes and its number, blocks of one number alone, are the forum's; the years in its text stay.
  assert.not.match(md, /^(36|30|12|10)$/m, md);
  assert.match(md, /since 1998/);
});

test("a product's description drawn twice (for two screens) is read once; its specifications' repeated values stay", () => {
  const description =
    '<p>The cedar stool is turned from one log and finished with beeswax, so each one carries its own grain and knots.</p>';
  const specs =
    '<table><tr><th>Indoor use</th><td>Yes</td></tr><tr><th>Outdoor use</th><td>Yes</td></tr><tr><th>Height</th><td>45 cm</td></tr></table>';
  const html = `<html><head><title>Cedar Stool | Shop</title><script type="application/ld+json">{"@type":"Product","name":"Cedar Stool"}</script></head><body><main><h1>Cedar Stool</h1><div class="desktop-only">${description}</div><div class="mobile-only">${description}</div>${specs}</main></body></html>`;
  const content = pageContent(html, 'https://shop.example/products/cedar-stool');
  assert.is(content.kind, 'product');
  const md = contentMarkdown(content);
  assert.is(md.match(/turned from one log/g)?.length, 1, md);
  assert.match(md, /Indoor use \| Yes[\s\S]*Outdoor use \| Yes/);
});

test("a copy of the content (drawn twice) is read once; lines a page repeats on purpose (each plan's) stay", () => {
  const para = (i: number) =>
    `<p>Paragraph ${i} of the harbour story tells how the old pier was rebuilt stone by stone after the storm of that winter.</p>`;
  const story = [1, 2, 3, 4].map(para).join('');
  const article = `<html><head><title>The harbour</title><meta property="og:type" content="article"></head><body><article><h1>The harbour</h1>${story}<div class="print-version">${story}</div></article></body></html>`;
  const md = contentMarkdown(pageContent(article, 'https://news.example/2026/the-harbour'));
  assert.is(md.match(/Paragraph 3 of the harbour story/g)?.length, 1, md);
  const features = '<ul><li>Unlimited projects</li><li>Email support within a day</li><li>Export to PDF</li></ul>';
  const plan = (name: string, price: string) =>
    `<section><h2>${name}</h2><p>${price} a month, billed yearly, for teams who plan their work together.</p>${features}</section>`;
  const pricing = `<html><head><title>Pricing | Planner</title></head><body><main><h1>Pricing</h1>${plan('Basic', '$9')}${plan('Team', '$19')}${plan('Business', '$49')}</main></body></html>`;
  const plans = contentMarkdown(pageContent(pricing, 'https://planner.example/pricing'));
  assert.is(plans.match(/Email support within a day/g)?.length, 3, plans);
});

test("og:type article is no article's sign on a page that states no time of publishing (a CMS's page): its sections are read", () => {
  const long = (w: string) =>
    `<p>${Array.from({ length: 5 }, (_, i) => `Our ${w} crew has looked after harbour towns for years, and knows tide ${i}, its currents and its storms by heart.`).join(' ')}</p>`;
  const band = (inner: string) =>
    `<div class="band"><div class="container"><div class="col">${inner}</div></div></div>`;
  const block = (n: string) =>
    band(
      `<h2>${n}</h2><p>The ${n.toLowerCase()} work is planned with you, priced before we start, and done by our own crew in one visit.</p>`,
    );
  const page = (head: string, classes: string) =>
    `<html><head><title>Harbour Repairs | Quayside Works</title><meta property="og:type" content="article">${head}</head><body class="${classes}">${band(`<h1>Harbour repairs done right</h1>${long('survey')}${long('repair')}`)}${['Slipways', 'Sea walls', 'Moorings', 'Pontoons', 'Pricing', 'Questions'].map(block).join('')}</body></html>`;
  // WordPress's SEO plugins write og:type article on its pages too, with their time of change alone.
  const cmsPage = pageContent(
    page(
      '<meta property="article:modified_time" content="2025-01-01T00:00:00Z">',
      'page-template-default page page-id-12',
    ),
    'https://quayside.example/harbour-repairs/',
  );
  assert.is.not(cmsPage.kind, 'article');
  assert.match(contentMarkdown(cmsPage), /The slipways work[\s\S]*The pricing work/, contentMarkdown(cmsPage));
  assert.match(contentMarkdown(cmsPage), /storms by heart[\s\S]*The slipways work[\s\S]*The pricing work/);
  // A WordPress Page (not a post) whose SEO plugin declares it an Article, with a time of publishing, is no article
  // either.
  const declared = pageContent(
    page(
      '<meta property="article:published_time" content="2025-01-01T00:00:00Z"><script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Article","headline":"Harbour repairs"},{"@type":"WebPage"}]}</script>',
      'wp-singular page-template-default page page-id-9572 elementor-page',
    ),
    'https://quayside.example/harbour-repairs/',
  );
  assert.is.not(declared.kind, 'article');
  assert.match(contentMarkdown(declared), /storms by heart[\s\S]*The slipways work[\s\S]*The pricing work/);
  // A post that states its time (meta tag, by property or by name, or microdata) or that WordPress marks as a post is
  // an article: its one container.
  for (const [head, classes] of [
    ['<meta property="article:published_time" content="2025-01-01T00:00:00Z">', ''],
    ['<meta name="article:published_time" content="2025-01-01T00:00:00Z">', ''],
    ['', 'single single-post postid-12'],
    [
      '<script type="application/ld+json">{"@type":"Article","headline":"Harbour repairs"}</script>',
      'single postid-12',
    ],
  ]) {
    const post = pageContent(page(head!, classes!), 'https://quayside.example/harbour-repairs/');
    assert.is(post.kind, 'article', head || classes);
    assert.not.match(contentMarkdown(post), /The slipways work/);
  }
});

test("a header of links (a mega menu) is the site's, however much of the page it holds", () => {
  const links = Array.from(
    { length: 40 },
    (_, i) => `<li><a href="/products/${i}">Product line ${i} for teams of every size</a></li>`,
  ).join('');
  const section = (i: number) =>
    `<section><h2>Plan ${i}</h2><p>Plan ${i} gives a team of up to ${i * 10} people its own board and weekly reports.</p></section>`;
  const { document } = parseHTML(
    `<html><body><header><div class="megamenu"><ul>${links}</ul></div></header>${[1, 2, 3].map(section).join('')}</body></html>`,
  );
  const text = pageBody(document as unknown as Document, 'service')?.textContent ?? '';
  assert.match(text, /Plan 1[\s\S]*Plan 3/);
  assert.not.match(text, /Product line/);
});

test("what stands before a service page's one heading (a utility bar, an alert, an app's promotion) is the site's", () => {
  const section = (i: number) =>
    `<section><h2>Clinic ${i}</h2><p>Clinic ${i} sees adults and children for therapy, in person or by video, on weekdays and Saturdays.</p></section>`;
  const utility = `<div class="utility"><div><span>Call us 555-0100</span><span>Translate</span><span>Careers</span></div><div class="notice"><p>Download our patient app to book visits and read your results from home.</p></div></div>`;
  const { document } = parseHTML(
    `<html><body>${utility}<div class="page"><h1>Mental health services</h1><p>Our clinics care for patients of every age, from a first visit to a long stay.</p>${[1, 2, 3].map(section).join('')}</div></body></html>`,
  );
  const text = pageBody(document as unknown as Document, 'service')?.textContent ?? '';
  assert.match(text, /Mental health services[\s\S]*Clinic 1[\s\S]*Clinic 3/);
  assert.not.match(text, /555-0100|Translate|patient app/, text);
});

test("a URL's shape names its kind by whole path segments and words, and a page served elsewhere by its own address", () => {
  const shapes: [string, string | undefined][] = [
    // Threads: a thread's path segment on a forum's host or path.
    ['https://community.shop.example/t/which-tent/1555', 'forum'],
    ['https://www.reddit.com/r/science/comments/1rku5x9/hair/', 'forum'],
    ['https://forum.example/showthread.php', 'forum'],
    // Not a thread: a segment that only starts like one (`/top-7-…`, `/digital-marketing`), a word inside another
    // (`keyboards`, `board-games`).
    ['https://keys.example/blogs/mechanical-keyboards-101/top-7-hot-swappable', undefined],
    ['https://games.example/tabletop/2025/the-best-board-games', undefined],
    ['https://college.example/center-community-outreach/digital-marketing', undefined],
    // One product (a model number, or four words or more) and a shelf of them (a kind of thing).
    ['https://shop.example/products/sennheiser-hd-600', 'product'],
    ['https://shop.example/products/beatrice-tan-tufted-rug', 'product'],
    ['https://www.amazon.example/Wireless-Headphones/dp/B0D1PC8551', 'product'],
    ['https://shop.example/products/monitor-arms', undefined],
    ['https://shop.example/products/mounts/multi-monitor-mounts', undefined],
    // A guide is an article as often as documentation; `/docs/` is documentation.
    ['https://energy.example/guides/choosing-an-ev', undefined],
    ['https://db.example/docs/current/sql-select.html', 'documentation'],
  ];
  for (const [url, kind] of shapes) assert.is(kindOfUrl(new URL(url)), kind, url);
  // A page read at an address of no shape (a mirror, a short link) is known by the address it declares.
  const thread = (head: string) =>
    pageContent(
      `<html><head>${head}</head><body><div><p>Has anyone pitched a tent on the ridge in winter, and how did it hold?</p></div></body></html>`,
      'http://127.0.0.1:1/p/1/',
    ).kind;
  assert.is(thread('<link rel="canonical" href="https://www.reddit.com/r/camping/comments/1abc/ridge/">'), 'forum');
  assert.is(thread('<meta property="og:url" content="https://community.camp.example/t/ridge/12">'), 'forum');
  assert.is(thread(''), undefined);
});

test('a documentation page is read whole when its largest section is half of it; its bare <pre> blocks are code', () => {
  const section = (name: string, inner: string) =>
    `<div class="sect1"><h2>${name}</h2><div class="sectionbody">${inner}</div></div>`;
  const para = (text: string) => `<div class="paragraph"><p>${text}</p></div>`;
  const options = Array.from(
    { length: 30 },
    (_, i) =>
      `<dt class="hdlist1"><code>--option-${i}</code></dt><dd><p>Option ${i} changes how the record is written, which fields it keeps and when the change is saved to disk.</p></dd>`,
  ).join('');
  const list = (what: string) =>
    `<div class="ulist"><ul>${Array.from({ length: 12 }, (_, i) => `<li>${what} ${i} is kept with the record, read back by every tool, and shown in the log beside its author</li>`).join('')}</ul></div>`;
  const sphinx = `<div class="highlight-python notranslate"><div class="highlight"><pre><span></span><span class="kn">import</span> tool\ntool.record(all=True)</pre></div></div>`;
  const html = `<html><head><title>tool-record - Documentation</title></head><body><nav class="sidebar"><ul><li><a href="/a">Reference</a></li><li><a href="/b">Guides</a></li></ul></nav><div id="main"><h1>tool-record(1)</h1>${section('Name', para('tool-record - Record changes to the store, with their author and their message, for every tool that reads it.'))}${section('Synopsis', '<pre class="content">tool record [-a] --message "*first*" &lt;path&gt;...</pre>')}${section('Description', para('Creates a new record containing the current contents of the index and the given message describing the changes. The new record is a direct child of the current head, and the head moves to it.') + para('The content to be recorded can be given in several ways: by adding paths first, by naming them here, or by asking for every tracked file. A record with no change is refused unless asked for.'))}${section('Options', `<div class="dlist"><dl>${options}</dl></div>`)}${section('Examples', para('When recording your own work, the contents of modified files in your working tree are first stored in a staging area called the index, then written as one record.') + sphinx)}${section('Fields', list('Field'))}${section('Discussion', para('Though not required, it is a good idea to begin the message with a single short line summing up the change, then a blank line, then a more thorough description of why it was made.'))}</div></body></html>`;
  const content = pageContent(html, 'https://tools.example/docs/tool-record');
  const md = contentMarkdown(content);
  assert.is(content.kind, 'documentation');
  // Every section, not the options alone (the one container Readability finds, half of the page).
  assert.match(
    md,
    /## Name[\s\S]*## Synopsis[\s\S]*## Description[\s\S]*## Options[\s\S]*## Examples[\s\S]*## Fields[\s\S]*## Discussion/,
    md,
  );
  assert.not.match(md, /Reference|Guides/);
  // A `<pre>` without `<code>` is a fenced block, its text as written; Sphinx's block keeps its language.
  assert.match(md, /```\ntool record \[-a\] --message "\*first\*" <path>\.\.\.\n```/);
  assert.match(md, /```python\nimport tool\ntool\.record\(all=True\)\n```/);
});

test('a documentation page is read whole though its body holds most of its words: the intro and its code above it stay', () => {
  const long = Array.from(
    { length: 14 },
    (_, i) =>
      `<p>Step ${i} of the guide explains how the store keeps every record, which fields it writes to disk, and when a change reaches its readers.</p>`,
  ).join('');
  const html = `<html><head><title>open_store() - store 2.0 documentation</title></head><body><div class="sphinxsidebar"><ul><li><a href="/a">Index</a></li><li><a href="/b">Modules</a></li></ul></div><main><div class="layout__header"><section class="intro"><h1>open_store()</h1><p>The open_store() function opens a store in a folder and returns it.</p><div class="code-example"><pre class="brush: python">store = open_store("data")</pre></div></section></div><div class="layout__body"><section><h2>Concepts</h2>${long}</section><section><h2>See also</h2><p>The guide to writing records, and the guide to reading them back.</p></section></div></main></body></html>`;
  const content = pageContent(html, 'https://store.example/en/latest/open_store.html');
  const md = contentMarkdown(content);
  assert.is(content.kind, 'documentation');
  assert.match(md, /Step 13 of the guide/);
  assert.match(md, /function opens a store in a folder/, md);
  assert.match(md, /store = open_store\("data"\)/);
  assert.not.match(md, /Index|Modules/);
});

test("a form with nothing to fill in is a wrapper: a thread's comments written inside one each are its content", () => {
  const comment = (name: string, text: string) =>
    `<div class="thing comment"><p class="tagline"><a class="author" href="/u/${name}">${name}</a> <time datetime="2025-03-01T10:00:00Z">3 hours ago</time></p><form action="#" class="usertext"><input type="hidden" name="thing_id" value="t1_${name}"><div class="md"><p>${text}</p></div></form><ul class="buttons"><li><a href="#">reply</a></li></ul></div>`;
  const html = `<html><head><title>Winter on the ridge : camping</title><link rel="canonical" href="https://www.reddit.com/r/camping/comments/1abc/winter_on_the_ridge/"></head><body><div class="content" role="main"><div class="sitetable"><p class="title"><a href="/r/camping/comments/1abc/">Winter on the ridge</a></p></div><div class="commentarea">${comment('alder_walker', 'Pitched on the ridge twice in January: the wind is the problem, not the cold, so bring more guy lines than you think.')}${comment('birch_camper', 'A four season dome held for me at forty knots, but only after I buried the snow stakes and faced the door away from it.')}${['cedar_ranger', 'dune_hiker', 'elm_trekker'].map((name) => comment(name, `${name} here: a closed cell foam pad under the inflatable one kept the cold of the snow out all night.`)).join('')}</div><form class="search" action="/search"><input name="q" placeholder="Search"><p>Search the whole site for threads and comments on camping</p></form></div></body></html>`;
  const content = pageContent(html, 'http://127.0.0.1:1/p/1/');
  const md = contentMarkdown(content);
  assert.is(content.kind, 'forum');
  assert.match(
    md,
    /\*\*alder\\_walker\*\* · 3 hours ago\n\nPitched on the ridge[\s\S]*\*\*birch\\_camper\*\* · 3 hours ago\n\nA four season dome[\s\S]*\*\*elm\\_trekker\*\* · 3 hours ago\n\nelm\\_trekker here/,
    md,
  );
  // A form with a field is still a form (a search box is the site's).
  assert.not.match(md, /Search the whole site/);
});

test("what Bootstrap's d-none hides is no content, unless a breakpoint shows it (d-none d-md-block)", () => {
  const card = (i: number) =>
    `<div class="card"><h3><a href="/lights/${i}">Trail light ${i}</a></h3><p>Trail light ${i} throws ${i * 100} lumens for ${i + 2} hours on one charge.</p></div>`;
  const html = `<html><head><title>Bike lights</title></head><body><div class="d-none submenu"><ul><li><a href="/a">Helmets for road and trail riding</a></li><li><a href="/b">Gloves for cold and wet days</a></li></ul></div><main><h1>Bike lights</h1><p class="d-none d-md-block">Every light here is charged over USB and sealed against rain.</p><div class="grid">${[1, 2, 3, 4, 5].map(card).join('')}</div><div class="d-none"><p>Subscription to receive back-in-stock text messages failed, please try again in a few minutes.</p></div></main></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://lights.example/c/bike-lights'));
  assert.match(md, /Trail light 1[\s\S]*Trail light 5/);
  assert.match(md, /charged over USB/);
  assert.not.match(md, /Helmets for road|Subscription to receive/, md);
});

test('a link drawn as a button (btn, button, cta, role button) is an action, not content; a link in the text stays', () => {
  const section = (name: string) =>
    `<section><h2>${name}</h2><p>Our ${name.toLowerCase()} team plans the work with you and reports on it every week, in one place.</p><a class="btn btn-primary" href="/start">Get started</a></section>`;
  const html = `<html><head><title>Services</title></head><body><main><h1>Bookkeeping services</h1><p>Read <a href="/guide">our guide to the tax year</a> before your first call.</p>${['Payroll', 'Tax returns', 'Audits'].map(section).join('')}<div class="hero-cta"><a class="cta-link" href="/book">Book your discovery call</a><a role="button" href="/plans">See plans</a></div></main></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://books.example/services'));
  assert.match(md, /Payroll[\s\S]*Tax returns[\s\S]*Audits/);
  assert.match(md, /\[our guide to the tax year\]\(https:\/\/books\.example\/guide\)/);
  assert.not.match(md, /Get started|Book your discovery call|See plans/, md);
});

test("every tab's panel is the page's content, shown or not; a popover (drawn only when opened) is not", () => {
  const panel = (lang: string, shown: string) =>
    `<div role="tabpanel" id="tab-${lang}" ${shown}><pre><code class="language-${lang}">client.messages.create(to="+15550100", body="sent from ${lang}")</code></pre></div>`;
  const html = `<html><head><title>Send a message</title></head><body><div class="docs-content"><h1>Send your first message</h1><p>Each helper library sends a message with one call, once your account's keys are set in the environment.</p><div role="tablist"><button role="tab">Python</button><button role="tab">Ruby</button><button role="tab">Go</button></div>${panel('python', '')}${panel('ruby', 'hidden')}${panel('go', 'style="display:none"')}<p>The call answers the message's id, which its status page reads.</p></div><i-card popover id="push-prompt"><div role="tablist"><button>Chrome</button></div><div role="tabpanel"><p>Allow notifications in Chrome from the lock icon beside the address, then reload this page.</p></div></i-card></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://docs.example/docs/messaging/quickstart'));
  for (const lang of ['python', 'ruby', 'go']) assert.match(md, `\`\`\`${lang}\nclient.messages.create`, md);
  assert.not.match(md, /Allow notifications/, md);
});

test("a page builder's widget inside a tab's panel is that panel's content (a town's forms); a sidebar's widget is not", () => {
  const widget = (text: string) => `<div class="widget editor pageStyles"><div class="fr-view">${text}</div></div>`;
  const forms = [
    'Building Permit',
    'Complaint Form',
    'Excavation Permit',
    'Pool Registration',
    'Temporary Use Permit',
    'Contractor Sub-Contractor List',
    'Business Determination Form',
    'Storage Container',
  ]
    .map((f) => `${f} - PDF Fill-in`)
    .map((f, i) => `<li><a href="/DocumentCenter/View/${i}">${f}</a></li>`)
    .join('');
  const html = `<html><head><title>Building Department</title></head><body><div id="page"><h1>Building Department</h1><ol class="cpTabs"><li><a href="#t0" role="tab">Information</a></li><li><a href="#t1" role="tab">Forms</a></li></ol><div class="cpTabPanel" id="t0" role="tabpanel">${widget('<p>The department enforces the building code, issues permits for construction and remodeling, performs inspections, and registers contractors and businesses in town.</p><p>A permit is required for any construction, repair or restoration that costs over one thousand dollars, and for every fence, deck or shed whatever its cost.</p><p>Anyone found working without a permit may be issued a stop work order by the inspector.</p>')}</div><div class="cpTabPanel" id="t2" role="tabpanel" style="display: none;">${widget('<h2>Inspections</h2><p>Inspections are scheduled by phone at least one business day ahead, between eight in the morning and four in the afternoon.</p><p>Footings, framing, insulation and the final inspection are each made before the work that would hide them goes on, and a failed inspection is made again once the work is corrected.</p><p>Electrical and plumbing work is inspected by the county, whose inspectors call the owner to agree on a time.</p>')}</div><div class="cpTabPanel" id="t1" role="tabpanel" style="display: none;">${widget(`<h2>Permits and Forms</h2><ul>${forms}</ul>`)}</div><div class="cpTabPanel" id="t3" role="tabpanel" style="display: none;">${widget(`<h2>Licenses</h2><ul>${forms.replaceAll('PDF Fill-in', 'Printable PDF')}</ul>`)}</div><div class="widget widget_recent"><h3>Recent news</h3><p>The town pool opens on Saturday.</p></div></div></body></html>`;
  const text = contentText(pageContent(html, 'https://town.example/151/Building-Department'));
  for (const form of ['Building Permit - PDF Fill-in', 'Storage Container - Printable PDF'])
    assert.match(text, form, text);
  assert.match(text, /stop work order/, text);
  assert.match(text, /inspected by the county/, text);
  assert.not.match(text, /town pool opens/, text);
});

test("a service page's FAQ answers, closed in their accordion (aria-controls), are its content; a dialog opened so is not", () => {
  const qa = (i: number, closed: string) =>
    `<h3><button aria-expanded="false" aria-controls="faq-${i}">How long does job ${i} take?</button></h3><div id="faq-${i}" class="accordion__panel" ${closed}><p>Job ${i} takes about ${i} weeks from the first survey to the last coat of paint, weather allowing.</p></div>`;
  const html = `<html><head><title>Painting services</title></head><body><div class="page"><h1>House painting</h1><p>We paint houses inside and out, with our own crews, and guarantee the work for five years.</p><h2>Questions</h2>${qa(1, 'hidden')}${qa(2, 'aria-hidden="true"')}${qa(3, 'style="display: none;"')}<button aria-expanded="false" aria-controls="chat">Chat</button><div id="chat" role="dialog" hidden><p>Hello! Our assistant answers questions about quotes and visits at any hour.</p></div></div></body></html>`;
  const text = contentText(pageContent(html, 'https://paint.example/services/house-painting'));
  for (const i of [1, 2, 3]) assert.match(text, `Job ${i} takes about ${i} weeks`, text);
  assert.not.match(text, /Our assistant answers/, text);
});

test("a FAQ's answer is the element its control names that comes after it, when the page gives its id twice (a menu's too)", () => {
  const menu =
    '<div id="mobile"><ul><li><a href="#" aria-controls="content-1" aria-expanded="false">Why us</a><ul id="content-1" aria-hidden="true"><li><a href="/why">Overview</a></li></ul></li></ul></div>';
  const qa = (i: number) =>
    `<h3><a href="#" aria-controls="content-${i}" aria-expanded="false">Question ${i}: how much should I save?</a></h3><div id="content-${i}" aria-hidden="true"><p>Answer ${i}: a rule of thumb is to save enough to draw down most of the income you had before you retired.</p></div>`;
  const html = `<html><head><title>Retirement calculator</title></head><body><div class="page"><h1>Retirement calculator</h1>${menu}<p>Work out how much you need to retire, and how long your savings will last once you stop working.</p><h2>Frequently asked questions</h2>${[1, 2].map(qa).join('')}</div></body></html>`;
  const text = contentText(pageContent(html, 'https://bank.example/retirement/calculator'));
  for (const i of [1, 2]) assert.match(text, `Answer ${i}: a rule of thumb`, text);
});

test("a page builder's blocks named widget are the page, its FAQ block of a third of it counted among them", () => {
  const block = (h: string, p: string) =>
    `<div class="hs_cos_wrapper hs_cos_wrapper_widget hs_cos_wrapper_type_module"><section><h2>${h}</h2><p>${p}</p></section></div>`;
  const blocks = [
    ['Generate more qualified leads', 'Turn anonymous visitors into opportunities with forms that capture more leads.'],
    ['Automate your marketing', 'Put tedious tasks on autopilot while your team focuses on strategy.'],
    ['Report on what works', 'Prove which campaigns drive revenue with attribution across every channel.'],
    ['Personalize every page', 'Show each visitor the content that fits them, from one place.'],
  ].map(([h, p]) => block(h!, p!));
  const answer = (i: number) =>
    `<h3>Question ${i} about the marketing hub?</h3><p>Answer ${i}: the hub connects to your CRM, so every email, form and page knows the contact it is speaking to, and reports show what each campaign earned from first visit to closed deal.</p>`;
  const faq = `<div class="hs_cos_wrapper hs_cos_wrapper_widget hs_cos_wrapper_type_module"><section><h2>Frequently asked questions</h2>${[1, 2, 3].map(answer).join('')}</section></div>`;
  const html = `<html><head><title>Marketing software</title></head><body><div class="body-container"><h1>Marketing software</h1>${blocks.slice(0, 2).join('')}${faq}${blocks.slice(2).join('')}</div></body></html>`;
  const text = contentText(pageContent(html, 'https://crm.example/products/marketing'));
  for (const heading of ['Generate more qualified leads', 'Automate your marketing', 'Personalize every page'])
    assert.match(text, heading, text);
  assert.match(text, /Answer 3: the hub connects/, text);
});

test("a part that holds all its tab's panel is what the tab shows, though named like a shelf's filter; a shelf's filters beside its results in one panel go", () => {
  const panel = (i: number, name: string, text: string) =>
    `<div id="tab-${i}-panel" role="tabpanel" class="cmp-tabs__tabpanel"><div class="filter-menu-item-container"><h3>${name}</h3><p>${text}</p></div></div>`;
  const tile = (t: string, d: string) => `<div class="tile"><h3>${t}</h3><p>${d}</p></div>`;
  const html = `<html><head><title>Security services</title></head><body><div class="hero"><h1>Security services</h1><p>We help companies secure identities, data and workloads across every cloud they run on.</p></div><div class="grid">${tile('Advise', 'Plan your security with our consultants.')}${tile('Integrate', 'Put the right tools in place and connect them.')}${tile('Manage', 'Let our analysts run them for you.')}</div><div class="tabs"><h2>Our offers</h2><ol role="tablist" class="filter-cmp-tabs__tablist"><li role="tab" aria-controls="tab-1-panel">Threat management</li><li role="tab" aria-controls="tab-2-panel">Identity</li></ol>${panel(1, 'Threat management', 'Our analysts watch your networks day and night and answer an attack within the hour it starts.')}${panel(2, 'Identity and access', 'We move your staff to one sign-in that checks who they are and what each of them may open.')}</div><div class="cta"><h2>Talk to an expert</h2><p>Book a call with our team.</p></div></body></html>`;
  const text = contentText(pageContent(html, 'https://consulting.example/services/security'));
  assert.match(text, /answer an attack within the hour/, text);
  assert.match(text, /one sign-in that checks who they are/, text);
  const card = (i: number) =>
    `<li class="product-tile"><a href="/p/${i}">Carry-on spinner ${i}</a><p>Hard shell, four wheels, ${50 + i} litres, weighs ${2 + i / 10} kilograms.</p><span>$${100 + i}.99</span></li>`;
  const shop = `<html><head><title>Carry-on luggage</title></head><body><div class="plp"><h1>Carry-on luggage</h1><div class="tab-content"><div role="tabpanel" id="results"><div class="refinement-bar"><p>Sort by: price, rating, newest first, best sellers and brand names</p><p>Filter by colour, size, wheels, material and price</p></div><ul class="grid">${[1, 2, 3, 4, 5, 6].map(card).join('')}</ul></div></div></div></body></html>`;
  const shelf = contentText(pageContent(shop, 'https://luggage.example/collections/carry-on'));
  assert.match(shelf, /Carry-on spinner 6/, shelf);
  assert.not.match(shelf, /Filter by colour/, shelf);
});

test("a shelf's stars and count of ratings, hidden from screen readers inside a link that names them, are shown; a hidden part elsewhere is not", () => {
  const item = (i: number) =>
    `<li class="zg-item"><span>#${i}</span><a href="/dp/${i}">Novel number ${i} of the season</a><div><a aria-label="4.${i} out of 5 stars, ${i}1,483 ratings" href="/reviews/${i}"><i aria-hidden="true" class="a-icon"><span>4.${i} out of 5 stars</span></i> <span aria-hidden="true">${i}1,483</span></a></div><span>Paperback $1${i}.98</span><span aria-hidden="true">Sponsored placement ${i}</span></li>`;
  const html = `<html><head><title>Best sellers in books</title></head><body><div id="shelf"><h1>Best sellers in books</h1><p>Our most popular products based on sales, updated every hour.</p><ol>${[1, 2, 3, 4, 5, 6, 7, 8].map(item).join('')}</ol></div></body></html>`;
  const text = contentText(pageContent(html, 'https://books.example/best-sellers/books'));
  assert.match(text, /Novel number 8 of the season/, text);
  assert.match(text, /4\.3 out of 5 stars/, text);
  assert.match(text, /31,483/, text);
  assert.not.match(text, /Sponsored placement/, text);
});

test('an accordion drawn without ARIA (three hidden parts of text, each after its visible title) is read; a hidden menu of links and a lone hidden note are not', () => {
  const step = (i: number, title: string) =>
    `<div class="step"><div class="step-title" style="cursor: pointer">${i}. ${title}</div><div style="display: none;"><p>Step ${i} in detail: ${title.toLowerCase()} takes a week or two, and the installer sends you the papers to sign before anything is ordered, so that nothing is paid for that your roof cannot carry.</p></div></div>`;
  const menu = `<div class="menu"><span>Solar</span><div style="display: none"><a href="/a">Panels</a> <a href="/b">Batteries</a> <a href="/c">Inverters</a> <a href="/d">Financing and loans</a> <a href="/e">Installers near you</a> <a href="/f">Calculators</a></div></div>`;
  const html = `<html><head><title>Installing solar panels</title></head><body>${menu}<div class="guide"><h1>Installing solar panels: what to expect</h1><p>From the first visit to the day the panels switch on, an installation takes one to three months.</p>${['Engineering site visit', 'Permits and documents', 'Ordering the equipment', 'Installation day'].map((t, i) => step(i + 1, t)).join('')}<div><span>Note</span><div style="display:none"><p>This note is shown only to readers in the trial group of an experiment this page runs, and to nobody else.</p></div></div></div></body></html>`;
  const text = contentText(pageContent(html, 'https://solar.example/solar/installation-guide/'));
  for (const i of [1, 2, 3, 4]) assert.match(text, `Step ${i} in detail`, text);
  assert.not.match(text, /Batteries|Installers near you/, text);
  assert.not.match(text, /trial group/, text);
});

test("a disclosure control that names no panel opens the hidden part after it; a menu's control opens a menu", () => {
  const menu =
    '<div class="topbar"><a href="#" role="menuitem" aria-haspopup="true" aria-expanded="false">Accounts</a><div aria-hidden="true"><p>Open a checking account today and get a welcome bonus on your first deposit.</p></div></div>';
  const html = `<html><head><title>Retirement calculator</title></head><body><div class="page"><h1>Retirement calculator</h1>${menu}<p>Work out how much you need to retire, and how long your savings will last once you stop working.</p><div><a href="#" class="show-hide-open" aria-expanded="false">Methodology: how the calculator works</a></div><div class="hide" aria-hidden="true"><p>The calculator runs five thousand market trials from your answers and reports the balance reached in half of them.</p></div><a href="#" aria-expanded="false">Assumptions</a><div style="display: none"><p>Taxable gains are taxed at a capital gains rate of twenty percent before retirement.</p></div><button aria-expanded="false">Fees</button><div style="height:0;visibility:hidden"><p>An advisory fee of a quarter percent a year is taken from the balance each quarter.</p></div></div></body></html>`;
  const text = contentText(pageContent(html, 'https://bank.example/retirement/calculator'));
  assert.match(text, /five thousand market trials/, text);
  assert.match(text, /capital gains rate of twenty percent/, text);
  // Collapsed by its visibility (an animated panel's closed state) as by its display: the same test of a hiding style.
  assert.match(text, /advisory fee of a quarter percent/, text);
  assert.not.match(text, /welcome bonus/, text);
});

test("a service page's sections of short blocks are read whole though one container holds three quarters of them (its cards' titles)", () => {
  const card = (t: string, d: string) =>
    `<div class="card"><div class="card-header"><p class="h5">${t}</p></div><div class="card-body"><p>${d}</p></div></div>`;
  const cards = [
    [
      'Serverless inference for open models on demand',
      'Run open models on demand with no servers to manage and no commitments, billed by the token you use.',
    ],
    [
      'Batch inference for large workloads at night',
      'Process large workloads at a lower price, asynchronously, with results written to your bucket when done.',
    ],
    [
      'Dedicated endpoints on reserved hardware for teams',
      'Deploy a model on hardware reserved for you, with the speed and control a production team needs.',
    ],
    [
      'Fine-tuning on your own data and rules',
      'Tune open models on your own data to improve accuracy and control behaviour, without running training yourself.',
    ],
    [
      'GPU clusters from one to thousands of cards',
      'Scale from one instant cluster to thousands of accelerators, each tuned with our own kernels for speed.',
    ],
    [
      'Managed storage made for training and serving',
      'Object storage and parallel file systems made for training data, with no fees to move data out.',
    ],
  ]
    .map(([t, d]) => card(t!, d!))
    .join('');
  const html = `<html><head><title>Cloudco | The AI cloud</title></head><body><header><nav><a href="/">Home</a><a href="/pricing">Pricing</a></nav></header><main><section class="hero"><h1>Build what comes next on the AI cloud</h1><p>A full-stack platform for models from the first test to massive scale</p></section><section class="platform"><h2>The platform</h2><p>Faster inference and lower cost.</p>${cards}</section></main><footer><p>© Cloudco</p></footer></body></html>`;
  const text = contentText(pageContent(html, 'https://cloud.example/'));
  for (const title of [
    'Serverless inference for open models on demand',
    'Managed storage made for training and serving',
  ])
    assert.match(text, title, text);
  assert.match(text, /Build what comes next/, text);
  assert.not.match(text, /Pricing/, text);
});

test("a product's description declared in its JSON-LD is read when the page's markup lacks it (a script's shell)", () => {
  const description =
    '<h4>DARK ROAST FOR LONG DAYS.</h4><p>Our blend of arabica beans for a smooth flavour and robusta for strength is roasted dark in small batches, every week.</p>';
  const ld = (text: string) =>
    `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Harbour Roast', description: text, offers: { '@type': 'Offer', price: '19.99' } })}</script>`;
  const page = (head: string, main: string) =>
    `<html><head><title>Harbour Roast</title><meta property="og:type" content="product">${head}</head><body><div class="promo"><p>SAVE 40% ON CANNED LATTES WITH CODE EXTRA10 THIS WEEK ONLY</p></div><main><h1>Harbour Roast</h1>${main}<p class="price">$19.99</p></main></body></html>`;
  const shell = pageContent(page(ld(description), ''), 'https://roast.example/products/harbour-roast');
  assert.is(shell.kind, 'product');
  const md = contentMarkdown(shell);
  assert.match(md, /Harbour Roast[\s\S]*DARK ROAST FOR LONG DAYS\.[\s\S]*roasted dark in small batches/, md);
  // Written as plain text (lines) or URL-encoded, it is read too.
  for (const text of [
    'Dark roast for long days.\nOur blend of arabica beans for a smooth flavour and robusta for strength is roasted dark in small batches.',
    encodeURIComponent(
      'Our blend of arabica beans for a smooth flavour and robusta for strength is roasted dark in small batches.',
    ),
  ])
    assert.match(
      contentMarkdown(pageContent(page(ld(text), ''), 'https://roast.example/products/harbour-roast')),
      /robusta for strength is roasted dark in small batches/,
    );
  // Shown on the page already (worded as the page words it), it is not said twice.
  const shown = contentMarkdown(
    pageContent(
      page(
        ld(description),
        '<div class="description"><h4>Dark roast for long days</h4><p>Our blend of arabica beans for a smooth flavour &amp; robusta for strength is roasted dark in small batches, each week.</p></div>',
      ),
      'https://roast.example/products/harbour-roast',
    ),
  );
  assert.is(shown.match(/in small batches/g)?.length, 1, shown);
});

test("a card drawn in its article's header is content, and so is a teaser link hidden from screen readers alone", () => {
  const card = (i: number) =>
    `<article class="river"><a href="/news/${i}" aria-hidden="true" tabindex="-1"><img src="/t/${i}.jpg" alt=""></a><header><h2><a href="/news/${i}">Headphones story number ${i} of the week</a></h2><p class="desc"><a href="/news/${i}" aria-hidden="true" tabindex="-1">The teaser of story ${i} says what changed in this model and what it costs now.</a></p><div class="aux"><a href="/editor/${i}">Writer ${i}</a></div></header></article>`;
  const html = `<html><head><title>Headphones</title></head><body><header class="site"><nav><a href="/">Home</a><a href="/deals">Deals</a></nav></header><main><h1>Headphones</h1>${[1, 2, 3, 4, 5, 6].map(card).join('')}<div aria-hidden="true"><p>Advertisement placeholder text for the leaderboard slot.</p></div></main></body></html>`;
  const text = contentText(pageContent(html, 'https://news.example/topic/headphones'));
  for (const i of [1, 6]) {
    assert.match(text, `Headphones story number ${i} of the week`, text);
    assert.match(text, `The teaser of story ${i} says what changed`, text);
  }
  // The site's header and a block hidden from screen readers (an ad's placeholder) stay out.
  assert.not.match(text, /Deals|Advertisement placeholder/, text);
});

test("readers' comments are the content of a page that has little else (a link's discussion), not of a post", () => {
  const comment = (who: string, i: number) =>
    `<li class="comments_subtree"><div class="comment"><div class="byline"><a href="/~${who}">${who}</a></div><div class="comment_text"><p>${who} has run the new scheduler on ${i + 2} machines for a month and the tail latency fell by half against the old one.</p></div></div></li>`;
  const thread = ['ash', 'bay', 'cob', 'dew', 'elk'].map(comment).join('');
  const page = (own: string) =>
    `<html><head><title>A new scheduler</title></head><body><header><a href="/">Links</a></header><div class="story"><a href="https://elsewhere.example/scheduler">A new scheduler</a> <span class="domain">elsewhere.example</span></div>${own}<ol class="comments">${thread}</ol></body></html>`;
  const link = contentText(pageContent(page(''), 'https://links.example/s/abc/a_new_scheduler'));
  for (const who of ['ash', 'bay', 'cob', 'dew', 'elk'])
    assert.match(link, new RegExp(`${who} has run the new scheduler`), link);
  // A post of its own: the comments on it are the readers', not the page's.
  const text = Array.from({ length: 12 }, (_, i) => `The scheduler keeps run queue ${i} short by stealing work early.`);
  const post = contentText(
    pageContent(
      page(`<div class="post"><p>${text.join(' ')}</p></div>`),
      'https://links.example/s/abc/a_new_scheduler',
    ),
  );
  assert.match(post, /stealing work early/);
  assert.not.match(post, /has run the new scheduler/, post);
});

test("a thread's replies named comments are its posts; a question's comments, under each answer, are not", () => {
  const url = 'https://forum.example.org/discussion/42/the-mill-pond';
  const reply = (who: string, i: number) =>
    `<li class="Item ItemComment"><div class="Comment"><span class="Author"><a class="Username" href="/profile/${who}">${who}</a></span><time datetime="2025-03-0${i + 1}T10:00:00Z">March 2025</time><div class="Message"><p>${who} skated the mill pond on day ${i + 3} and the ice held, though the far end by the sluice gate creaked all afternoon.</p></div></div></li>`;
  const opening = Array.from({ length: 10 }, (_, i) => `The old mill pond froze over on day ${i} this winter.`);
  const vanilla = `<html><head><title>The mill pond</title></head><body><main><div class="Discussion"><span class="Author"><a class="Username" href="/profile/linc">linc</a></span><time datetime="2025-03-01T09:00:00Z">March 2025</time><div class="Message"><p>${opening.join(' ')}</p></div></div><div class="CommentsWrap"><h2>Comments</h2><ul class="MessageList Comments">${['ash', 'bay', 'cob'].map(reply).join('')}</ul></div></main></body></html>`;
  const thread = contentText(pageContent(vanilla, url));
  for (const who of ['ash', 'bay', 'cob']) assert.match(thread, new RegExp(`${who} skated the mill pond`), thread);
  // No author marked in the replies at all (Lemmy's): the replies are still the thread's.
  const bare = contentText(pageContent(vanilla.replace(/<span class="Author">.*?<\/time>/g, ''), url));
  assert.match(bare, /cob skated the mill pond/, bare);
  // Answers of their own, each with readers' remarks under it: the remarks go.
  const remark = (who: string) =>
    `<li class="comment"><span class="comment-copy">Did you try it with a larger pot first, ${who}? Mine overflowed twice and the brine ran all over the floor of the garage before I gave up on it.</span> <a class="comment-author" href="/u/${who}">${who}</a> <time datetime="2025-03-02T10:00:00Z">Mar 2</time></li>`;
  const answer = (who: string, i: number) =>
    `<div class="answer"><div class="answercell"><div class="post-text"><p>${who} answers: ${Array.from({ length: 8 }, (_, j) => `brine the bird for ${i + j} hours in cold salted water.`).join(' ')}</p></div><div class="user-info"><a class="username" href="/u/${who}">${who}</a> <time datetime="2025-03-01T09:00:00Z">Mar 1</time></div></div><div class="comments"><ul>${remark(`${who}x`)}${remark(`${who}y`)}</ul></div></div>`;
  const qa = `<html><head><title>How long to brine?</title></head><body><main><div class="question"><p>How long should a turkey sit in brine before it is roasted for a crowd of forty?</p><a class="username" href="/u/asker">asker</a></div>${['dew', 'elk', 'fir'].map(answer).join('')}</main></body></html>`;
  const answers = contentText(pageContent(qa, 'https://answers.example.org/questions/7/how-long-to-brine'));
  assert.match(answers, /fir answers: brine the bird/);
  assert.not.match(answers, /larger pot first/, answers);
});

test("a carousel's slides are all the page's content, shown one at a time; the copies a looping carousel adds are not", () => {
  const slide = (i: number, attrs: string) =>
    `<div class="slick-slide${attrs}"><blockquote>“Crew ${i} painted our house in ${i + 2} days and left it spotless.”</blockquote><p>Customer ${i}</p></div>`;
  const html = `<html><head><title>House painting</title></head><body><div class="page"><h1>House painting</h1><p>We paint houses inside and out, with our own crews, and guarantee the work for five years.</p><h2>What customers say</h2><div class="slick-track">${slide(3, ' slick-cloned" aria-hidden="true')}${slide(1, ' slick-active" aria-hidden="false')}${slide(2, '" aria-hidden="true')}${slide(3, '" aria-hidden="true" style="display:none')}${slide(1, ' slick-cloned" aria-hidden="true')}</div></div></body></html>`;
  const text = contentText(pageContent(html, 'https://paint.example/services/house-painting'));
  for (const i of [1, 2, 3]) assert.is(text.split(`Crew ${i} painted`).length - 1, 1, text);
});

test('a business that declares its services (an offer, an offer catalogue, a product for its review stars) or a software is a service page; a product with a price is a product', () => {
  const page = (...types: object[]) =>
    `<html><head><title>Ace Movers</title>${types.map((t) => `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', ...t })}</script>`).join('')}</head><body><h1>Ace Movers</h1><p>Local and long-distance moves, packing and storage, with a crew that has moved families across the city since 1998.</p></body></html>`;
  const kind = (html: string) => pageContent(html, 'https://movers.example/residential-moving').kind;
  const rating = { '@type': 'AggregateRating', ratingValue: 4.9, reviewCount: 320 };
  assert.is(
    kind(
      page(
        { '@type': 'LocalBusiness', name: 'Ace Movers' },
        { '@type': 'Product', name: 'Moving', aggregateRating: rating },
      ),
    ),
    'service',
  );
  assert.is(
    kind(
      page({
        '@type': 'LocalBusiness',
        name: 'Ace Movers',
        hasOfferCatalog: {
          '@type': 'OfferCatalog',
          itemListElement: [{ '@type': 'Offer', itemOffered: { '@type': 'Service', name: 'Packing' } }],
        },
      }),
    ),
    'service',
  );
  assert.is(
    kind(page({ '@type': 'SoftwareApplication', name: 'Ace Planner', offers: { '@type': 'Offer', price: 0 } })),
    'service',
  );
  assert.is(kind(page({ '@type': ['Product', 'SoftwareApplication'], name: 'Ace Planner' })), 'service');
  assert.is(
    kind(
      page(
        { '@type': 'LocalBusiness', name: 'Ace Movers' },
        { '@type': 'Product', name: 'Moving boxes, 10 pack', offers: { '@type': 'Offer', price: 19.5 } },
      ),
    ),
    'product',
  );
  assert.is(kind(page({ '@type': 'Product', name: 'Moving boxes, 10 pack', aggregateRating: rating })), 'product');
});

test("a thread whose posts are forum software's web components (Reddit's) is a forum's, whatever its address", () => {
  const body = (tag: string) =>
    `<html><head><title>Enameled pans</title></head><body><main><${tag} author="rowan_fixes"><h1>Enameled pans and metal</h1><p>Do metal turners scratch the enamel of a cast iron pan, and what do people use instead of plastic ones?</p></${tag}></main></body></html>`;
  assert.is(pageContent(body('shreddit-post'), 'https://example.com/p/1/').kind, 'forum');
  assert.is.not(pageContent(body('custom-post'), 'https://example.com/p/1/').kind, 'forum');
});

test("a client-side template's expressions are no content, but code keeps them", () => {
  const html = `<html><head><title>Trail tablet</title></head><body><main><h1>Trail tablet</h1><div class="price"><span>{{priceAnchor.priceWrapper.info.totalPrice}}</span><span>{{ price.monthly }} {{ price.term }}</span></div><p>A rugged tablet with a bright screen, a long-lasting battery and a case that shrugs off rain on the trail.</p><p>Templates write a value as <code>{{ price.total }}</code> and the page's script fills it in.</p><pre><code>&lt;span&gt;{{ price.total }}&lt;/span&gt;</code></pre></main></body></html>`;
  const md = contentMarkdown(pageContent(html, 'https://shop.example/p/1'));
  assert.not.ok(md.includes('priceAnchor'), md);
  assert.not.ok(md.includes('price.monthly'), md);
  assert.is(md.split('{{ price.total }}').length - 1, 2, md);
  assert.ok(md.includes('shrugs off rain'), md);
});

test.run();
