// The package's public surface: every name each entry of package.json "exports" gives, and whether it is a value or
// only a type. `npm run api` prints it; test/package/api.test.ts compares it with docs/api.md (and the values with
// what the entry really exports at run time). The entries list their names explicitly (no `export *`), which is
// what this reads: TypeScript 7's compiler has no JavaScript API to ask instead.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The package's entries and the source file each is built from. */
export const ENTRIES: Record<string, string> = {
  'refract-api': 'lib/index.ts',
  'refract-api/plugins': 'plugins/index.ts',
  'refract-api/testing': 'testing/index.ts',
};

export interface Exported {
  entry: string;
  name: string;
  kind: 'value' | 'type';
}

/** The names one source file exports, by the forms it may use; `export *` is refused (it would hide the names). */
export function exportsOf(source: string): { name: string; kind: 'value' | 'type' }[] {
  if (/^export\s+\*/m.test(source)) throw new Error('an entry exports its names one by one, never with export *');
  const out: { name: string; kind: 'value' | 'type' }[] = [];
  for (const m of source.matchAll(/^export\s+(type\s+)?\{([^}]*)\}/gm)) {
    for (const part of m[2]!
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const typeOnly = Boolean(m[1]) || part.startsWith('type ');
      const name = part
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      out.push({ name, kind: typeOnly ? 'type' : 'value' });
    }
  }
  for (const m of source.matchAll(
    /^export\s+(?:declare\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type)\s+([A-Za-z_$][\w$]*)/gm,
  )) {
    out.push({ name: m[2]!, kind: m[1] === 'interface' || m[1] === 'type' ? 'type' : 'value' });
  }
  return out;
}

/** Every name the entries export, sorted by entry, then name. */
export function apiSurface(): Exported[] {
  const out: Exported[] = [];
  for (const [entry, file] of Object.entries(ENTRIES)) {
    for (const e of exportsOf(readFileSync(path.join(ROOT, file), 'utf8'))) out.push({ entry, ...e });
  }
  return out.sort((a, b) => a.entry.localeCompare(b.entry) || a.name.localeCompare(b.name));
}

if (import.meta.main) {
  for (const { entry, name, kind } of apiSurface()) console.log(`| \`${name}\` | ${kind} | ${entry} |`);
}
