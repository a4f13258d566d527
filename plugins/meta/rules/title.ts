// The publisher's chosen title (the contract's `title`): the title the page declares, without the site's name around
// it (docs/metadata.md, "Title"). The page's own parts are compared: its social title, <title>, JSON-LD headline and
// first <h1>; the site is known by its names (og:site_name, application name, JSON-LD publisher) and by its address.
// The <h1> is the title only when the page declares none, or only a generic one ("Home") or only the site's name.
import {
  byJsonLd,
  byMeta,
  byText,
  byWords,
  candidatesOf,
  clean,
  firstOf,
  type Doc,
  type Rule,
} from '../../shared/page/helpers.ts';
import { isSiteName, key, siteNames } from '../../shared/normalize/site.ts';
import { toText } from '../../shared/normalize/text.ts';

/** Ordered rules for the title (docs/metadata.md): social cards, the document's title, structured data, headings. */
const titleRules: Rule[] = [
  byMeta('og:title'),
  byMeta('twitter:title'),
  byWords('title'),
  byJsonLd('headline'),
  byWords('.post-title'),
  byWords('.entry-title'),
  byWords('h1[class*="title" i] a'),
  byWords('h1[class*="title" i]'),
  byWords('h1'),
];

/** Separators between a headline and the site's name: a bar, dash, guillemet, arrow, dot or slashes set apart by spaces. */
const SEPARATOR = /\s+(?:\||-|–|—|»|«|›|‹|·|•|::|\/\/|~)\s+/;
/** A title that names no page of its own, as home pages have them. */
const GENERIC =
  /^(home|homepage|start|startseite|accueil|inicio|willkommen|welcome|index|untitled|news|blog|blog archive)$/i;

/**
 * A title without the site's name at either end: parts set apart by a separator are dropped from the ends while they
 * name the site or a generic section (`News`, `Blog Archive`); what is left is joined as written. When a part is the
 * page's own headline (its <h1>, or another title of the page without separators), that part is the title.
 */
export function withoutSiteName(raw: string, names: readonly string[], headlines: readonly string[]): string {
  const parts = raw.split(SEPARATOR);
  if (parts.length < 2) return raw;
  const seps = raw.match(new RegExp(SEPARATOR.source, 'g')) ?? [];
  const heads = new Set(headlines.map(key).filter(Boolean));
  const own = parts.find((p) => heads.has(key(p)) && !isSiteName(p, names));
  if (own) return own.trim();
  let first = 0;
  let last = parts.length - 1;
  const aside = (part: string) => isSiteName(part, names) || GENERIC.test(part.trim());
  while (last > first && aside(parts[last]!)) last--;
  while (first < last && aside(parts[first]!)) first++;
  let text = parts[first]!;
  for (let i = first + 1; i <= last; i++) text += seps[i - 1]! + parts[i]!;
  return text.trim();
}

/** Whether a text is no more than the site's name: one of its names or most of one (`Axios Future` is not `Axios`). */
function onlySiteName(text: string, names: readonly string[]): boolean {
  const k = key(text);
  return k.length >= 2 && names.some((n) => k === n || (n.includes(k) && k.length >= n.length / 2));
}

/** Separator characters left at an end once a part went (`mediaarchitecture.de // » Jens Weber`). */
const STRAY = /^\s*(?:[|\-–—»«›‹·•:~/]+\s+)+|(?:\s+[|\-–—»«›‹·•:~/]+)+\s*$/g;
/** A site's name in parentheses at the end (`… (neues deutschland)`). */
const BRACKETED = /\s*\(([^()]{2,60})\)$/;

/** Whether `inner` stands in `outer` as whole words (case and punctuation aside). */
function within(inner: string, outer: string): boolean {
  const i = key(inner);
  return i.length > 0 && key(outer).includes(i);
}

/**
 * The headlines the page gives besides its title tags: its JSON-LD headline, its first <h1>, and the heading a blog
 * marks as its post's title (`entry-title`, `post-title`: a blog's <h1> is often its own name).
 */
const headlineRules: Rule[] = [
  byJsonLd('headline'),
  byWords('h1'),
  byWords(
    'h1[class*="entry-title" i], h2[class*="entry-title" i], h1[class*="post-title" i], h2[class*="post-title" i], h2[class*="post_title" i]',
  ),
  // A blog's post title as a permalink (`<h2><a href="…" rel="bookmark">…</a></h2>`, WordPress's classic themes).
  byWords('h1 a[rel~="bookmark" i], h2 a[rel~="bookmark" i]'),
];
/** Titles of the page, most trusted first. */
const titleTags: Rule[] = [byMeta('og:title'), byMeta('twitter:title'), byText('title')];

/** The page's title as a person reads it (see above), or undefined when it has none. */
export function pageTitle(doc: Doc): string | undefined {
  const names = siteNames(doc);
  // A social title that is the site's name and nothing else (og:title = og:site_name on every page of a site) gives
  // way to a later title the page declares that names this page alone: the <title> that is an article's headline is
  // the publisher's choice for it. One that is the site's name with a slogan is not (a home page's name stays).
  const tags = [...candidatesOf(doc, titleTags, toText, (v) => v)];
  let declared = firstOf(doc, titleRules, toText);
  if (declared && onlySiteName(declared, names))
    declared = tags.find((t) => !onlySiteName(t, names) && withoutSiteName(t, names, []) === t) ?? declared;
  if (!declared) return undefined;
  const headlines = [...candidatesOf(doc, headlineRules, toText, (v) => v)];
  // A title attribute cut short where the page left a quote unescaped (`content="… Biden de "incapacitado""`) is
  // the beginning of another title of the page, which says it whole.
  const first = tags.find((t) => t.startsWith(declared) && /^\s*["“„«]/.test(t.slice(declared.length))) ?? declared;
  // A home page's "Home" is no title when the page has a headline of its own.
  const raw = GENERIC.test(first) && headlines[0] && !GENERIC.test(headlines[0]) ? headlines[0] : first;
  // Another title of the page that is one part of this one (og:title "X" beside <title> "X | Site") agrees on X.
  const plain = [...headlines, ...tags.filter((t) => !SEPARATOR.test(t))];
  let text = withoutSiteName(raw, names, plain).replace(STRAY, '');
  const bracketed = BRACKETED.exec(text);
  if (bracketed && isSiteName(bracketed[1]!, names)) text = text.slice(0, bracketed.index);
  // The page's headline when nothing but the site's name is left, or when the title holds the headline's own words
  // with more around them (a kicker, a word such as "Recipe", a blog's or section's name): the publisher's words,
  // without what decorates them. Never a headline worded otherwise: the title is the one the publisher declared.
  const headline = headlines.find((h) => !isSiteName(h, names) && !GENERIC.test(h));
  const [h, t] = headline ? [key(headline).length, key(text).length] : [0, 0];
  if (headline && (onlySiteName(text, names) || (h < t && h >= t * 0.5 && within(headline, text)))) text = headline;
  return clean(text) ?? raw;
}
