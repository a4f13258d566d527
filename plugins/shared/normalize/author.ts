// An author as a field holds it: a name as a byline gives it, never a URL, a handle's "@", a date, or the site's
// own name standing in for a person; a login completed by the full name the page shows.
import { clean, type Doc } from '../page/helpers.ts';
import { typographic } from '../page/typography.ts';
import { toDate } from './date.ts';
import { cleanByline } from './byline.ts';
import { isSiteName, siteNames } from './site.ts';
import { fullName } from './full-name.ts';

/** A site's own team named as the writer (`The Investopedia Team`, `Podium Staff`, `auto-motor.at Redaktion`). */
const TEAM = /\s(?:Team|Staff|Redaktion|Newsroom|Editors|Editorial)$|^(?:Redaktion)\s/i;
const URLISH = /^(https?:)?\/\/|^www\.|\.(com|net|org)\/?$/i;

/**
 * Accepts an author: a name of at most 128 characters as a byline gives it (cleanByline: no "By", "Von", date or
 * placeholder), never a URL or a handle's "@"; on a page, never the site's own name standing in for a person, and
 * a first name or login completed by the full name the page shows (full-name.ts). `site: false` takes the site's own
 * name too, for a page that declares the site its writer (`Written by: <the site>`).
 */
export function toAuthor(value: unknown, doc?: Doc, opts: { site?: boolean } = {}): string | undefined {
  let text = clean(value);
  if (!text || URLISH.test(text)) return undefined;
  text = cleanByline(text.replace(/^@/, ''));
  if (!text || text.length > 128 || /^\d+$/.test(text) || toDate(text)) return undefined;
  // The site standing in for a person: a name it gives itself, or, for an address or handle (no space: `lecker.de`,
  // `finanzcheck_de`), its address too. A name is compared with the site's given names as a whole (a person's own
  // site may carry the person's name: `Daniel Lemire` is not the site `Daniel Lemire's blog`); a handle loosely.
  const handle = !/\s/.test(text) && /[._@\d]/.test(text);
  if (doc && opts.site !== false && !TEAM.test(text) && isSiteName(text, siteNames(doc, handle), !handle))
    return undefined;
  return typographic(doc ? fullName(doc, text) : text);
}
