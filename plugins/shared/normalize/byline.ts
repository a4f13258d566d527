// A byline as a person reads it: the name(s) alone, without the words around them in any of the corpus's languages
// ("By", "Von", "Zeige alle Beiträge von", "Posted by", "par", "Interview:"), without a date or a title after the
// name, and no name at all where the page shows a placeholder, a commenter or the site itself (docs/metadata.md).
import { othersLine, interfaceText, prose, withoutExtras } from './byline-extra.ts';

/** Words before a name, in the languages of the web: removed from the start, as often as they repeat. */
const LEADING = new RegExp(
  `^(?:${[
    'text & fotos',
    'text und fotos',
    'text & photos',
    'text and photos',
    'words and pictures by',
    '©',
    '(c)',
    'view all posts by',
    'see all posts by',
    'all posts by',
    'more posts by',
    'more from',
    'articles by',
    'posts by',
    'stories by',
    'written by',
    'posted by',
    'published by',
    'created by',
    'reported by',
    'words by',
    'text by',
    'story by',
    'by',
    'zeige alle beiträge von',
    'alle beiträge von',
    'mehr von',
    'geschrieben von',
    'verfasst von',
    'eingestellt von',
    'veröffentlicht von',
    'erstellt von',
    'ein beitrag von',
    'ein artikel von',
    'von',
    'publié par',
    'écrit par',
    'un article de',
    'par',
    'escrito por',
    'publicado por',
    'por',
    'scritto da',
    'di',
    'door',
    'av',
    'af',
    'autor',
    'autorin',
    'autoren',
    'author',
    'authors',
    'autore',
    'auteur',
    'text',
    'texte',
    'interview',
    'redakteur',
    'redakteurin',
    'und',
    'and',
    '&',
  ]
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+'))
    .join('|')})(?:\\s*:\\s*|\\s+)`,
  'i',
);

/** What follows a name on a byline and is not part of it: a date or time, a separator and what comes after. */
const TRAILING = [
  /\s*(?:January|February|March|April|May|June|July|August|September|October|November|December|Januar|Februar|März|Mai|Juni|Juli|Oktober|Dezember)\s+\d{1,2},?\s+\d{4}.*$/,
  /\s+(?:am|on|le|el|il|op)?\s*\d{1,2}[./-]\s?\d{1,2}[./-]\s?\d{2,4}.*$/i,
  /\s+\d{1,2}\.?\s+[A-Za-zäöüéû]+\.?\s+\d{4}.*$/,
  /\s+(?:\||•|·|–|—|-)\s+.*$/,
  /\s*(?:\||•|·|–|—|-|,|;)\s*$/,
  /,\s*(?:PhD|Ph\.D\.|MD|M\.D\.|MSc|MA|BA|RD|CEO|CTO)\.?$/,
  /\s+(?:alle artikel|all articles|mehr artikel|more articles|weitere artikel|all posts|alle beiträge|profil|profile)$/i,
  // A forum's user card after the poster's name: counts and dates, each behind its label (`Posts: 116 Joined: Feb 2019`).
  /\s+(?:Posts|Threads|Messages|Joined|Join Date|Reputation|Member since|Registered|Beiträge|Registriert|Mitglied seit)\s*:.*$/i,
];

/** A byline's label with nobody after it (`Jun 2 Written By` where the name's link is empty; `Geschrieben von`). */
const LABEL_ONLY = /(?:^|\s)(?:by|von|par|por)$/i;

/** A company's legal form: an organisation that owns the site, named where a byline would be, is no author. */
const LEGAL_FORM = /\b(?:GmbH|AG|eG|e\.\s?V\.|KG|Inc\.?|LLC|Ltd\.?|S\.A\.|SAS|S\.r\.l\.|B\.V\.)(?:\s|,|$)/;

/** Placeholders a CMS writes where no person is named, and interface words that stand where a byline goes. */
const PLACEHOLDER =
  /^(?:undefined|null|full bio|bio|website|skip to content|request service|sign in|log in|login|view more posts|read more|order now|contact us|contact|menu|share|follow|subscribe|admin|administrator|wordpressadmin|webmaster|super ?user|no ?author|unknown|anonymous|anonym|guest|gast|redaktion|editor|editors|editorial|staff|team|user|publisher|nom\s*\*?|name\s*\*?|publiziert am|veröffentlicht am|posted on|published on|autoren|authors|alle artikel|all articles|archiv anzeigen.*|mehr artikel|more articles|datum|date)$/i;
/** A weekday or a label (`Donnerstag,`, `Datum:`): what stands where a byline's date goes. */
const NOT_A_NAME =
  /^(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|:$|^\d{1,2}:\d{2}/i;

const MONTH = String.raw`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?`;
/**
 * What a page's markup glues to a name when its elements' texts are joined without a space, and what a byline line
 * carries beside the name: an e-mail address and its envelope, a date before or after, "Published on" after,
 * "By" before, quotes around (`BySummer Swann`, `Reyan PerumalPublished on`, `Dec 17, 2025Julian K. Arni`,
 * `Newsdesk news@example.com`, `“David Kim”`).
 */
const AROUND: [RegExp, string][] = [
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, ' '],
  [/[✉✆☎]|\bCorresponding author\.?/gi, ' '],
  [new RegExp(String.raw`^${MONTH}\s+\d{1,2},?\s+\d{4}\s*`), ''],
  [new RegExp(String.raw`\s*${MONTH}\s+\d{1,2},?\s+\d{4}$`), ''],
  [/(?<=\p{Ll})(?:Published|Posted|Updated|Last updated)\b.*$/u, ''],
  [/\s+(?:Published|Posted|Updated|Last updated)(?:\s+(?:on|at))?$/i, ''],
  [/^By(?=\p{Lu}\p{Ll})/u, ''],
  [/^["“”„']+(.+?)["“”']+$/u, '$1'],
];

/** A byline's name(s), or undefined when what is there names nobody. */
export function cleanByline(text: string): string | undefined {
  if (othersLine(text) || LABEL_ONLY.test(text.trim())) return undefined;
  let name = text.trim();
  for (const [pattern, by] of AROUND) name = name.replace(pattern, by).replace(/\s+/g, ' ').trim();
  for (let before = ''; before !== name; ) {
    before = name;
    name = name.replace(LEADING, '').trim();
  }
  for (const tail of TRAILING) name = withoutExtras(name.replace(tail, '').trim());
  // A name written twice over (a link's text and its title: `Kathrin Führes Kathrin Führes`) once.
  const twice = /^(.{3,60}?)\s+\1$/u.exec(name);
  if (twice) name = twice[1]!;
  if (
    !name ||
    interfaceText(name) ||
    PLACEHOLDER.test(name) ||
    NOT_A_NAME.test(name) ||
    LEGAL_FORM.test(name) ||
    !/\p{L}/u.test(name)
  )
    return undefined;
  if (prose(name)) return undefined;
  return name;
}
