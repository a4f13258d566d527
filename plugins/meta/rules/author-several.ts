// A byline that names several people (docs/metadata.md, "author"): where the rule that answered names one of them
// (the first `/author/` link, a meta tag) or names them in hidden markup (JSON-LD's `A; B`), the byline the page shows
// is answered whole, as the page writes it (`Lars Fischer und Alina Schadwinkel`, `David Brand and Ramsey Khalifeh`).
import type { Element } from 'domhandler';
import { candidatesOf, clean, type Doc, type Rule } from '../../shared/page/helpers.ts';
import { toAuthor } from '../../shared/normalize/author.ts';
import { endsInRole } from '../../shared/normalize/byline-extra.ts';
import { comparable, elementText } from '../../shared/page/shown.ts';
import { authorPart, bylinePart, itempropAuthor, textBylines } from './author.ts';
import { authored } from './authored.ts';
import { ownPlaces } from './chrome.ts';

/** The words that join a byline's names (`A und B`, `A y B`, `A et B`), besides `,` `;` `&`. */
const AND = '(?:and|und|y|et|e|en)';

/** Links to an author's page, one a person (`/author/rui-ma`, `rel="author"`). */
const AUTHOR_LINK = 'a[href*="/author/" i], a[href*="/autor/" i], a[href*="/autoren/" i], a[rel~="author" i]';
/** What may stand between the links of a byline made of them: the words and marks that join names, an intro first. */
const BETWEEN = new RegExp(String.raw`^(?:\s*(?:by|von|par|por|door)\s)?(?:[\s,;&]|\b${AND}\b)*$`, 'i');

/**
 * A byline made of links to each author's page (`<a href="/author/ruima/">Rui Ma</a>, <a …>Heba Ledwon</a> & …`): the
 * element around the first such link that holds two or more of them (at most three levels up) and nothing else but
 * the words that join them; read whole, as the page shows it.
 */
const authorLinks: Rule = ({ $ }) => {
  for (const a of ownPlaces($, AUTHOR_LINK)) {
    let around = a.parent as Element | null;
    for (let up = 0; around && around.type === 'tag' && up < 3; up++, around = around.parent as Element | null) {
      const links = $(around).find(AUTHOR_LINK);
      if (links.length < 2) continue;
      let rest = $(around).text();
      for (const link of links) rest = rest.replace($(link).text(), ' ');
      return BETWEEN.test(rest)
        ? clean(elementText(around)?.replace(/^\s*(?:by|von|par|por|door)\s+/i, ''))
        : undefined;
    }
    return undefined;
  }
  return undefined;
};

/** The rules that read a byline whole, with every name on it. */
const wholeBylines: Rule[] = [itempropAuthor, authorPart, bylinePart, textBylines, authorLinks].map(authored);

/** How a byline joins its names: `A, B and C`, `A & B`, `A; B`, `A und B`. */
const JOIN = new RegExp(String.raw`\s*[;,&]\s*|\s+${AND}\s+`, 'i');
/** A byline's name: one to five words, the first a capital or a figure (`7 News WSVN`), no label's colon. */
const NAME = /^[\p{Lu}\d][^\s:]*(?:\s+[^\s:]+){0,4}$/u;
/** A degree or a post-nominal (`MS`, `RD`, `Ph.D.`, `M.D.`): a byline holding one lists one person's titles, not people. */
const DEGREE = /^(?:[A-Z]{2,5}|[A-Z][a-z]?\.(?:[A-Z][a-z]?\.)+)$/;

/** What follows a name that a byline lists with others. */
const THEN = new RegExp(String.raw`^\s*(?:[;,&]|${AND}\s)`);

/** Whether the page shows the name with another after it: the one test every page pays for (reading the bylines costs more). */
function listedWithOthers(doc: Doc, name: string): boolean {
  const text = doc.shown;
  const wanted = comparable(name);
  for (let at = text.indexOf(wanted); at >= 0; at = text.indexOf(wanted, at + 1))
    if (THEN.test(text.slice(at + wanted.length, at + wanted.length + 8))) return true;
  return false;
}

/** The names a byline lists, or undefined when one of its parts is no name (a degree, a job title, a label, a sentence). */
function names(byline: string): string[] | undefined {
  const parts = byline
    .split(JOIN)
    .map((p) => p.replace(/^(?:and|und)\s+/i, '').trim())
    .filter(Boolean);
  return parts.every((p) => NAME.test(p) && !DEGREE.test(p) && !endsInRole(p)) ? parts : undefined;
}

/** Whether a byline's name is the answered one, a courtesy title before it or not (`Dr Marna van der Merwe`). */
const same = (listed: string, answered: string) => {
  const [a, b] = [comparable(listed).trim(), comparable(answered).trim()];
  return a === b || a.endsWith(` ${b}`);
};

/**
 * The byline that names every person the answer names and more of them, or the same people written as the page
 * writes them; the answer itself when no byline the rules read does.
 */
export function wholeByline(doc: Doc, answer: string | undefined): string | undefined {
  if (!answer) return answer;
  const answered = answer.split(/\s*;\s*/);
  if (!listedWithOthers(doc, answered[0]!)) return answer;
  for (const text of candidatesOf(doc, wholeBylines, toAuthor, (v) => v)) {
    const listed = names(text);
    if (!listed || listed.length < 2 || text === answer) continue;
    if (answered.every((a) => listed.some((l) => same(l, a))) && listed.length >= answered.length) return text;
  }
  return answer;
}
