import { isIP } from 'node:net';
import type { Context, Media } from '../../engine/index.ts';
import { absoluteUrl, clean, type Doc } from '../shared/page/helpers.ts';
import { toText } from '../shared/normalize/text.ts';
import { toAuthor } from '../shared/normalize/author.ts';
import { toDate } from '../shared/normalize/date.ts';
import { toPublisher } from '../shared/normalize/publisher.ts';
import { toLang } from '../shared/normalize/lang.ts';
import { toMedia } from '../shared/normalize/media.ts';

/** The value types a rule may ask for. */
export const TYPES = [
  'auto',
  'string',
  'number',
  'boolean',
  'date',
  'url',
  'image',
  'video',
  'audio',
  'logo',
  'title',
  'description',
  'author',
  'publisher',
  'lang',
  'email',
  'ip',
  'object',
  'regexp',
] as const;
export type ValueType = (typeof TYPES)[number];

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]{2,}$/;
const TRUE = new Set(['true', 'yes', 'on', '1', 'y']);
const FALSE = new Set(['false', 'no', 'off', '0', 'n']);

function asText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return clean(value);
}

/** Reads a number out of text as people write it: "$1,299.50", "4.5 out of 5", "1.299,50 €", "-3". */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const text = asText(value);
  const m = text && /-?\d[\d.,\s]*/.exec(text.replace(/\u00a0/g, ' '));
  if (!m) return undefined;
  let digits = m[0].trim().replace(/\s/g, '');
  const lastComma = digits.lastIndexOf(',');
  const lastDot = digits.lastIndexOf('.');
  // The later of "," and "." is the decimal mark when it has 1-2 digits after it or both marks appear.
  if (lastComma > lastDot && (lastDot >= 0 || digits.length - lastComma - 1 <= 2))
    digits = digits.replace(/\./g, '').replace(',', '.');
  else digits = digits.replace(/,/g, '');
  const n = Number(digits.replace(/[.,]$/, ''));
  return Number.isFinite(n) ? n : undefined;
}

/** Validates and normalizes one extracted value to its type; undefined when it is not of that type. */
export async function toType(value: unknown, type: ValueType, doc: Doc, ctx: Context): Promise<unknown> {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'auto':
      return typeof value === 'string' ? value.trim() || undefined : value;
    case 'string':
      return typeof value === 'object' ? JSON.stringify(value) : asText(value);
    case 'number':
      return toNumber(value);
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const text = asText(value)?.toLowerCase();
      return text && TRUE.has(text) ? true : text && FALSE.has(text) ? false : undefined;
    }
    case 'date':
      return toDate(typeof value === 'number' ? value : asText(value));
    case 'url':
      return absoluteUrl(asText(value), doc.url);
    case 'image':
    case 'logo':
    case 'video':
    case 'audio':
      return media(value, type, doc, ctx);
    case 'title':
    case 'description':
      return toText(asText(value));
    case 'author':
      return toAuthor(asText(value));
    case 'publisher':
      return toPublisher(asText(value));
    case 'lang':
      return toLang(asText(value));
    case 'email': {
      const text = asText(value)
        ?.replace(/^mailto:/i, '')
        .split('?')[0];
      return text && EMAIL.test(text) ? text : undefined;
    }
    case 'ip': {
      const text = asText(value);
      return text && isIP(text) ? text : undefined;
    }
    case 'object': {
      if (typeof value === 'object') return value;
      try {
        const parsed: unknown = JSON.parse(String(value));
        return parsed && typeof parsed === 'object' ? parsed : undefined;
      } catch {
        return undefined;
      }
    }
    case 'regexp': {
      const text = asText(value);
      if (!text) return undefined;
      try {
        new RegExp(text);
        return text;
      } catch {
        return undefined;
      }
    }
  }
}

/**
 * A media value: an absolute URL as a Media object, completed by a probe (size, dimensions, duration). A probe
 * that rules the URL out (an error status, a page instead of media, the wrong kind) makes the value invalid; one
 * that cannot tell keeps the URL as declared.
 */
async function media(
  value: unknown,
  type: 'image' | 'logo' | 'video' | 'audio',
  doc: Doc,
  ctx: Context,
): Promise<Media | undefined> {
  const declared = toMedia(
    typeof value === 'object' && value && 'url' in value ? (value as { url: unknown }).url : asText(value),
    doc,
  );
  if (!declared) return undefined;
  const outcome = await ctx.probe(declared.url);
  if (outcome.status === 'unknown') return declared;
  if (outcome.status === 'absent') return undefined;
  const want = type === 'logo' ? 'image' : type;
  if (outcome.kind !== want && !(want === 'video' && outcome.kind === 'other')) return undefined;
  return { ...declared, ...outcome.media, url: declared.url };
}
