// A byline the page shows only as text (`Autor: Klausmartin Friedrich`, `Written by: Julie Mollins`, `By Cara
// Stiles | April 13, 2020`, `Par Matthieu Hy`): a word that introduces an author, then a name, read near the
// headline in the page's own text (navigation, footers, comments and sidebars are not read: date-text.ts).
import type { Doc } from '../../shared/page/helpers.ts';
import { readText } from './own-text.ts';

/** How much text is read around the headline (characters). */
const AFTER_HEADLINE = 1500;
const BEFORE_HEADLINE = 300;
/** How much is read from the start of a page with no headline found: its navigation's leftovers come first. */
const WITHOUT_HEADLINE = 3000;

/**
 * Words that introduce an author, as bylines write them (capitalised: in running text they start no byline); a `By`
 * after a participle names someone else (`Published By:`, `Developed By:`, `Powered by`: a shop's or a game's maker).
 */
const INTRO =
  '(?:Autor(?:in)?|Author|Written by|Posted by|Started by|Reported by|Words by|Story by|Geschrieben von|Verfasst von|Redaktion|Text|Von|VON|(?<!\\p{L}ed:?[\\s\\0]+)(?:By|BY)|Par|Por|Door)';
/** A name: two to four capitalised words, with the particles names carry (`Jan van Dijk`, `Eva-Maria de la Cruz`). */
const NAME = String.raw`\p{Lu}[\p{L}'’.-]+(?:\s+(?:(?:von|van|de|der|den|da|di|du|del|la|le|zu|y)\s+)*\p{Lu}[\p{L}'’.-]*){1,3}`;
/** Where an element starts in the text read (readText's boundary): a name ends there, or at a separator. */
const MARK = '\u0000';
/** Where a name ends: where its element does, at a separator, or before where or when it was posted (`Posted by X under …`). */
const END = String.raw`(?=\s*(?:\0|$|[|•·,–—(/-])|\s+(?:on|at|in|under|am|um)\s)`;
/** A date as bylines write it before the name (`25.10.2022 - Reiner Nagel`). */
const DOTTED = String.raw`\d{1,2}\.\d{1,2}\.\d{4}`;
const BYLINE = new RegExp(
  [
    String.raw`(?<![\p{L}\p{N}])${INTRO}[\s\0]*:?[\s\0]+(${NAME})${END}`,
    // An element that starts with a byline word in lower case (`<i>von Daniela Obers</i>`).
    String.raw`\0\s*(?:von|by|par|por|door):?\s+(${NAME})${END}`,
    // An element that starts with a date, then a dash and the name.
    String.raw`\0\s*${DOTTED}\s*[-–|]\s*(${NAME})${END}`,
    // A first name alone, where the words can introduce nothing else (`Posted by Konstantin`).
    String.raw`(?<![\p{L}\p{N}])(?:Posted by|Written by|Geschrieben von|Verfasst von)[\s\0]+(\p{Lu}[\p{L}'’-]+)${END}`,
    // A login set as an element of its own between the byline word and the day (`von <a>Marianne1</a> am 20.09.2020`).
    String.raw`(?<![\p{L}\p{N}])(?:von|by|Von|By)[\s\0]*\0([\p{L}\p{N}_.-]{3,30})\0[\s\0]*(?:am|on)\s+\d`,
  ].join('|'),
  'gu',
);
/** A name in Chinese, Japanese or Korean script: one or two runs of its letters (`山田太郎`, `山田 太郎`). */
const CJK_NAME = String.raw`[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]{1,6}(?:[ \u3000][\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]{1,6})?`;
/** A byline as Chinese, Japanese and Korean pages label one: the word, a colon, the name (`記者：山田太郎`). */
const CJK_BYLINE = new RegExp(
  String.raw`(?:記者|记者|筆者|著者|作者|撰文|執筆|기자|글)\s*[：:]\s*(${CJK_NAME})(?=[\s\0）)」、。，,|・/]|$)`,
  'gu',
);
/** A byline labelled as one (`Autor: …`, `Written by: …`), which articles also put at their end: read in all the text. */
const LABELLED = new RegExp(
  [
    String.raw`(?<![\p{L}\p{N}])(?:Autor(?:in)?|Author|Written by|Redaktion|Text)[\s\0]*:[\s\0]+(${NAME})${END}`,
    // An element that starts with words only a byline starts with (`<p>Written by John Crenshaw</p>`, an author box).
    String.raw`\0\s*(?:Written by|Geschrieben von|Verfasst von|Escrito por|Écrit par|Scritto da)[\s\0]+(${NAME})${END}`,
    // An author box's sentence (`This post was written by Danielle Padula, Head of Marketing`).
    String.raw`\b(?:This|The) (?:post|article|story|piece|guide) (?:was|is) (?:written|authored) by (${NAME})${END}`,
    // A label that is an element of its own, the name the next (`<h2>Article by</h2><div>Matias Heikkilä</div>`); not
    // a bare `Author`, which a shop's specifications table writes beside a book's.
    String.raw`\0\s*(?:Article by|Posted by|Words by|Story by|Written by)\s*:?\s*\0[\s\0]*(${NAME})${END}`,
  ].join('|'),
  'gu',
);

/**
 * The names bylines introduce in the text, in order: near the page's headline first, then those labelled as bylines
 * anywhere (`accept` takes the first that names an author, not the site: `By The Planetary Press … Written by: Julie
 * Mollins`).
 */
export function* bylinesInText(doc: Doc): Generator<string> {
  const { text, headline } = readText(doc, MARK);
  const from = Math.max(0, headline - BEFORE_HEADLINE);
  const window = headline >= 0 ? text.slice(from, headline + AFTER_HEADLINE) : text.slice(0, WITHOUT_HEADLINE);
  for (const m of window.matchAll(BYLINE)) yield (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5])!;
  for (const m of window.matchAll(CJK_BYLINE)) yield m[1]!;
  for (const m of text.matchAll(LABELLED)) yield (m[1] ?? m[2] ?? m[3] ?? m[4])!;
}
