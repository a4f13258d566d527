// An author given by a login (`christian.stadtfeld`, as a CMS's account names it) is the full name the page shows
// for it (`(Christian P. Stadtfeld)`). A first name alone stays as it is: a byline that shows `Konstantin` is read
// as `Konstantin` (completing first names from the page's text lost 10 of the labelled pages for 3 gained), unless
// the structured data's own person says more: a `Person` named `Nils` whose description, the bio its author wrote,
// opens with `Nils Pickert ist freier Autor` is Nils Pickert.
import { clean, type Doc } from '../page/doc.ts';

/** A login's word (letters only) matching in any case (`[Nn][Ii][Ll][Ss]`): the page may write it in capitals. */
const anyCase = (word: string) => [...word].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');

/**
 * The full name the page shows for an author given as a `first.last` or `first_last` login: its two words with an
 * initial between or none (`Christian P. Stadtfeld`), as the page writes it most often. Anything else, or a login
 * the page never writes out, is answered as it was.
 */
export function fullName(doc: Doc, name: string): string {
  if (/^\p{Lu}\p{Ll}+$/u.test(name)) return describedName(doc, name) ?? name;
  const login = /^(\p{Ll}+)[._](\p{Ll}+)$/u.exec(name);
  if (!login) return name;
  const pattern = new RegExp(
    String.raw`(?<![\p{L}\p{N}])${anyCase(login[1]!)}(?:\s+\p{Lu}\.)?\s+${anyCase(login[2]!)}(?![\p{L}\p{N}])`,
    'gu',
  );
  const seen = new Map<string, number>();
  for (const [match] of doc.shownText.matchAll(pattern)) {
    const written = match.replace(/\s+/g, ' ');
    seen.set(written, (seen.get(written) ?? 0) + 1);
  }
  let best: string | undefined;
  for (const [written, n] of seen) if (!best || n > seen.get(best)!) best = written;
  return best ?? name;
}

/** The full name a JSON-LD `Person` named by a first name alone opens its description with (`Stefanus Stahl - …`). */
function describedName(doc: Doc, first: string): string | undefined {
  const opening = new RegExp(String.raw`^${first}(?:\s+\p{Lu}[\p{L}'’-]+){1,2}(?![\p{L}\p{N}])`, 'u');
  for (const obj of doc.jsonld) {
    if (clean(obj.name) !== first || !/Person/.test(String(obj['@type']))) continue;
    const found = opening.exec(clean(obj.description) ?? '');
    if (found) return found[0].replace(/\s+/g, ' ');
  }
  return undefined;
}
