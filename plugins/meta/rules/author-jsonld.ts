// The authors structured data (JSON-LD) declares (docs/metadata.md, "author"): every one of a list, and a person
// declared on a site of their name.
import { clean, type Doc } from '../../shared/page/helpers.ts';
import { cleanByline } from '../../shared/normalize/byline.ts';
import { comparable } from '../../shared/page/shown.ts';
import { toAuthor } from '../../shared/normalize/author.ts';
import { OTHERS_TYPES, unauthored } from './authored.ts';
import { typesOf } from '../../shared/page/jsonld.ts';

export const personName = (v: unknown): unknown => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object') return (v as { name?: unknown }).name;
  return undefined;
};

/** Several authors as people write them in a list: `A; B; C`. */
export function joinNames(names: string[]): string {
  return names.join('; ');
}

/** Whether the page's text shows a name, as a byline writes it (no `By`, no `@`). */
export function showsName(doc: Doc, name: string): boolean {
  const byline = cleanByline(name.replace(/^@/, ''));
  return !!byline && doc.shown.includes(comparable(byline));
}

/** The id an author given as a graph's reference (`{"@id": "…#/schema/person/1"}`, no name of its own) refers to. */
function reference(a: unknown): unknown {
  if (!a || typeof a !== 'object') return undefined;
  const { name, '@id': id } = a as { name?: unknown; '@id'?: unknown };
  return name || !id ? undefined : id;
}

/** The object a page's JSON-LD graph describes under an id (with a name). */
const described = (doc: Doc, id: unknown) => doc.jsonld.find((o) => o['@id'] === id && o.name);

/**
 * The authors JSON-LD names: every one of a list (`"author": [{ "name": "A" }, { "name": "B" }]` gives `A; B`),
 * where the meta tags, and metascraper, keep only the first.
 */
export function jsonLdAuthors(doc: Doc): string | undefined {
  // A graph names its people once and refers to them (`"author": { "@id": "…#/schema/person/1" }`, as Yoast writes):
  // that person is the account that posted, often not the page's author, so it counts only when the page shows it.
  const resolve = (a: unknown) => {
    const id = reference(a);
    if (id === undefined) return a;
    const name = clean(described(doc, id)?.name);
    return name && showsName(doc, name) ? name : undefined;
  };
  // On a page that has no author of its own (a product, a shelf), the people its reviews and offers name are not it.
  const others = unauthored(doc);
  for (const obj of doc.jsonld) {
    if (others && typesOf(obj).some((t) => OTHERS_TYPES.test(t))) continue;
    const list = Array.isArray(obj.author) ? obj.author : [obj.author];
    // A login (one word: `KatieS`) the page never shows is the account that posted, not a writer it credits.
    const names = [
      ...new Set(
        list
          .map((a) => toAuthor(personName(resolve(a))))
          .filter((n): n is string => !!n && (/\s/.test(n) || showsName(doc, n))),
      ),
    ];
    if (names.length) return joinNames(names);
  }
  return undefined;
}

/** A name as people bear one: a given name and a surname, an initial between or none (not `Eat What Tonight`). */
const PERSON_SHAPE = /^\p{Lu}\p{Ll}+(?:\s\p{Lu}\.)?\s\p{Lu}[\p{Ll}'’-]+$/u;

/**
 * A person JSON-LD declares the page's author (`"author": {"@type": "Person", "name": "Sam Bossley"}`) and the page
 * shows, else the person-shaped name of its `<meta name="author">` on a page that may have an author: the author even
 * when the site bears the person's name (a personal blog, a newsletter), where another source giving the site's name
 * stands for the site (toAuthor). A site's name alone (`og:site_name` shaped as a person's) is not taken: on WCXB it
 * named 45 companies (`Google Cloud`, `Robert Half`) for 9 writers.
 */
export function declaredPerson(doc: Doc): string | undefined {
  const others = unauthored(doc);
  for (const obj of doc.jsonld) {
    if (others && typesOf(obj).some((t) => OTHERS_TYPES.test(t))) continue;
    for (const given of Array.isArray(obj.author) ? obj.author : [obj.author]) {
      // A graph's reference is the person the graph describes under that id.
      const id = reference(given);
      const a = id === undefined ? given : described(doc, id);
      if (!a || typeof a !== 'object' || !typesOf(a as Record<string, unknown>).includes('Person')) continue;
      const name = toAuthor((a as { name?: unknown }).name, doc, { site: false });
      if (name && PERSON_SHAPE.test(name) && showsName(doc, name)) return name;
    }
  }
  const meta = toAuthor(doc.meta.byName.get('author')?.[0], doc, { site: false });
  if (meta && PERSON_SHAPE.test(meta) && showsName(doc, meta) && !others) return meta;
  return undefined;
}
