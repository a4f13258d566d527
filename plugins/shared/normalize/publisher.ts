// A publisher's name as a field holds it.
import { clean } from '../page/helpers.ts';

/** Accepts a publisher name: short text, not a URL or handle. */
export function toPublisher(value: unknown): string | undefined {
  const text = clean(value);
  if (!text || text.length > 80 || /^https?:/i.test(text)) return undefined;
  return text.replace(/\s+logo$/i, '') || undefined;
}
