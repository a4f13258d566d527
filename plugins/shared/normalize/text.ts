// A title or description as a field holds it: condensed text of sensible length, with typographic quotes.
import { clean } from '../page/helpers.ts';
import { typographic } from '../page/typography.ts';

/** Accepts a title: condensed text of sensible length, with typographic quotes. */
export function toText(value: unknown): string | undefined {
  const text = clean(typeof value === 'number' ? String(value) : value);
  return text && text.length <= 2000 ? typographic(text) : undefined;
}

/** A dateline in capitals that opens a wire story (`WASHINGTON — `). */
const DATELINE = /^[A-Z\s]+\s+[-—–]\s+/;

/** Accepts a description: as a title, without an opening dateline, and a trailing `...` written as `…`. */
export function toDescription(value: unknown): string | undefined {
  const text = toText(typeof value === 'string' ? value.trim().replace(DATELINE, '') : value);
  return text?.replace(/\s?\.\.\.?$/, '…');
}
