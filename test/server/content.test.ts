// The named outputs of a page's main content through the real server: `markdown`, `text` and `html` (the same
// content three ways), `embed=markdown` as text/markdown, the data-rule form giving the same Markdown, the whole
// page with `.main=false`, a page that is not an article, a bad option, and the outputs in a crawl job.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import { webhookReceiver } from '../util/webhooks.ts';
import type { App } from '../../server/app.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const KINDS = path.resolve(import.meta.dirname, '../../fixtures/sites/kinds');

let fx: Fixture;
const SECRET = 'webhook-secret-for-content-tests';
let app: App;
const send = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};

const ARTICLE = `<!doctype html><html lang="en"><head><title>Rivers of the North | Example News</title></head><body>
<header><nav><a href="/">Home</a><a href="/world">World</a><a href="/sport">Sport</a></nav></header>
<div class="share-bar"><a href="https://social.example/share">Share this story</a></div>
<main><article>
  <h1>Rivers of the North</h1>
  <p class="byline">By Ann Writer, 11/18/2019 10:04</p>
  <p>The northern rivers freeze early each year, and the towns along them plan their winters around the ice.</p>
  <figure><img src="/img/ice.jpg" alt="Ice on the river at dawn"><figcaption>The river at dawn (Photo: Agency)</figcaption></figure>
  <h2>How the ice forms</h2>
  <p>Cold air settles over the water for days before the first sheet appears, as <a href="/science/ice">the survey</a> explains.</p>
  <ul><li>First the edges freeze near the banks.</li><li>Then the middle closes over within a week.</li></ul>
  <table><thead><tr><th>River</th><th>Freeze date</th></tr></thead><tbody><tr><td>Alder</td><td>Nov 12</td></tr><tr><td>Birch</td><td>Nov 20</td></tr></tbody></table>
  <pre><code class="language-python">def frozen(temp):
    return temp &lt; 0</code></pre>
  <blockquote><p>The ice is the town's calendar, and everyone reads it the same way.</p></blockquote>
  <p>Residents say the first crossing on foot is the real start of winter, whatever the calendar says about it.</p>
  <img src="/pixel.gif" width="1" height="1" alt="">
  <h3>Related stories</h3>
  <ul><li><a href="/a">Lakes of the south</a></li><li><a href="/b">Winter roads</a></li><li><a href="/c">Ice fishing guide</a></li></ul>
</article>
<div class="letters"><p>Letters from readers: the ice came late in our valley this year, and the ferry ran until December.</p></div>
<aside><p>Sidebar: the weather this week in other places, with forecasts and maps for travellers.</p></aside></main>
<footer><p>© 2019 Example News. All rights reserved.</p></footer>
<script>window.tracking = true;</script>
</body></html>`;

const SHOP = `<!doctype html><html><head><title>Kettles | Shop</title></head><body><nav><a href="/">Home</a></nav>
<main><h1>Kettles</h1><ul><li>Steel kettle, 1.7 l, 39 EUR</li><li>Glass kettle, 1.5 l, 45 EUR</li></ul></main></body></html>`;

/** A shop drawn by script: without a browser, all it has is its footer. */
const SHELL = `<!doctype html><html><head><title>Wool Rug | Rug Shop</title></head><body><div id="root"></div>
<footer><a href="/help">Help centre</a>, <a href="/returns">Returns</a>, <a href="/privacy">Privacy policy</a></footer>
<script>document.getElementById('root').innerHTML = '<main><h1>Wool Rug</h1><p>A flat-woven rug of undyed wool, washable and made to order in four sizes.</p></main>';</script>
</body></html>`;

