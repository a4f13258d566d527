// Documents nested far deeper than any real page (a hostile page, or unclosed tags): every output that walks the
// document answers, as a browser bounds the tree (engine/kernel/html.ts MAX_DEPTH), never a stack overflow.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from '../util/fc.ts';
import { MAX_DEPTH, parseHtml, wasBounded } from '../../engine/kernel/html.ts';
import { needsBrowser } from '../../engine/fetch/prerender.ts';
import { extractMeta } from '../../plugins/meta/index.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';
import { contentMarkdown, pageContent } from '../../plugins/shared/content/markdown.ts';
import { contentHtml, contentText } from '../../plugins/shared/content/content-render.ts';

const STORY = 'The harbour was quiet that morning, and the boats lay still in the grey water on 12 March 2024.';
const nested = (depth: number, tag: string) =>
  `<!doctype html><html><head><title>Deep</title></head><body>${`<${tag}>`.repeat(depth)}<p>${STORY}</p>${`</${tag}>`.repeat(depth)}<p>After the nesting.</p></body></html>`;

/** Everything a request reads of a fetched page: the prerender verdict, the metadata, the three content outputs. */
function readAll(html: string) {
  const $ = parseHtml(html, 'https://deep.example/');
  const verdict = needsBrowser($);
  const meta = extractMeta(createDoc($, 'https://deep.example/'));
  // As the content outputs read it: the page's own text (pageContent bounds it when it nests too deep).
  const content = pageContent(html, 'https://deep.example/');
  return {
    $,
    verdict,
    meta,
    markdown: contentMarkdown(content),
    text: contentText(content),
    html: contentHtml(content),
  };
}

test('documents of depth 1 to 100,000 (divs, spans, lists, tables of sections): every walk answers, the text kept in order', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 600, max: 20_000 })),
      fc.constantFrom('div', 'span', 'section', 'li', 'blockquote'),
      (depth, tag) => {
        const out = readAll(nested(depth, tag));
        // (An `li` closes the `li` before it, as in a browser: a list of them nests no deeper.)
        if (tag !== 'li') assert.is(wasBounded(out.$), depth + 3 > MAX_DEPTH, `depth ${depth}`);
        assert.is(out.meta.title, 'Deep');
        for (const rendered of [out.markdown, out.text, out.html]) {
          assert.ok(rendered.includes(STORY), `${tag} x ${depth}: ${rendered.slice(0, 200)}`);
          assert.ok(rendered.indexOf(STORY) < rendered.indexOf('After the nesting.'), 'in document order');
        }
      },
    ),
    {
      numRuns: 14,
      examples: [
        [100_000, 'div'],
        [MAX_DEPTH, 'div'],
      ],
    },
  );
});

test('a document within the bound is parsed as it is (nothing moved)', () => {
  const $ = parseHtml(nested(40, 'div'), 'https://deep.example/');
  assert.not.ok(wasBounded($));
  assert.is($('div').length, 40);
  assert.is($('p').first().parents('div').length, 40);
  const deep = parseHtml(nested(MAX_DEPTH + 50, 'div'), 'https://deep.example/');
  assert.ok(wasBounded(deep));
  assert.is(deep('div').length, MAX_DEPTH + 50, 'every element kept');
  assert.ok(deep('p').first().parents().length <= MAX_DEPTH, 'none deeper than the bound');
});

test.run();
