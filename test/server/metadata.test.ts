// Metadata rules of this round through the real server, read from the page as fetched (prerender=false) and as a
// real browser renders it: the day a page's address states, a person JSON-LD declares on a site of their name, and
// the name an author box opens with, a byline naming several people (docs/metadata.md).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ServerResponse } from 'node:http';
import { serveFixtures, type Fixture } from '../util/serve.ts';
import { startRefract, call, q } from '../util/refract.ts';
import type { App } from '../../server/app.ts';

let fx: Fixture;
let app: App;
const send = (res: ServerResponse, body: string) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
};
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

// A post re-saved two years on: its structured data states the later date, its address the day it was written.
const BLOG = `<!doctype html><html lang="en"><head><title>Unter uns: Montauk | Sam Bossley</title>
<meta property="og:site_name" content="Sam Bossley"><meta property="og:type" content="article">
${ld({ '@type': 'BlogPosting', headline: 'Unter uns: Montauk', datePublished: '2019-06-17T18:28:00+02:00', author: [{ '@type': 'Person', name: 'Sam Bossley' }] })}
</head><body><nav><a href="/">Sam Bossley</a><a href="/thoughts/">thoughts</a></nav>
<main><article><h1>Unter uns: Montauk</h1><p>The ferry left at dawn and the island was still asleep when we landed.</p></article></main></body></html>`;

// No date but its canonical address's; its writer named only in the box under the text, before a bio.
const SERVICE_POST = `<!doctype html><html lang="en"><head><title>SEO tips for therapists</title>
<link rel="canonical" href="https://practice.example/blog/2025/08/28/seo-tips"><meta property="og:type" content="article">
</head><body class="page hide-author"><nav><a href="/">Home</a><a href="/pricing">Pricing</a></nav>
<main><h1>SEO tips for therapists</h1><p>Clients search before they call, and the first page of results is where they look.</p>
<div class="blog_author-wrapper"><img src="/lauren.jpg" alt=""><div>Lauren Vetter</div>
<p>Lauren Vetter is a growth-focused marketing professional who writes about practices.</p></div></main></body></html>`;

// Two reporters: structured data lists them as `A; B`, the byline the reader sees joins them with `and`.
const TWO_BYLINES = `<!doctype html><html lang="en"><head><title>Rezoning plan plagues a council race</title>
${ld({
  '@type': 'NewsArticle',
  headline: 'Rezoning plan plagues a council race',
  author: [
    { '@type': 'Person', name: 'David Brand' },
    { '@type': 'Person', name: 'Ramsey Khalifeh' },
  ],
})}
</head><body><main><article><h1>Rezoning plan plagues a council race</h1>
<p class="byline">By <a href="/staff/david-brand">David Brand</a> and <a href="/staff/ramsey-khalifeh">Ramsey Khalifeh</a></p>
<p>The plan to rezone the waterfront came up at every debate of the campaign.</p></article></main></body></html>`;

test.before(async () => {
  fx = await serveFixtures({
    '/home/2017/7/12/montauk': (_, res) => send(res, BLOG),
    '/blog/seo-tips': (_, res) => send(res, SERVICE_POST),
    '/news/rezoning': (_, res) => send(res, TWO_BYLINES),
  });
  app = await startRefract();
});

test.after(async () => {
  await app?.close();
  await fx?.close();
});

for (const prerender of ['false', 'true'])
  test(`prerender=${prerender}: the day the address states, and a person declared on a site of their name`, async () => {
    const { status, body } = await call(
      app.freeUrl,
      `url=${q(`${fx.url}/home/2017/7/12/montauk`)}&prerender=${prerender}&force=true`,
    );
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.data.date, '2017-07-12T12:00:00.000Z');
    assert.is(body.data.author, 'Sam Bossley');
    assert.is(body.data.title, 'Unter uns: Montauk');
  });

for (const prerender of ['false', 'true'])
  test(`prerender=${prerender}: the canonical address's day, and an author box's name`, async () => {
    const { status, body } = await call(
      app.freeUrl,
      `url=${q(`${fx.url}/blog/seo-tips`)}&prerender=${prerender}&force=true`,
    );
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.data.date, '2025-08-28T12:00:00.000Z');
    assert.is(body.data.author, 'Lauren Vetter');
  });

for (const prerender of ['false', 'true'])
  test(`prerender=${prerender}: a byline naming two people is the author as the page writes it`, async () => {
    const { status, body } = await call(
      app.freeUrl,
      `url=${q(`${fx.url}/news/rezoning`)}&prerender=${prerender}&force=true`,
    );
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.data.author, 'David Brand and Ramsey Khalifeh');
  });

test.run();