/** A thread whose reply quotes the whole first post and whose author signs each post in its body. */
const THREAD = (() => {
  const first = '<p>Which paddle length suits a touring kayak of five metres for a tall paddler on open water?</p>';
  const sig = '<p>Paddling the northern lakes since 1998, one portage at a time.</p>';
  const post = (author: string, body: string) =>
    `<article class="message message--post" data-author="${author}"><header class="message-attribution"><time datetime="2025-02-01T10:00:00Z">Feb 1, 2025</time></header><div class="bbWrapper">${body}</div></article>`;
  return `<!doctype html><html><head><title>Paddle length | Lake Forum</title><script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Paddle length"}</script></head><body><main><h1>Paddle length</h1>${post('fern_paddler', first + sig)}${post('gull_rower', `<blockquote>${first}</blockquote><p>A tall paddler on open water is happiest with a paddle of two hundred and thirty centimetres.</p>`)}${post('fern_paddler', `<p>Thanks, I tried a borrowed paddle of that length on Sunday and the stroke felt easy.</p>${sig}`)}</main></body></html>`;
})();

const STORY =
  '<p>The harbour was quiet that morning, and the boats lay still in the grey water while gulls circled overhead.</p><p>By noon the wind had changed and the fishermen hurried to their nets before the storm came in.</p>';
/** The same story in every shape HTML allows: tags left out, a fragment, XHTML served as HTML, a frameset. */
const SHAPES: Record<string, string> = {
  'no-tags': `<!doctype html><title>Linked only</title><h1>Linked only</h1>${STORY}`,
  'no-body': `<!doctype html><html><head><title>Linked only</title></head><h1>Linked only</h1>${STORY}</html>`,
  'no-head': `<html><title>Linked only</title><body><h1>Linked only</h1>${STORY}</body></html>`,
  fragment: `<h1>Linked only</h1>${STORY}`,
  xhtml: `<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Linked only</title></head><body><h1>Linked only</h1>${STORY}</body></html>`,
  deep: `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(10_000)}${STORY}${'</div>'.repeat(10_000)}</body></html>`,
  frameset: `<!doctype html><html><head><title>Linked only</title></head><frameset cols="50%,50%"><frame src="/left.html"><frame src="/right.html"><noframes>${STORY}</noframes></frameset></html>`,
};

test.before(async () => {
  fx = await serveFixtures({
    '/article': (_, res) => send(res, ARTICLE),
    '/kinds': (req, res) =>
      send(res, readFileSync(path.join(KINDS, `${new URL(req.url!, 'http://x').searchParams.get('k')}.html`), 'utf8')),
    '/shop': (_, res) => send(res, SHOP),
    '/shell': (_, res) => send(res, SHELL),
    '/thread': (_, res) => send(res, THREAD),
    '/shape': (req, res) => send(res, SHAPES[new URL(req.url!, 'http://x').searchParams.get('s')!]!),
    '/notes.txt': (_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Harbour notes\n\nThe boats <stayed> in & the gulls circled.');
    },
    '/pixel.png': (_, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(
        Buffer.from(
          '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2b9a8e10000000049454e44ae426082',
          'hex',
        ),
      );
    },
  });
  app = await startRefract({ REFRACT_WEBHOOK_SECRET: SECRET });
});

test.after(async () => {
  await app.close();
  await fx.close();
});

const url = () => q(`${fx.url}/article`);

