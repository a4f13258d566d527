// The date a page shows right under its headline, against a generic date its markup states (date.ts): a reader
// dates the page by the one under its headline when the markup's day is shown nowhere (docs/metadata.md, "date").
import type { Doc } from '../../shared/page/helpers.ts';
import { WRITTEN } from './date-text.ts';
import { readText } from './own-text.ts';

/**
 * The date the page shows right under its headline, where a generic date of its markup (`meta name="date"`, a
 * `<time datetime>` of a teaser) says another day that the page shows nowhere: a reader dates the page by the one
 * under its headline (`27 juin 2019 Par Elba` under a `<time datetime="2019-07-30">` of the site's edition).
 */
export function shownInstead(doc: Doc, found: string, read: (raw: unknown) => string | undefined): string | undefined {
  const under = dateUnderHeadline(doc, read);
  if (!under || Math.abs(Date.parse(under.slice(0, 10)) - Date.parse(found.slice(0, 10))) <= 86_400_000)
    return undefined;
  return showsDay(doc, read, found.slice(0, 10)) ? undefined : under;
}

/** How much text after the headline is read for the date it shows under it (a byline's line, a dateline). */
const UNDER_HEADLINE = 200;
/** Words that make a date a person's, not the page's: a forum poster's `Joined Nov 4, 2011`. */
const SINCE =
  /(?:joined|member since|registered|mitglied seit|registriert|dabei seit|inscrit|inscription|desde)\W{0,3}$/iu;

/** The first written date the text shows right under its headline (not a member's `Joined` date), or undefined. */
function dateUnderHeadline(doc: Doc, read: (text: string) => string | undefined): string | undefined {
  const { text, headline } = readText(doc);
  if (headline < 0) return undefined;
  const window = text.slice(headline, headline + UNDER_HEADLINE);
  for (const m of window.matchAll(WRITTEN)) {
    if (SINCE.test(window.slice(Math.max(0, m.index - 24), m.index))) continue;
    const found = read(m[0]);
    if (found) return found;
  }
  return undefined;
}

/** How many written dates of a page are read to find a day among them (an archive's calendar writes thousands). */
const MAX_DATES = 100;

/** Whether the text read writes the day `day` (YYYY-MM-DD) among its first MAX_DATES written dates. */
function showsDay(doc: Doc, read: (text: string) => string | undefined, day: string): boolean {
  const { text } = readText(doc);
  let n = 0;
  for (const m of text.matchAll(WRITTEN)) {
    if (read(m[0])?.slice(0, 10) === day) return true;
    if (++n >= MAX_DATES) break;
  }
  return false;
}
