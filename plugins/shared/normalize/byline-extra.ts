// What stands where a byline goes and is no name, in any page's interface: buttons and links (`Sign In Join Us`,
// `Learn More`, `Get in touch`, `Topic Author`), a reading time (`•5 min read`), and a job title glued to the name
// (`Keith Barry Senior Autos Reporter`: the title's words follow the name with no comma between), and a sentence.

/** The words of a page's interface: a text made of these alone names nobody. */
const INTERFACE = new Set(
  'sign in up out log join us learn more get touch contact read view see all about register subscribe follow share order now buy shop book call today download menu search home back next previous topic author reply quote report profile posts comments here click set sort ascending descending direction page'.split(
    ' ',
  ),
);

/** Words that begin a job title written after a name (`Senior`, `Staff`, `Content Marketing`). */
const ROLE_START_WORDS =
  'Senior|Former|Junior|Staff|Chief|Contributing|Managing|Executive|Associate|Deputy|Assistant|Lead|Head|Content|Marketing|Digital|Editorial|Freelance|Guest|Features?|News|Sports?|Political|Business|Travel|Science|Health|Tech|Technology|Social|Product|Principal';
const ROLE_START = new RegExp(`^(?:${ROLE_START_WORDS})$`);
/** The noun that ends a job title. */
const ROLE_END =
  /^(?:Reporter|Editor|Writer|Correspondent|Coordinator|Manager|Director|Contributor|Columnist|Journalist|Producer|Analyst|Specialist|Strategist|Consultant|Officer|Intern|Designer|Developer|Engineer|Photographer|Expert|Lead)$/;

/** A job title that follows a name: a word that begins one, capitalised words after it, then a comma. */
const ROLE_AFTER = new RegExp(String.raw`\s(?:${ROLE_START_WORDS})(?:\s\p{Lu}[\p{L}-]*)+(?=,)`, 'u');
/** A reading time beside a name (`•5 min read`, `3 minute read`). */
const READING_TIME = /\s*[•·|]?\s*\d+\s*(?:min|mins|minutes?)\.?\s+read\b\s*/gi;

/** A machine's date after the name (`Nick van Mead 2022-11-23T08:10+02:00`). */
const ISO_AFTER = /\s+\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A byline's text without a reading time, a machine's date and a job title after the name. */
export function withoutExtras(name: string): string {
  const text = name.replace(READING_TIME, ' ').replace(ISO_AFTER, '').trim();
  const words = text.split(/\s+/);
  if (words.length >= 3 && !text.includes(',') && ROLE_END.test(words.at(-1)!)) {
    const start = words.findIndex((w, i) => i >= 2 && ROLE_START.test(w));
    return words.slice(0, start > 0 ? start : words.length - 1).join(' ');
  }
  // A title's first words after the name, capitalised up to a comma (`Matt Check Head Winemaker, Co-Founder`).
  const role = ROLE_AFTER.exec(text);
  if (role && role.index > 0 && role[0].trim().split(/\s+/).length <= 4 && text.slice(0, role.index).includes(' '))
    return text.slice(0, role.index);
  return text;
}

/** Whether a text ends as a job title does (`Privacy and Digital Security Expert`): a role, not a name. */
export function endsInRole(text: string): boolean {
  return ROLE_END.test(text.split(/\s+/).at(-1) ?? '');
}

/** Whether a text is the page's interface, not a name: every word of it a button's or a link's. */
export function interfaceText(text: string): boolean {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter(Boolean);
  return words.length > 0 && words.every((w) => INTERFACE.has(w));
}

/** Lower-case words that names carry (`Jan van Dijk`, `Eva de la Cruz`) or that join them (`A und B`). */
const IN_NAMES = new Set(
  'von van vom de der den del della di da das do dos du la le les zu zum ten ter bin al y e und and et &'.split(' '),
);

/**
 * A sentence, not a name: four words or more, one of them a lower-case word that names neither carry nor join with
 * (`Jan Fleischhauer, deutscher Journalist, Kolumnist und Autor`, a caption; `… ist ein Partner-Service von …`).
 * Three words may be a user's name (`Catch more fish`).
 * Words with a digit, a dot or an `@` are a handle's or an abbreviation's (`Dr. med.`), not read.
 */
export function prose(name: string): boolean {
  const words = name.split(/[\s,;]+/).filter(Boolean);
  return words.length >= 4 && words.some((w) => /^\p{Ll}/u.test(w) && !/[\d.@]/.test(w) && !IN_NAMES.has(w));
}

/** A reviewer's line (`Geprüft von Dr. med. …`, `Medically reviewed by …`): who checked the page, not who wrote it. */
const REVIEWER =
  /^\s*(?:(?:medically|fact[- ]?)?\s*(?:reviewed|checked)\s+by|(?:medizinisch\s+)?(?:geprüft|überprüft)\s+von)\s/i;

/** What only a commenter's line ends with. */
const COMMENTER = /\s(?:sagt|says|dit|dice|schreibt|meint|wrote)\s*:?(?:\s|$)/i;

/** Whether a byline's text is someone else's line: a commenter's (`Harm Otten sagt:`) or a reviewer's. */
export function othersLine(text: string): boolean {
  return COMMENTER.test(text) || REVIEWER.test(text);
}
