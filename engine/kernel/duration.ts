import ms from 'ms';

/**
 * Parses milliseconds (number or digits) or human text such as `90s`, `1h`, `2 minutes`; undefined if neither
 * (an empty value, a bare flag, text `ms` cannot read): never throws, so bad input is a 400 and not a 500.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  // ms() throws on an empty string and on text over 100 characters.
  if (!text || text.length > 100) return undefined;
  let n: number | undefined;
  try {
    n = ms(text as ms.StringValue);
  } catch {
    return undefined;
  }
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Formats milliseconds as short human text, e.g. `1d`, `5h`, `90s` → `2m`. */
export function formatDuration(value: number): string {
  return ms(Math.max(0, Math.round(value)));
}
