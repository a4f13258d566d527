import { readdir, readFile } from 'node:fs/promises';

/** One process, as /proc tells: its parent, command name and resident memory (bytes). */
export interface ProcessInfo { pid: number; ppid: number; comm: string; rss: number }

/** Every process of the machine, read from /proc (Linux); empty where /proc is not available. */
export async function processTable(): Promise<ProcessInfo[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const table = await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map(async (e): Promise<ProcessInfo | undefined> => {
    const stat = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (in parentheses): state ppid ... ; rss (pages) is field 24.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length < 22) return undefined;
    return { pid: Number(e), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), rss: Number(fields[21]) * 4096 };
  }));
  return table.filter((p) => p !== undefined);
}

/** The processes of `table` descended from `root` (at most 8 levels down). */
export function descendantsOf(table: readonly ProcessInfo[], root: number): ProcessInfo[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  return table.filter((p) => {
    for (let at = parent.get(p.pid), depth = 0; at && depth < 8; at = parent.get(at), depth++) if (at === root) return true;
    return false;
  });
}

/**
 * Resident memory (bytes) of every process descended from this one — the browsers it launched and their
 * renderers — read from /proc (Linux). Returns 0 where /proc is not available.
 */
export async function descendantsRss(root = process.pid): Promise<number> {
  return descendantsOf(await processTable(), root).reduce((total, p) => total + p.rss, 0);
}
