import { readdir, readFile } from 'node:fs/promises';

/**
 * Resident memory (bytes) of every process descended from this one — the browsers it launched and their
 * renderers — read from /proc (Linux). Returns 0 where /proc is not available.
 */
export async function descendantsRss(root = process.pid): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return 0;
  }
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map(async (e) => {
    const stat = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => '');
    // Fields after the command name: state ppid ... ; rss (pages) is field 24.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length < 22) return;
    parent.set(Number(e), Number(fields[1]));
    rss.set(Number(e), Number(fields[21]) * 4096);
  }));
  let total = 0;
  for (const [pid, bytes] of rss) {
    let p: number | undefined = parent.get(pid);
    for (let depth = 0; p && depth < 8; depth++) {
      if (p === root) { total += bytes; break; }
      p = parent.get(p);
    }
  }
  return total;
}
