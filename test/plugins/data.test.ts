import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { serveFixtures, recordingServer, socketProbe, type Fixture } from '../util/serve.ts';
import { startHandlers, call, q, type Handlers } from '../util/refract.ts';

let fx: Fixture;
let app: Handlers;

/** Flattens nested rules into dotted query parameters, as Microlink's client does. */
function flatten(value: unknown, prefix: string, out: URLSearchParams): URLSearchParams {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, `${prefix}.${k}`, out);
  } else out.append(prefix, String(value));
  return out;
}

async function extract(page: string, rules: Record<string, unknown>, extra = '') {
  const query = flatten(rules, 'data', new URLSearchParams({ url: `${fx.url}/sites/data/${page}` }));
  if (!extra.includes('meta=')) query.set('meta', 'false');
  return call(app.free, `${query}${extra}`);
}

async function data(page: string, rules: Record<string, unknown>, extra = '') {
  const res = await extract(page, rules, extra);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

test.before(async () => {
  fx = await serveFixtures();
  app = await startHandlers();
});

test.after(async () => {
  await app.close();
  await fx.close();
});

test('attr: any attribute, html, outerHTML, text, val, json, tagName, and attribute fallbacks', async () => {
  const d = await data('product.html', {
    sku: { selector: '#name', attr: 'data-sku' },
    html: { selector: '.desc' },
    outer: { selector: '.desc p', attr: 'outerHTML' },
    text: { selector: '.desc', attr: 'text' },
    size: { selector: 'input[name=size]', attr: 'val' },
    color: { selector: 'select[name=color]', attr: 'val' },
    note: { selector: 'textarea', attr: 'val' },
    state: { selector: '#state', attr: 'json' },
    tag: { selector: '.price', attr: 'tagName' },
    amount: { selector: '.price', attr: ['data-missing', 'data-amount'] },
  });
  assert.is(d.sku, 'TR-3');
  assert.is(d.html, '<p>Grip <b>for</b> wet   rock.</p>');
  assert.is(d.outer, '<p>Grip <b>for</b> wet   rock.</p>');
  assert.is(d.text, 'Grip for wet rock.');
  assert.is(d.size, '42');
  assert.is(d.color, 'blue');
  assert.is(d.note, 'Fast shipping');
  assert.equal(d.state, { stock: 12, tags: ['trail', 'light'] });
  assert.is(d.tag, 'P');
  assert.is(d.amount, '1299.5');
  // meta=false: only the rules' fields (and the response facts) come back.
  assert.is(d.title, undefined);
});

test('typed values without attr are read from the element text, not its escaped HTML', async () => {
  const d = await data('product.html', {
    sale: { selector: '.sale', type: 'number' },
    saleHtml: { selector: '.sale' },
    saleText: { selector: '.sale', type: 'string' },
    inStock: { selector: '.stock', type: 'boolean' },
  });
  // `$` is escaped in cheerio's HTML serialization (`&#x24;19.99`): a number read from it was 24.
  assert.is(d.sale, 19.99);
  assert.is(d.inStock, true);
  // Untyped (and string) rules keep their HTML default.
  assert.is(d.saleHtml, '$19.99 &amp; 5 left');
  assert.is(d.saleText, '$19.99 &amp; 5 left');
});

test('type: strings, numbers, booleans, dates, urls and the validating types', async () => {
  const d = await data('product.html', {
    name: { selector: 'h1', attr: 'text', type: 'string' },
    price: { selector: '.price', attr: 'text', type: 'number' },
    old: { selector: '.old-price', attr: 'text', type: 'number' },
    inStock: { selector: '.stock', attr: 'text', type: 'boolean' },
    soldOut: { selector: '.sold-out', attr: 'text', type: 'boolean' },
    released: { selector: '.released', attr: 'datetime', type: 'date' },
    maker: { selector: '.maker', attr: 'href', type: 'url' },
    email: { selector: '.mail', attr: 'href', type: 'email' },
    ip: { selector: '.server-ip', attr: 'text', type: 'ip' },
    badIp: { selector: '.bad-ip', attr: 'text', type: 'ip' },
    pattern: { selector: '.pattern', attr: 'text', type: 'regexp' },
    badPattern: { selector: '.bad-pattern', attr: 'text', type: 'regexp' },
    offer: { selector: 'script[type="application/ld+json"]', attr: 'json', type: 'object' },
    notObject: { selector: 'h1', attr: 'text', type: 'object' },
    title: { selector: 'title', attr: 'text', type: 'title' },
    description: { selector: 'meta[name=description]', attr: 'content', type: 'description' },
    author: { selector: 'meta[name=author]', attr: 'content', type: 'author' },
    publisher: { selector: 'meta[name=publisher]', attr: 'content', type: 'publisher' },
    lang: { selector: '.lang-tag', attr: 'text', type: 'lang' },
    auto: { selector: '.stock', attr: 'text', type: 'auto' },
  });
  assert.is(d.name, 'Trail Runner 3');
  assert.is(d.price, 1299.5);
  assert.is(d.old, 1450);
  assert.is(d.inStock, true);
  assert.is(d.soldOut, false);
  assert.is(d.released, '2024-03-05T10:00:00.000Z');
  assert.is(d.maker, `${fx.url}/makers/northwind?ref=shoe`);
  assert.is(d.email, 'support@northwind.example');
  assert.is(d.ip, '203.0.113.7');
  assert.is(d.badIp, null);
  assert.is(d.pattern, '^TR-\\d+$');
  assert.is(d.badPattern, null);
  assert.equal(d.offer, {
    '@type': 'Product',
    name: 'Trail Runner 3',
    offers: { price: '129.90', priceCurrency: 'EUR' },
  });
  assert.is(d.notObject, null);
  assert.is(d.title, 'Trail Runner 3 | Northwind Outfitters');
  assert.is(d.description, 'A light trail shoe & more.');
  assert.is(d.author, 'Ana Lima');
  assert.is(d.publisher, 'Northwind Outfitters');
  assert.is(d.lang, 'de');
  assert.is(d.auto, 'yes');
});

test('type: media types resolve, probe and validate (image, logo, video, audio)', async () => {
  const d = await data('product.html', {
    photo: { selector: '.photo', attr: 'src', type: 'image' },
    missing: { selector: '.missing', attr: 'src', type: 'image' },
    logo: { selector: 'link[rel=icon]', attr: 'href', type: 'logo' },
    clip: { selector: '.clip', attr: 'href', type: 'video' },
    song: { selector: '.song', attr: 'href', type: 'audio' },
    notVideo: { selector: '.photo', attr: 'src', type: 'video' },
  });
  assert.is(d.photo.url, `${fx.url}/sites/data/images/shoe.png`);
  assert.is(d.photo.type, 'png');
  assert.ok(d.photo.width > 0 && d.photo.height > 0 && d.photo.size > 0, JSON.stringify(d.photo));
  assert.is(d.missing, null, 'a 404 image is not an image');
  assert.is(d.logo.url, `${fx.url}/sites/data/images/logo.png`);
  assert.ok(d.logo.width > 0);
  assert.is(d.clip.type, 'mp4');
  assert.ok(d.clip.duration > 0, JSON.stringify(d.clip));
  assert.is(d.song.type, 'mp3');
  assert.ok(d.song.duration > 0, JSON.stringify(d.song));
  assert.is(d.notVideo, null);
});

test('fallbacks, selector lists, nesting, and selectorAll collections', async () => {
  const d = await data('product.html', {
    price: [
      { selector: '.sale-price', attr: 'text', type: 'number' },
      { selector: '.price', attr: 'nothing-here' },
      { selector: '.old-price', attr: 'text', type: 'number' },
    ],
    heading: { selector: ['.no-such', 'h1'], attr: 'text' },
    reviews: {
      selectorAll: '.review',
      attr: {
        title: { selector: 'h3', attr: 'text' },
        stars: { selector: '.stars', attr: 'text', type: 'number' },
        link: { selector: 'a', attr: 'href', type: 'url' },
      },
    },
    stars: { selectorAll: '.stars', attr: 'text', type: 'number' },
    first: { selector: '.review', attr: { title: { selector: 'h3', attr: 'text' } } },
    none: { selectorAll: '.no-such', attr: 'text' },
  });
  assert.is(d.price, 1450);
  assert.is(d.heading, 'Trail Runner 3');
  assert.equal(d.reviews, [
    { title: 'Great grip', stars: 5, link: `${fx.url}/r/1` },
    { title: 'Runs small', stars: 3, link: `${fx.url}/r/2` },
    { title: 'No score', stars: null, link: `${fx.url}/r/3` },
  ]);
  assert.equal(d.stars, [5, 3]);
  assert.equal(d.first, { title: 'Great grip' });
  assert.is(d.none, null);
});

test('rules override metadata fields of the same name; with meta on, both come back', async () => {
  const d = await data(
    'product.html',
    { title: { selector: 'h1', attr: 'text' }, sku: { selector: '#name', attr: 'data-sku' } },
    '&meta=true',
  );
  assert.is(d.title, 'Trail Runner 3');
  assert.is(d.sku, 'TR-3');
  assert.is(d.publisher, 'Northwind Outfitters');
});

test('markdown of the whole page keeps the article (headings, lists, links, code, tables) and drops navigation', async () => {
  const d = await data('doc.html', { content: { attr: 'markdown' } });
  const md: string = d.content;
  assert.match(md, /^# Streams in Node/m);
  assert.match(md, /^## Kinds of streams$/m);
  assert.match(md, /^### Order of steps$/m);
  assert.match(md, /^- Readable streams produce data\.$/m);
  assert.match(md, /^1\. Open the source\.$/m);
  assert.ok(md.includes(`[stream documentation](${fx.url}/docs/stream)`), md);
  assert.ok(
    md.includes(
      "```js\nimport { pipeline } from 'node:stream/promises';\nawait pipeline(source, gzip, destination);\n```",
    ),
    md,
  );
  assert.match(md, /\| Kind \| Direction \|/);
  assert.match(md, /`pipeline`/);
  for (const boilerplate of ['About us', 'Popular posts', 'Privacy policy', 'appState'])
    assert.not.ok(md.includes(boilerplate), `${boilerplate} in\n${md}`);
});

test('markdown of a selection, and embed of a markdown field answers text/markdown', async () => {
  const d = await data('doc.html', { steps: { selector: 'ol', attr: 'markdown' } });
  assert.match(d.steps, /^1\. Open the source\.\n2\. Transform it\.\n3\. Write it out\.$/);
  const res = await extract('doc.html', { content: { attr: 'markdown' } }, '&embed=content');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/markdown/);
  assert.match(res.raw.toString('utf8'), /^# Streams in Node/);
  const html = await extract('doc.html', { body: { selector: 'article' } }, '&embed=body');
  assert.match(
    html.headers.get('content-type') ?? '',
    /^text\/plain/,
    'target HTML is never served as HTML from this origin',
  );
});

test('evaluate runs in the page (browser) and is typed like any rule', async () => {
  const d = await data('doc.html', {
    version: { evaluate: 'window.appState.version' },
    count: { evaluate: 'window.appState.items.length', type: 'number' },
    headings: { evaluate: "[...document.querySelectorAll('h2')].map((h) => h.textContent)" },
  });
  assert.is(d.version, '4.2.0');
  assert.is(d.count, 3);
  assert.equal(d.headings, ['Kinds of streams', 'Piping']);
});

test('evaluate cannot reach private addresses: fetch and WebSockets pass the SSRF guard', async () => {
  // 127.0.0.2 is loopback but not on the tests' allowlist (127.0.0.1), so it stands for any private host.
  const blocked = await recordingServer('127.0.0.2');
  const allowed = await recordingServer('127.0.0.1');
  try {
    const d = await data('doc.html', {
      fetched: { evaluate: `fetch('http://${blocked.url}/secret').then(() => 'reached', () => 'refused')` },
      socket: { evaluate: socketProbe(blocked.url) },
      allowedSocket: { evaluate: socketProbe(allowed.url) },
    });
    assert.is(d.fetched, 'refused');
    assert.is(d.socket, 'refused');
    assert.equal(blocked.seen, [], 'nothing reached the private host');
    assert.is(d.allowedSocket, 'open');
    assert.equal(allowed.seen, ['ws /live']);
  } finally {
    await blocked.close();
    await allowed.close();
  }
});

test('windows a page opens pass the SSRF guard too', async () => {
  const blocked = await recordingServer('127.0.0.2');
  try {
    // The private popup opens first; the same-origin one after it is awaited, so both have been requested by then.
    const d = await data('doc.html', {
      opened: {
        evaluate: `(async () => {
          window.open('http://${blocked.url}/popup');
          const w = window.open('/sites/article/index.html?popup-probe');
          await new Promise((resolve) => w.addEventListener('load', resolve));
          return w.document.title;
        })()`,
      },
    });
    assert.is(d.opened, 'Fallback Title | The Daily Fixture');
    assert.ok(fx.hits.includes('/sites/article/index.html?popup-probe'));
    assert.equal(blocked.seen, [], 'nothing reached the private host');
  } finally {
    await blocked.close();
  }
});

test('an evaluate that never settles is cut off: the other outputs come back, with a typed warning', async () => {
  const res = await extract('doc.html', { stuck: { evaluate: 'new Promise(() => {})' } }, '&timeout=4s&meta=true');
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.data.title, 'Streams in Node');
  assert.is(res.body.data.stuck, undefined);
  assert.equal(res.body.warnings, [
    { plugin: 'data', code: 'EPLUGIN', message: 'The data output did not finish in time', reason: 'timeout' },
  ]);
});

test('broken rules fail with EINVALDATA naming the rule, before any fetch', async () => {
  const before = fx.hits.length;
  for (const [rules, param] of [
    [{ price: { selector: 'p[' } }, 'data.price.selector'],
    [{ price: { selector: '.p', type: 'money' } }, 'data.price.type'],
    [{ price: { selector: '.p', colour: 'red' } }, 'data.price'],
    [{ price: { selector: '.p', selectorAll: '.q' } }, 'data.price'],
    [{ list: { selectorAll: '.r', attr: { title: { selector: '' } } } }, 'data.list.attr.title.selector'],
  ] as const) {
    const res = await extract('product.html', rules);
    assert.is(res.status, 400, JSON.stringify(rules));
    assert.is(res.body.code, 'EINVALDATA');
    assert.ok(String(res.body.data?.param).startsWith(param), `${res.body.data?.param} for ${JSON.stringify(rules)}`);
  }
  const bare = await call(app.free, `url=${q(`${fx.url}/sites/data/product.html`)}&data=true`);
  assert.is(bare.body.code, 'EINVALDATA');
  assert.is(fx.hits.length, before, 'no request reached the target');
  const thrown = await extract('doc.html', { oops: { evaluate: 'window.nothing.here' } });
  assert.is(thrown.status, 400);
  assert.is(thrown.body.code, 'EINVALDATA');
  assert.match(thrown.body.message, /data\.oops/);
});

test.run();