test('markdown: the article for a language model, title once, structure kept, the site around it left out', async () => {
  const res = await call(app.freeUrl, `url=${url()}&markdown&meta=false`);
  assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const md = res.body.data.markdown as string;
  assert.ok(md.startsWith('# Rivers of the North\n'), md.slice(0, 80));
  assert.is(md.split('Rivers of the North').length - 1, 1, 'the title once');
  assert.match(md, /^## How the ice forms$/m);
  assert.match(md, /^- First the edges freeze near the banks\.$/m);
  assert.match(md, /\| River \| Freeze date \|/);
  assert.match(md, /```python\ndef frozen\(temp\):\n {4}return temp < 0\n```/);
  assert.match(md, /^> The ice is the town's calendar/m);
  assert.match(md, new RegExp(`\\[the survey\\]\\(${fx.url}/science/ice\\)`), 'links absolute');
  assert.match(
    md,
    new RegExp(`!\\[Ice on the river at dawn\\]\\(${fx.url}/img/ice\\.jpg\\)`),
    'the content image kept',
  );
  for (const gone of [
    'Home',
    'Share this story',
    'Ann Writer',
    'Photo: Agency',
    'pixel.gif',
    'Related stories',
    'Lakes of the south',
    'Sidebar',
    'Letters from readers',
    'All rights reserved',
    'tracking',
  ]) {
    assert.not.ok(md.includes(gone), `${gone} is not content:\n${md}`);
  }
  assert.not.match(md, /\[\]\(/, 'no empty links');
  const rule = await call(app.freeUrl, `url=${url()}&data.body.attr=markdown&meta=false`);
  assert.is(rule.body.data.body, md, 'the data-rule form gives the same content');
});

test('a page drawn by script: empty outputs when it is fetched (nothing to read, its title in data.title), its content when a browser draws it', async () => {
  const fetched = await call(app.freeUrl, `url=${q(`${fx.url}/shell`)}&markdown&text&html&prerender=false`);
  assert.is(fetched.status, 200, JSON.stringify(fetched.body).slice(0, 300));
  for (const output of ['markdown', 'text', 'html']) assert.is(fetched.body.data[output], '', output);
  assert.match(fetched.body.data.title as string, /^Wool Rug/);
  const drawn = await call(app.freeUrl, `url=${q(`${fx.url}/shell`)}&markdown&prerender=true&meta=false`);
  assert.is(drawn.status, 200, JSON.stringify(drawn.body).slice(0, 300));
  assert.match(drawn.body.data.markdown as string, /^# Wool Rug\n\nA flat-woven rug of undyed wool/);
  assert.not.match(drawn.body.data.markdown as string, /Help centre|Privacy policy/);
});

test('a thread through the server says nothing twice: the quoted post and the signature once, each post its author line', async () => {
  const res = await call(app.freeUrl, `url=${q(`${fx.url}/thread`)}&markdown&text&html&meta=false`);
  assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const { pageType, markdown, text, html } = res.body.data;
  assert.is(pageType, 'forum');
  const count = (out: string, part: string) => out.split(part).length - 1;
  for (const out of [markdown, text, html]) {
    assert.is(count(out, 'Which paddle length suits'), 1, out);
    assert.is(count(out, 'Paddling the northern lakes'), 1, out);
    assert.ok(out.includes('two hundred and thirty centimetres') && out.includes('borrowed paddle'), out);
  }
  // Both of one author's posts keep their line, though the two lines say the same.
  assert.is(count(markdown, '**fern\\_paddler** · Feb 1, 2025'), 2, markdown);
  // The same when Debian's Chromium draws the page.
  const drawn = await call(app.freeUrl, `url=${q(`${fx.url}/thread`)}&markdown&prerender=true&meta=false`);
  assert.is(drawn.status, 200, JSON.stringify(drawn.body).slice(0, 300));
  assert.is(count(drawn.body.data.markdown, 'Which paddle length suits'), 1, drawn.body.data.markdown);
  assert.is(count(drawn.body.data.markdown, '**fern\\_paddler** · Feb 1, 2025'), 2, drawn.body.data.markdown);
});

test('text and html: the same content without markup, and as clean HTML', async () => {
  const res = await call(app.freeUrl, `url=${url()}&text&html&markdown&meta=false`);
  assert.is(res.status, 200);
  const { text, html, markdown } = res.body.data as { text: string; html: string; markdown: string };
  assert.ok(text.startsWith('Rivers of the North\n\nThe northern rivers freeze early'), text.slice(0, 120));
  assert.match(text, /^First the edges freeze near the banks\.$/m);
  assert.match(text, /as the survey explains\./);
  assert.match(text, /def frozen\(temp\):\n {4}return temp < 0/);
  for (const markup of ['](', '**', '# ', '<p', '<a ', '| River'])
    assert.not.ok(text.includes(markup), `no ${markup} in text`);
  assert.ok(html.startsWith('<h1>Rivers of the North</h1>'), html.slice(0, 120));
  assert.match(html, new RegExp(`<a href="${fx.url}/science/ice">the survey</a>`));
  assert.match(html, /<table>/);
  for (const gone of ['<script', 'Share this story', 'Sidebar', 'Lakes of the south'])
    assert.not.ok(html.includes(gone), gone);
  // The same sentences in all three forms.
  for (const sentence of ['Cold air settles over the water for days', 'Residents say the first crossing on foot']) {
    for (const form of [text, html, markdown]) assert.ok(form.includes(sentence), sentence);
  }
});

test('embed=markdown answers text/markdown, embed=text text/plain; HTML is served as text', async () => {
  const md = await call(app.freeUrl, `url=${url()}&markdown&meta=false&embed=markdown`);
  assert.is(md.status, 200);
  assert.is(md.headers.get('content-type'), 'text/markdown; charset=utf-8');
  assert.ok(md.raw.toString('utf8').startsWith('# Rivers of the North\n'));
  const text = await call(app.freeUrl, `url=${url()}&text&meta=false&embed=text`);
  assert.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.ok(text.raw.toString('utf8').startsWith('Rivers of the North\n'));
  const html = await call(app.freeUrl, `url=${url()}&html&meta=false&embed=html`);
  assert.is(html.headers.get('content-type'), 'text/plain; charset=utf-8');
});

test('.main=false converts the whole page without its navigation; a page that is no article still gives its content', async () => {
  const whole = (await call(app.freeUrl, `url=${url()}&markdown.main=false&meta=false`)).body.data.markdown as string;
  assert.match(whole, /Letters from readers/, 'the rest of the page too');
  assert.not.match(whole, /\[Home\]/, 'without navigation');
  const shop = await call(app.freeUrl, `url=${q(`${fx.url}/shop`)}&markdown&text&meta=false`);
  assert.match(shop.body.data.markdown, /Steel kettle, 1\.7 l, 39 EUR/);
  assert.match(shop.body.data.text, /Glass kettle, 1\.5 l, 45 EUR/);
});

test('every legal shape of a document gives its content in all three outputs (tags left out, fragment, XHTML, frameset)', async () => {
  for (const shape of Object.keys(SHAPES).filter((s) => s !== 'deep')) {
    const res = await call(
      app.freeUrl,
      `url=${q(`${fx.url}/shape?s=${shape}`)}&markdown&text&html&meta=false&prerender=false`,
    );
    assert.is(res.status, 200, shape);
    const { markdown, text, html } = res.body.data;
    for (const [name, out] of [
      ['markdown', markdown],
      ['text', text],
      ['html', html],
    ] as const) {
      assert.match(out, /The harbour was quiet that morning/, `${shape} ${name}: ${JSON.stringify(out)}`);
      assert.match(out, /By noon the wind had changed/, `${shape} ${name}`);
    }
    if (shape !== 'frameset') assert.match(markdown, /^# Linked only\n/, `${shape}: ${markdown}`);
  }
});

test('a page nested 10,000 elements deep answers metadata and its content (it was 500 EFATAL: a stack overflow)', async () => {
  const res = await call(app.freeUrl, `url=${q(`${fx.url}/shape?s=deep`)}&markdown&prerender=false`);
  assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  assert.is(res.body.data.title, 'Deep');
  assert.match(res.body.data.markdown, /The harbour was quiet that morning/);
  assert.is(res.body.warnings, undefined);
});

test('a text target is its own content; an image says it has no HTML content, with no internals named', async () => {
  const res = await call(app.freeUrl, `url=${q(`${fx.url}/notes.txt`)}&markdown&text&html&meta=false`);
  assert.is(res.status, 200);
  assert.is(res.body.data.markdown, 'Harbour notes\n\nThe boats <stayed> in & the gulls circled.');
  assert.is(res.body.data.text, res.body.data.markdown);
  assert.is(res.body.data.html, '<pre>Harbour notes\n\nThe boats &lt;stayed&gt; in &amp; the gulls circled.</pre>');
  assert.is(res.body.warnings, undefined);
  const image = await call(app.freeUrl, `url=${q(`${fx.url}/pixel.png`)}&markdown&meta=false`);
  assert.is(image.status, 200);
  assert.is(image.body.data.markdown, null);
  assert.equal(
    image.body.warnings.map((w: { message: string }) => w.message),
    ['The target is image/png, not an HTML page: it has no markdown content'],
  );
});

test('pageType beside the content: each kind of page says its kind, and the three outputs hold the same content', async () => {
  const want: Record<string, [string, string, string]> = {
    forum: ['forum', 'four season dome earns its weight', 'Sent from my phone'],
    product: ['product', 'Hand wash cold', 'Add to cart'],
    listing: ['listing', 'first frogspawn', 'Next page'],
    collection: ['collection', 'Copper Camp Kettle', 'Best selling'],
    service: ['service', 'How long does a build take', 'Canal Street'],
    docs: ['documentation', 'streamkit read data.csv', 'On this page'],
    // A SaaS page (an application with its price) whose customer stories are a looping carousel's hidden slides.
    saas: ['service', 'nine days sooner', 'Careers'],
    // A product that React's server rendering streamed in after the shell (hidden until its script moves it).
    streamed: ['product', 'grips wet rock', 'Loading the product skeleton'],
    // A shop drawn by script: its description is the one its JSON-LD declares (its buy box stays out).
    'shell-product': ['product', 'roasted dark in small batches', 'Add to cart'],
  };
  for (const [file, [kind, inside, outside]] of Object.entries(want)) {
    const res = await call(app.freeUrl, `url=${q(`${fx.url}/kinds?k=${file}`)}&markdown&text&html&meta=false`);
    assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    const { pageType, markdown, text, html } = res.body.data;
    assert.is(pageType, kind, file);
    for (const out of [markdown, text, html]) {
      assert.ok(out.includes(inside), `${file}: ${inside}`);
      assert.not.ok(out.includes(outside), `${file}: ${outside}`);
    }
    // A carousel's every slide once: the copies a looping carousel adds are not read twice.
    if (file === 'saas') assert.is(markdown.split('Mill Lane').length - 1, 1, markdown);
    // A service page's steps in an accordion drawn without ARIA (each hidden by its style after its title) are read.
    if (file === 'service')
      for (const out of [markdown, text, html]) assert.ok(out.includes('Step three in detail'), out);
  }
  // A page whose signals say nothing (this article declares no type) answers null; the key is there whenever content is asked for.
  assert.is((await call(app.freeUrl, `url=${url()}&text&meta=false`)).body.data.pageType, null);
  const shop = await call(app.freeUrl, `url=${q(`${fx.url}/shop`)}&markdown.main=false&meta=false`);
  assert.ok('pageType' in shop.body.data);
});

test('a bad option is 400 EINVALQUERY naming it', async () => {
  const res = await call(app.freeUrl, `url=${url()}&markdown.main=maybe`);
  assert.is(res.status, 400);
  assert.is(res.body.code, 'EINVALQUERY');
  assert.match(res.body.message, /markdown\.main/);
});

test('in a crawl job: every page line carries the named output', async () => {
  const hook = await webhookReceiver(SECRET);
  try {
    const post = await fetch(`${app.proUrl}/crawls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'test-key' },
      body: JSON.stringify({
        urls: [`${fx.url}/article`, `${fx.url}/shop`],
        query: 'markdown&meta=false',
        webhook: { url: hook.url },
      }),
    });
    assert.is(post.status, 202);
    const { data } = (await post.json()) as { data: { url: string } };
    // The job's end is told by its webhook (no polling).
    await hook.when((d) => ['crawl.completed', 'crawl.failed', 'crawl.cancelled'].includes(d.event.type));
    const status = (
      (await (await fetch(`${app.proUrl}${data.url}`, { headers: { 'x-api-key': 'test-key' } })).json()) as {
        data: { status: string };
      }
    ).data.status;
    assert.is(status, 'completed');
    const lines = (
      (await (await fetch(`${app.proUrl}${data.url}/results`, { headers: { 'x-api-key': 'test-key' } })).json()) as {
        data: { results: { url: string; data: { markdown: string } }[] };
      }
    ).data.results;
    assert.is(lines.length, 2);
    const article = lines.find((l) => l.url.endsWith('/article'))!;
    assert.ok(article.data.markdown.startsWith('# Rivers of the North\n'));
    assert.match(lines.find((l) => l.url.endsWith('/shop'))!.data.markdown, /Steel kettle/);
  } finally {
    await hook.close();
  }
});

test.run();
