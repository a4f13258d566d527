// Main content by kind of page, on small pages of each kind (fixtures/sites/kinds/): the kind each page's own
// signals give, what must be in its content (every post, the description and specifications, every card, every
// section, code with its language) and what must not (actions, signatures, buy box, filters, sorting, pagination,
// navigation, sidebars, tables of contents). The same pages through the real server are in server/content.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contentMarkdown, pageContent } from '../../plugins/shared/content/markdown.ts';

const DIR = path.resolve(import.meta.dirname, '../../fixtures/sites/kinds');
const read = (name: string) => {
  const content = pageContent(readFileSync(path.join(DIR, `${name}.html`), 'utf8'), `https://site.example/${name}/1`);
  return { kind: content.kind, md: contentMarkdown(content) };
};

const KINDS: [string, string, (string | RegExp)[], string[]][] = [
  [
    'forum',
    'forum',
    ['my summer tent feels far too light', 'four season dome earns its weight', 'closed cell foam pad'],
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
    ],
  ],
  [
    'product',
    'product',
    ['undyed island wool', 'finished by hand', 'Specifications', /Material \| 100% island wool/, 'Hand wash cold'],
    ['Add to cart', 'Quantity', 'Free shipping', 'You may also like', 'Harbour Beanie', 'Newsletter'],
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

test('an article stays an article, read as one container', () => {
  const para = (w: string) =>
    `<p>${Array.from({ length: 8 }, (_, i) => `The ${w} keeps flowing past stone number ${i}.`).join(' ')}</p>`;
  const html = `<html><head><title>The River | News</title><meta property="og:type" content="article"></head><body><nav><a href="/">Home</a></nav><article><h1>The River</h1>${para('river')}${para('stream')}</article><aside><p>Most read today elsewhere</p></aside></body></html>`;
  const content = pageContent(html, 'https://news.example/2026/05/the-river');
  assert.is(content.kind, 'article');
  const md = contentMarkdown(content);
  assert.match(md, /The stream keeps flowing past stone number 7/);
  assert.not.match(md, /Most read/);
});

test.run();
