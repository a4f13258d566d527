// The title as a person reads it (plugins/meta/rules/title.ts, docs/metadata.md "Title"): one small page of each
// kind in fixtures/meta/title/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseHtml } from '../../engine/kernel/html.ts';
import { createDoc } from '../../plugins/shared/page/helpers.ts';
import { pageTitle } from '../../plugins/meta/rules/title.ts';

const titleOf = (file: string, url = 'https://example.org/page') => {
  const html = readFileSync(path.resolve(import.meta.dirname, '../../fixtures/meta/title', file), 'utf8');
  return pageTitle(createDoc(parseHtml(html, url), url));
};

test("the site's address at the end goes (its canonical address names it)", () => {
  assert.is(titleOf('site-suffix.html'), 'Rasende Polizisten');
});

test("the site's name at the end goes (og:site_name names it)", () => {
  assert.is(titleOf('site-name.html'), 'Der Lange und die alte Dame');
});

test("a part that is the page's own headline (its h1) is the title, the site's name before it goes", () => {
  assert.is(titleOf('headline.html'), 'Mercurial\u2019s Journey to and Reflections on Python 3');
});

test('a kicker before the headline goes when the h1 holds the headline alone', () => {
  assert.is(titleOf('kicker.html'), 'Lässt sich die Ausbreitung kontrollieren?');
});

test('a home page\'s "Home" gives way to its headline', () => {
  assert.is(titleOf('home.html'), 'Time to say goodbye.');
});

test("a blog whose <h1> is its own name: the part of the title that its post's heading (entry-title) gives", () => {
  const html =
    '<html><head><title>Four Years Remaining \u00bb Interning of Small Integers</title></head><body><h1><a href="/">Four Years Remaining</a></h1><h2 class="entry-title"><a href="/2019/10/21/interning/">Interning of Small Integers</a></h2><p>Text.</p></body></html>';
  assert.is(
    pageTitle(createDoc(parseHtml(html, 'https://example.org/'), 'https://example.org/')),
    'Interning of Small Integers',
  );
});

test('a headline that only differs from the title in case or punctuation leaves the title as written', () => {
  const html = '<html><head><title>Second Page</title></head><body><h1>second page</h1></body></html>';
  assert.is(pageTitle(createDoc(parseHtml(html, 'https://example.org/'), 'https://example.org/')), 'Second Page');
});

test('a dash inside a headline stays when no part names the site', () => {
  assert.is(titleOf('separators-kept.html'), 'Minions malen – mit Malerrolle und bunten Farben');
});

test("the site's name in parentheses at the end goes", () => {
  assert.is(titleOf('bracketed.html'), '»Kein Geld mehr für die Miete«');
});

test("the publisher's chosen title over a page's one h1 that words it otherwise (the contract's title; people write the h1)", () => {
  assert.is(titleOf('reworded.html'), 'Brexit: Nervenkrieg geht in nächste Runde');
});

test("the h1 when the page declares no title, or nothing but the site's name", () => {
  const of = (html: string) => pageTitle(createDoc(parseHtml(html, 'https://example.org/a'), 'https://example.org/a'));
  assert.is(of('<html><body><h1>Results at a glance</h1><p>x</p></body></html>'), 'Results at a glance');
  assert.is(
    of(
      '<html><head><title>Example Org</title><meta property="og:site_name" content="Example Org"></head><body><h1>Results at a glance</h1></body></html>',
    ),
    'Results at a glance',
  );
  assert.is(
    of(
      '<html><head><title>Quarterly report</title><meta property="og:title" content="Quarterly report"></head><body><h1>Results at a glance</h1></body></html>',
    ),
    'Quarterly report',
  );
});

test("a social title that is nothing but the site's name gives way to a <title> that names the page", () => {
  const of = (html: string) => pageTitle(createDoc(parseHtml(html, 'https://example.org/a'), 'https://example.org/a'));
  const head =
    '<meta property="og:site_name" content="Winter Sports Union - WSU"><meta property="og:title" content="Winter Sports Union - WSU">';
  // An article of a site that writes its name as every page's og:title: its <title> is its headline.
  assert.is(
    of(`<html><head>${head}<title>A great chance for the sport</title></head><body><h1>Other words</h1></body></html>`),
    'A great chance for the sport',
  );
  // A home page whose <title> is the site's name and a slogan keeps the name.
  assert.is(
    of(
      '<html><head><meta property="og:site_name" content="Winter Sports Union"><meta property="og:title" content="Winter Sports Union"><title>Winter Sports Union | Serving winter sports since 1998</title></head></html>',
    ),
    'Winter Sports Union',
  );
});

test("a declared title that names the site among other words is the publisher's, not replaced by an h1", () => {
  const of = (html: string) =>
    pageTitle(createDoc(parseHtml(html, 'https://www.axios.com/newsletters/a'), 'https://www.axios.com/newsletters/a'));
  // The site is Axios (its address); its newsletter's title says more than that, and the page's h1 is a menu's.
  assert.is(of('<html><head><title>Axios Future</title></head><body><h1>Sections</h1></body></html>'), 'Axios Future');
  // Nothing but the site's name: the h1 is the title.
  assert.is(
    of('<html><head><title>Axios</title></head><body><h1>Markets this week</h1></body></html>'),
    'Markets this week',
  );
});

test('no invisible format characters in a title (word joiner, zero-width space, soft hyphen, direction marks); joiners that shape emoji stay', () => {
  const of = (title: string) =>
    pageTitle(createDoc(parseHtml(`<title>${title}</title>`, 'https://example.org/a'), 'https://example.org/a'));
  assert.is(of('Welt\u00ADernährungs\u00ADprogramm im Einsatz\u2060'), 'Welternährungsprogramm im Einsatz');
  assert.is(of('\u200FA\u200B title\u202A here\u202C\uFEFF'), 'A title here');
  assert.is(of('Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}'), 'Family \u{1F468}\u200D\u{1F469}\u200D\u{1F467}');
});

test('a page with several h1 keeps its title', () => {
  assert.is(titleOf('sections.html'), 'Brexit: Nervenkrieg geht in nächste Runde');
});

test('an h1 that holds the title with a kicker around it leaves the title', () => {
  assert.is(titleOf('h1-kicker.html'), 'Rene Benko-Firma Signa in Sorge');
});

test("a heading inside <noscript> is not the page's headline", () => {
  assert.is(titleOf('noscript.html'), 'Controls for the page');
});

test.run();
