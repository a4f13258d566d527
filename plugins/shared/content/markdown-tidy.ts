// The last pass over written Markdown (markdown-turndown.ts writes it).
/** Markdown as written out: no trailing spaces, no run of blank lines, no heading that heads nothing. */
export function tidy(markdown: string): string {
  return withoutEmptyHeadings(markdown.replace(/[ \t]+$/gm, ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Drops the headings that head nothing: followed by the end, or by a heading of the same or a higher level (what
 * stood under them was left out: a player, a widget, a list of links). Lines inside fenced code are text.
 */
function withoutEmptyHeadings(markdown: string): string {
  const lines = markdown.split('\n');
  const level = (line: string) => /^(#{1,6}) \S/.exec(line)?.[1]?.length ?? 0;
  const keep = new Array<boolean>(lines.length).fill(true);
  let fence: string | undefined;
  const headings: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^(```|~~~)/.exec(lines[i]!)?.[1];
    if (marker && (!fence || fence === marker)) fence = fence ? undefined : marker;
    else if (!fence && level(lines[i]!)) headings.push(i);
  }
  // From the last heading up, so that a heading over only empty ones goes too. `below`: the level of the next heading
  // kept (0: none is, so nothing follows).
  let below = 0;
  for (let h = headings.length - 1; h >= 0; h--) {
    const i = headings[h]!;
    const end = h + 1 < headings.length ? headings[h + 1]! : lines.length;
    const own = level(lines[i]!);
    const hasText = lines.slice(i + 1, end).some((l) => l.trim() !== '');
    if (!hasText && (below === 0 || below <= own)) keep[i] = false;
    else below = own;
  }
  return lines.filter((_, i) => keep[i]).join('\n');
}
