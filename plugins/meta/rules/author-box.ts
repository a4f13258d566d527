// The name an author box opens with: a part named for its author (`blog_author-wrapper`, `author-card`) holds the
// writer's picture, name, role and bio, the name the first words read in it (`Lauren Vetter` before `Lauren Vetter is
// a growth-focused marketing professional …`). docs/metadata.md, "author".
import type { Element } from 'domhandler';
import type { Doc } from '../../shared/page/helpers.ts';
import { walkShown } from '../../shared/page/shown.ts';
import { ownPlaces } from './chrome.ts';

/** Words that label a name rather than being one (`Article by`, `Written by`, `About the author`, `Autor`). */
const LABEL =
  /^(?:(?:article|post|posted|written|words|story|text)\s+by|by|von|par|por|author|authors|autor|autorin|auteur|autore|(?:about|meet)?\s*the\s+authors?|about\s+authors?|über\s+(?:den|die)\s+autor(?:in)?)\s*:?$/i;
/** A person's name as a box writes it: two to four capitalised words, initials and particles between. */
const NAME =
  /^(?!The\s)\p{Lu}[\p{Ll}'’-]+(?:\s+(?:\p{Lu}\.|van|von|de|der|den|da|di|du|la|le|\p{Lu}[\p{Ll}'’-]+)){1,3}$/u;
/** Texts read into a box before giving up on it. */
const MAX_TEXTS = 4;

/** The first texts of an element a reader sees, in order, each whole (white space collapsed). */
function firstTexts(el: Element): string[] {
  const texts: string[] = [];
  walkShown(el, (data) => {
    const text = data.replace(/\s+/g, ' ').trim();
    if (text) texts.push(text);
    return texts.length < MAX_TEXTS;
  });
  return texts;
}

/** Not the page as a whole, whatever its class says (`<body class="hide-author">`): a part of it. */
export const BOX = ':not(html, body, main, article)';

/**
 * The name the first author box of the page opens with (after a label, if any), where the page's own people stand;
 * none where boxes name three people or more (a listing's cards, a paper's authors' list).
 */
export function authorBox(doc: Doc): string | undefined {
  const names = new Set<string>();
  for (const el of ownPlaces(doc.$, `${BOX}:is([class*="author" i], [id*="author" i])`)) {
    const text = firstTexts(el).find((t) => !LABEL.test(t));
    if (text && NAME.test(text)) names.add(text);
    if (names.size >= 3) return undefined;
  }
  return names.values().next().value;
}
