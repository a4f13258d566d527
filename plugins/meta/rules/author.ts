// The author (docs/metadata.md): structured data, meta tags, bylines on the page, each only on a page that has one
// (authored.ts); its normalisation is plugins/shared/normalize/author.ts's.
import { byAttr, byJsonLd, byMeta, clean, type Doc, type Rule } from '../../shared/page/helpers.ts';
import { toDate } from '../../shared/normalize/date.ts';
import { bylinesInText } from './byline-text.ts';
import { MODIFIER, ownPlaces } from './chrome.ts';
import { elementText } from '../../shared/page/shown.ts';
import { toAuthor } from '../../shared/normalize/author.ts';
import { authored } from './authored.ts';
import { joinNames, jsonLdAuthors, personName, showsName } from './author-jsonld.ts';
import { threadStarter } from './thread.ts';
import { authorBox, BOX } from './author-box.ts';

/** Two words at least: how a byline in loosely named markup (`class*="author"`) shows it is a name. */
const TWO_WORDS = /^\S+\s+\S+/;
const strict =
  (rule: Rule): Rule =>
  (doc) => {
    const value = rule(doc);
    return typeof value === 'string' && TWO_WORDS.test(value) ? value : undefined;
  };

/**
 * A byline's text, unless it is a date (`<div class="byline">July 4, 2019</div>`); a part whose class says it has no
 * byline (`no-byline`) is none.
 */
const bylineNotDate: Rule = ({ $ }) => {
  for (const el of ownPlaces($, '[class*="byline" i]')) {
    if (!(el.attribs.class ?? '').split(/\s+/).some((name) => /byline/i.test(name) && !MODIFIER.test(name))) continue;
    const text = clean(elementText(el));
    if (text && !toDate(text)) return text;
  }
  return undefined;
};

/**
 * A rule for markup a reader does not see (meta tags), kept only when the page shows one of the names it gives: a CMS's `<meta name="author">` names the site's owner on every page, a person the page never shows.
 */
const shown =
  (rule: Rule): Rule =>
  (doc) => {
    const value = rule(doc);
    const text = clean(value);
    return text?.split(/;\s*/).some((name) => showsName(doc, name)) ? value : undefined;
  };

/** The text of the first element matching a selector that stands where the page's own people are named (not among others': chrome.ts). */
const ownText =
  (selector: string): Rule =>
  ({ $ }) => {
    for (const el of ownPlaces($, selector)) {
      const text = clean(elementText(el));
      if (text) return text;
    }
    return undefined;
  };

/** The labels with which a page's `twitter:labelN` / `twitter:dataN` pairs say who wrote it (Yoast and others write them). */
const WRITTEN_BY =
  /^(?:written by|author|authors|autor|autorin|geschrieben von|verfasst von|écrit par|auteur|escrito por|scritto da)$/i;

/**
 * Who the page declares wrote it, in the label-and-value pairs of its summary card (`twitter:label1` "Written by",
 * `twitter:data1` "Jane Doe"): taken as declared, the site's own name too (a company's blog post written by the
 * company), but not a placeholder (`admin`).
 */
export function writtenBy(doc: Doc): string | undefined {
  for (let n = 1; n <= 4; n++) {
    const label = clean(doc.meta.byName.get(`twitter:label${n}`)?.[0]);
    if (!label || !WRITTEN_BY.test(label)) continue;
    const name = toAuthor(doc.meta.byName.get(`twitter:data${n}`)?.[0], doc, { site: false });
    if (!name || showsName(doc, name)) return name;
    // A name the page never shows is the account that posted, where the page shows the author(s) JSON-LD names.
    const declared = jsonLdAuthors(doc);
    return declared?.split('; ').every((d) => showsName(doc, d)) ? undefined : name;
  }
  return undefined;
}

export { declaredPerson } from './author-jsonld.ts';

/** A name as a citation writes it, surname first (`Kaufman, Jeff T.`), but not a name and its degree (`Jane Doe, MD`). */
const SURNAME_FIRST = /^([^,]+),(?!\s*(?:jr|sr|ii|iii|iv|phd|ph\.d|md|m\.d)\b)\s*([^,]+)$/i;

/**
 * The authors a scholarly page declares in its citation tags, as Google Scholar reads them (`<meta
 * name="citation_author">`, one a person; `citation_authors`, a list): every one, in order, joined as JSON-LD's are,
 * each written as a byline writes it (`Jeff T. Kaufman`).
 */
export function citationAuthors(doc: Doc): string | undefined {
  const given = [
    ...(doc.meta.byName.get('citation_author') ?? []),
    ...(doc.meta.byName.get('citation_authors') ?? []).flatMap((v) => v.split(/\s*;\s*/)),
  ];
  const names = given
    .map((v) => toAuthor(clean(v)?.replace(SURNAME_FIRST, '$2 $1'), doc, { site: false }))
    .filter((n): n is string => !!n);
  return names.length ? joinNames([...new Set(names)]) : undefined;
}

/** Bylines read whole, as the page shows them, with every name on them (also read by author-several.ts). */
export const itempropAuthor = ownText('[itemprop*="author" i]');
export const authorPart = strict(ownText(`${BOX}[class*="author" i]`));
export const bylinePart = strict(bylineNotDate);
// Every byline in the text, in order: the first that names an author, not the site, is taken.
export const textBylines: Rule = (doc: Doc) => [...bylinesInText(doc)];

/** Ordered rules for the author (docs/metadata.md): structured data and meta, then bylines (authored.ts: where any). */
export const author: Rule[] = [
  jsonLdAuthors,
  citationAuthors,
  authored((doc: Doc) => {
    const name = clean(byJsonLd('author', personName)(doc));
    return name && (/\s/.test(name) || showsName(doc, name)) ? name : undefined;
  }),
  authored(threadStarter),
  ...[
    byMeta('author', false),
    byMeta('article:author'),
    byMeta('book:author'),
    byMeta('sailthru.author'),
    byMeta('parsely-author'),
    byMeta('dc.creator'),
    byMeta('dcterms.creator'),
  ].map(shown),
  ...[
    ownText('[itemprop*="author" i] [itemprop="name"]'),
    byAttr('[itemprop*="author" i] [itemprop="name"]', 'content'),
    itempropAuthor,
    ownText('[rel="author"]'),
    // hCard, the microformat blogs mark their author with: a name (`fn`) in or on an `author` element.
    ownText('.author .fn, .author.fn'),
    // Drupal's line under a node's title (`<div class="submitted">Submitted by <span class="username">rasos</span> on …`).
    ownText('.submitted .username'),
    strict(ownText('a[class*="author" i]')),
    strict(ownText(`${BOX}[class*="author" i] a`)),
    ownText('a[href*="/author/" i]'),
    ownText('a[href*="/autor/" i]'),
    ownText('a[href*="/autoren/" i]'),
    ownText('a[href*="/authors/" i]'),
    ownText('a[class*="screenname" i]'),
    authorPart,
    bylinePart,
    textBylines,
    authorBox,
  ].map(authored),
];
