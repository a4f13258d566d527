// The date a page shows in its text when its markup names none: the first written date after its headline (a
// byline's, a dateline's: `Samstag, 19. Juli 2014`, `Artikel veröffentlicht am 16.12.2012`, `By Urs | 27.06.2018`),
// else the first one near the top of the page. Navigation, footers, scripts and forms are not read: their dates
// are an archive's, a comment's or a copyright's (docs/metadata.md, "date"); nor are a customer review's.
import type { Doc } from '../../shared/page/helpers.ts';
import { readText } from './own-text.ts';

/** How much text is read after the headline, and of a page without one from its top (characters). */
const AFTER_HEADLINE = 1500;
const FROM_TOP = 3000;

/** Written dates in any order of day, month and year, with month names in any language (2 to 12 letters). */
export const WRITTEN = new RegExp(
  [
    String.raw`\b\d{4}-\d{1,2}-\d{1,2}\b`,
    String.raw`(?<![\d.])\d{1,2}\.\s?\d{1,2}\.\s?(?:\d{4}|\d{2})(?![\d.])`,
    String.raw`\b\d{1,2}/\d{1,2}/\d{4}\b`,
    String.raw`\b\d{1,2}(?:\.|st|nd|rd|th|er|º)?\s+(?:de\s+)?\p{L}{3,12}\.?,?\s+(?:de\s+)?\d{4}\b`,
    String.raw`\b\p{L}{3,12}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b`,
  ].join('|'),
  'gu',
);

/** The first written date the text shows after its headline, or near its top (as read by `read`). */
export function dateInText(doc: Doc, read: (text: string) => string | undefined): string | undefined {
  const { text, headline } = readText(doc);
  const windows =
    headline >= 0
      ? [text.slice(headline, headline + AFTER_HEADLINE), text.slice(0, FROM_TOP)]
      : [text.slice(0, FROM_TOP)];
  for (const window of windows) {
    for (const m of window.matchAll(WRITTEN)) {
      const found = read(m[0]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Words that say a date is when the page was published (or submitted, posted, made), in the languages met most. */
const PUBLISHED =
  /(?<![\p{L}])(?:published|posted|submitted|veröffentlicht|erschienen|erstellt|publiziert|gepostet|gespeichert|publié|publiée|mis en ligne|publicado|publicada|pubblicato|gepubliceerd|geplaatst|opublikowano)(?![\p{L}])/giu;
/** Words that say a date is a later change: a label of those between the word and the date makes it another's. */
const CHANGED = /(?:updat|modifi|aktualisiert|geändert|änderung|mis à jour|actualizad|aggiornat|bijgewerkt)/iu;
/** Words that label a date as the page's last change (`Aktualisiert: 30.12.2016`, `last edited 2019-11-10`). */
const CHANGE_LABEL =
  /(?<![\p{L}])(?:(?:last\s+)?(?:updated|modified|edited|changed)|aktualisiert|geändert|zuletzt bearbeitet|mis à jour|actualizado|actualizada|aggiornato|bijgewerkt)(?![\p{L}])/giu;
/** A German passive: `wurde am <date> … veröffentlicht` (the date, then within a clause the word that labels it). */
const PASSIVE = new RegExp(
  String.raw`\bwurde\b[^.]{0,24}?\bam\s+(?:\p{L}+,\s+)?(${WRITTEN.source})[^.;]{0,40}?\b(?:veröffentlicht|erstellt|geschrieben|verfasst|publiziert|gepostet)\b`,
  'giu',
);
/** The first written date of a text. */
const FIRST_WRITTEN = new RegExp(WRITTEN.source, 'u');
/** How far after its label a date may stand (a name or a weekday between: `Submitted by Ann on`, `am Samstag,`). */
const LABEL_REACH = 48;
/** How much text after a labelled date is read with it, for its time. */
const TIME_REACH = 30;

/**
 * The written date within LABEL_REACH after a label that ends at `end`, with what follows it (the time and zone
 * written after the date, `12 Jan, 2016, 10.34PM IST`, are read too), and the text between the label and the date.
 */
function dateAfter(text: string, end: number): { between: string; date: string } | undefined {
  const after = text.slice(end, end + LABEL_REACH + 40);
  const date = FIRST_WRITTEN.exec(after);
  if (!date || date.index > LABEL_REACH) return undefined;
  return {
    between: after.slice(0, date.index),
    date: after.slice(date.index, date.index + date[0].length + TIME_REACH),
  };
}

/** The written dates the page's own text labels as its publication's (`Veröffentlicht am 16.08.2019`), in order. */
export function labelledDates(doc: Doc): string[] {
  const { text } = readText(doc);
  const found: { at: number; date: string }[] = [];
  for (const label of text.matchAll(PUBLISHED)) {
    const labelled = dateAfter(text, label.index + label[0].length);
    if (labelled && !CHANGED.test(labelled.between)) found.push({ at: label.index, date: labelled.date });
  }
  // German says it after the date: `Dieser Beitrag wurde am Samstag, 3. Dezember 2011 um 14:48 Uhr veröffentlicht`.
  for (const m of text.matchAll(PASSIVE)) {
    if (!CHANGED.test(m[0])) found.push({ at: m.index, date: m[0].slice(m[0].indexOf(m[1]!)) });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.date);
}

/**
 * The first date the page's text labels as its last change (`Aktualisiert: 30.12.2016`, a wiki's `last edited
 * 2019-11-10 13:28:18`), read anywhere in its own text: a page's date only when it states no other (date.ts).
 */
export function changedDates(doc: Doc): string[] {
  const { text } = readText(doc);
  for (const label of text.matchAll(CHANGE_LABEL)) {
    const labelled = dateAfter(text, label.index + label[0].length);
    if (labelled) return [labelled.date];
  }
  return [];
}
