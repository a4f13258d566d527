import { hex } from 'wcag-contrast';

/** WCAG 2 contrast ratio of two #rrggbb colours (1 to 21), unrounded (wcag-contrast's). */
export const contrast = (a: string, b: string): number => hex(a, b);

/** The AA contrast for body text. */
const GOOD = 4.5;

/**
 * Chooses the colours to lay text over the image's colours: the background is the most dominant colour that some
 * other colour of the palette reads well on (AA contrast), else the one with the best contrast available; `color`
 * is the palette colour of highest contrast over it and `alternative_color` the next. A palette of one colour
 * pairs it with black or white, whichever reads better.
 */
export function pickColors(palette: readonly string[]): {
  background_color: string;
  color: string;
  alternative_color: string;
} {
  const choices =
    palette.length > 1 ? palette : [...palette, ...['#000000', '#ffffff'].filter((c) => c !== palette[0])];
  let best: { bg: string; ranked: string[]; score: number } | undefined;
  for (const bg of choices) {
    const ranked = choices.filter((c) => c !== bg).sort((x, y) => contrast(bg, y) - contrast(bg, x));
    const score = contrast(bg, ranked[0]!);
    if (score >= GOOD) {
      best = { bg, ranked, score };
      break;
    }
    if (!best || score > best.score) best = { bg, ranked, score };
  }
  const { bg, ranked } = best!;
  return { background_color: bg, color: ranked[0]!, alternative_color: ranked[1] ?? ranked[0]! };
}
