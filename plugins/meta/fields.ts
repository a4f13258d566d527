// Which metadata fields a request asks for. `meta` may be an object, as Microlink documents: a field set true
// selects (`meta.title=true&meta.author=true` answers only those), a field set false leaves one out
// (`meta.logo=false`); `url` is always answered. `video` and `audio` are asked for at the top level, as ever.
import { bool } from '../../engine/index.ts';

/** The fields `meta.<name>` may select or leave out, in the order the answer lists them. */
export const FIELDS = ['lang', 'author', 'title', 'publisher', 'image', 'date', 'description', 'logo'] as const;
export type Field = (typeof FIELDS)[number] | 'video' | 'audio';

/** The dotted options of `meta`: one flag per field. */
const flag = (name: string) => bool().optional().describe(`Answer \`${name}\` (true selects it, false leaves it out).`);
export const fieldFlags = Object.fromEntries(FIELDS.map((name) => [name, flag(name)])) as Record<
  (typeof FIELDS)[number],
  ReturnType<typeof flag>
>;

/**
 * The fields to answer, from `meta`'s options and the top-level `video` and `audio`; undefined when `meta` names
 * none, and every field is answered (`video` and `audio` as null unless asked for), as before selection existed.
 */
export function selectedFields(opts: Record<string, unknown>): ReadonlySet<Field> | undefined {
  const flags = FIELDS.filter((name) => typeof opts[name] === 'boolean');
  if (!flags.length) return undefined;
  // Only flags set false: every other field, as without a selection (`video` and `audio` null unless asked for).
  if (!flags.some((name) => opts[name] === true))
    return new Set<Field>([...FIELDS.filter((name) => opts[name] !== false), 'video', 'audio']);
  const out = new Set<Field>(FIELDS.filter((name) => opts[name] === true));
  if (opts.video === true) out.add('video');
  if (opts.audio === true) out.add('audio');
  return out;
}

/** `record` with only the selected fields and `url`, in the order given. */
export function onlySelected(record: Record<string, unknown>, fields?: ReadonlySet<Field>): Record<string, unknown> {
  if (!fields) return record;
  return Object.fromEntries(Object.entries(record).filter(([key]) => key === 'url' || fields.has(key as Field)));
}
