/** WCAG 2 relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The AA contrast for body text. */
const GOOD = 4.5;

/**
 * Chooses the colours to lay text over the image's colours: the background is the most dominant colour that some
 * other colour of the palette reads well on (AA contrast), else the one with the best contrast available; `color`
 * is the palette colour of highest contrast over it and `alternative_color` the next. A palette of one colour
 * pairs it with black or white, whichever reads better.
 */
export function pickColors(palette: readonly string[]): { background_color: string; color: string; alternative_color: string } {
  const choices = palette.length > 1 ? palette : [...palette, ...['#000000', '#ffffff'].filter((c) => c !== palette[0])];
  let best: { bg: string; ranked: string[]; score: number } | undefined;
  for (const bg of choices) {
    const ranked = choices.filter((c) => c !== bg).sort((x, y) => contrast(bg, y) - contrast(bg, x));
    const score = contrast(bg, ranked[0]!);
    if (score >= GOOD) { best = { bg, ranked, score }; break; }
    if (!best || score > best.score) best = { bg, ranked, score };
  }
  const { bg, ranked } = best!;
  return { background_color: bg, color: ranked[0]!, alternative_color: ranked[1] ?? ranked[0]! };
}
