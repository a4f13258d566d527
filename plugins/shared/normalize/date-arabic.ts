// Dates written in Arabic script, as chrono (which has no Arabic) can read them (date.ts).

/** Arabic script: its digits (Arabic-Indic and Persian) and its month names, which chrono does not read. */
export const ARABIC_SCRIPT = /[\u0600-\u06FF]/;
/**
 * The Gregorian months as Arabic writes them: Egypt's and the Gulf's names (`أكتوبر`), and the Levant's and Iraq's
 * (`تشرين الأول`), each with its English name.
 */
const ARABIC_MONTHS: [RegExp, string][] = (
  [
    ['يناير|كانون الثاني', 'January'],
    ['فبراير|شباط', 'February'],
    ['مارس|آذار', 'March'],
    ['أبريل|ابريل|إبريل|نيسان', 'April'],
    ['مايو|أيار|ايار', 'May'],
    ['يونيو|يونية|حزيران', 'June'],
    ['يوليو|يولية|تموز', 'July'],
    ['أغسطس|اغسطس|آب', 'August'],
    ['سبتمبر|أيلول|ايلول', 'September'],
    ['أكتوبر|اكتوبر|تشرين الأول', 'October'],
    ['نوفمبر|تشرين الثاني', 'November'],
    ['ديسمبر|كانون الأول', 'December'],
  ] as const
).map(([names, english]) => [new RegExp(`(?<![\\u0600-\\u06FF])(?:${names})(?![\\u0600-\\u06FF])`, 'gu'), english]);

/** A date written in Arabic script as chrono reads it: Western digits, English month names. */
export function inLatin(text: string): string {
  let latin = text.replace(/[\u0660-\u0669\u06F0-\u06F9]/g, (d) => String((d.charCodeAt(0) - 0x0660) % 0x90));
  for (const [month, english] of ARABIC_MONTHS) latin = latin.replace(month, ` ${english} `);
  return latin;
}
