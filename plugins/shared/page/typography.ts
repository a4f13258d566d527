import { createRequire } from 'node:module';

const smartquotes = createRequire(import.meta.url)('smartquotes') as { string(text: string): string };

/** Straight quotes and apostrophes made typographic (`"a"` → `“a”`, `it's` → `it’s`), as metascraper writes them. */
export function typographic(text: string): string {
  return /["']/.test(text) ? smartquotes.string(text) : text;
}
