import { RefractError } from '../kernel/errors.ts';
import { text, z } from './schema.ts';

/** How the stored Data object is answered: read here (`filter`, `embed`) and by the asset store (`filename`). */
export const outputOptions = {
  filter: z.preprocess((v) => (typeof v === 'string' ? v.split(',') : v), z.array(z.string().trim().min(1)).optional()),
  embed: text().optional(),
  filename: text()
    .refine((v) => /\w/.test(v), { error: 'expected a file name with letters or digits, such as my-shot' })
    .optional(),
};

/** The value at a dot path, through own properties only (`__proto__`, `constructor`... name nothing there). */
function getPath(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Defines the value at a dot path as own data properties (a `__proto__` name stays a plain key). */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  const define = (node: Record<string, unknown>, key: string, v: unknown) =>
    Object.defineProperty(node, key, { value: v, enumerable: true, writable: true, configurable: true });
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(node, part) ? node[part] : undefined;
    if (!next || typeof next !== 'object') define(node, part, {});
    node = node[part] as Record<string, unknown>;
  }
  define(node, parts[parts.length - 1]!, value);
}

/** Keeps only the listed dot paths of the payload (`filter=title,image.url`); absent paths are left out. */
export function applyFilter(data: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    const value = getPath(data, path);
    if (value !== undefined) setPath(out, path, value);
  }
  return out;
}

/** Reads the field that `embed` names; a missing field is EINVALQUERY naming the path. */
export function embedValue(data: Record<string, unknown>, path: string): unknown {
  const value = getPath(data, path);
  if (value === undefined || value === null) {
    throw new RefractError('EINVALQUERY', `Invalid \`embed\`: the payload has no value at \`${path}\``, {
      data: { param: 'embed' },
    });
  }
  return value;
}

/** The Data object as a caller asked for it (`filter`), for the API and crawls alike. */
export function filtered(
  data: Record<string, unknown>,
  options: { filter?: readonly string[] | undefined },
): Record<string, unknown> {
  return options.filter ? applyFilter(data, options.filter) : data;
}
