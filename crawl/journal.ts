import { closeSync, mkdirSync, openSync, readFileSync, writeSync, existsSync, ftruncateSync } from 'node:fs';
import path from 'node:path';
import type { Link } from './walk.ts';

/** A crawl's journal: one JSON line per visited page (its links) and per result the caller took. */
export interface Journal {
  /** Pages visited in earlier runs, with the links they found. */
  readonly pages: readonly { url: string; depth: number; links: Link[] }[];
  /** Results the caller took in earlier runs. */
  readonly done: readonly string[];
  page(url: string, depth: number, links: readonly Link[]): void;
  taken(url: string): void;
  close(): void;
}

/**
 * Reads lines of JSON from a file that a killed process may have left with a torn last line: that line is cut
 * off (the file is truncated to its last newline) so that new lines start clean.
 */
export function readLines(file: string): unknown[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    const fd = openSync(file, 'r+');
    try {
      ftruncateSync(fd, Buffer.byteLength(text.slice(0, end)));
    } finally {
      closeSync(fd);
    }
  }
  const out: unknown[] = [];
  for (const line of text.slice(0, end).split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      /* a line that is no JSON is not ours: skip it */
    }
  }
  return out;
}

/** Opens (or starts) the journal in `dir`. Writes are synchronous, one line each, so a kill loses no finished line. */
export function openJournal(dir: string): Journal {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'journal.jsonl');
  const pages: { url: string; depth: number; links: Link[] }[] = [];
  const done: string[] = [];
  for (const rec of readLines(file) as { page?: string; depth?: number; links?: Link[]; done?: string }[]) {
    if (typeof rec.page === 'string') pages.push({ url: rec.page, depth: rec.depth ?? 0, links: rec.links ?? [] });
    else if (typeof rec.done === 'string') done.push(rec.done);
  }
  const fd = openSync(file, 'a');
  let open = true;
  // After close (a caller that stopped early), pages still in flight write nothing: the descriptor may be reused.
  const write = (rec: unknown) => {
    if (open) writeSync(fd, `${JSON.stringify(rec)}\n`);
  };
  return {
    pages,
    done,
    page: (url, depth, links) => write({ page: url, depth, links }),
    taken: (url) => write({ done: url }),
    close: () => {
      if (open) {
        open = false;
        closeSync(fd);
      }
    },
  };
}
