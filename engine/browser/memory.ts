import { readdir, readFile } from 'node:fs/promises';

/** One process, as /proc tells: its parent, command name and resident memory (bytes). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  rss: number;
}

/** Every process of the machine, read from /proc (Linux); empty where /proc is not available. */
export async function processTable(): Promise<ProcessInfo[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const table = await Promise.all(
    entries
      .filter((e) => /^\d+$/.test(e))
      .map(async (e): Promise<ProcessInfo | undefined> => {
        const stat = await readFile(`/proc/${e}/stat`, 'utf8').catch(() => '');
        // Fields after the command name (in parentheses): state ppid ... ; rss (pages) is field 24.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.length < 22) return undefined;
        return {
          pid: Number(e),
          ppid: Number(fields[1]),
          comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
          rss: Number(fields[21]) * 4096,
        };
      }),
  );
  return table.filter((p) => p !== undefined);
}

/** The processes of `table` descended from `root` (at most 8 levels down). */
export function descendantsOf(table: readonly ProcessInfo[], root: number): ProcessInfo[] {
  const parent = new Map(table.map((p) => [p.pid, p.ppid]));
  return table.filter((p) => {
    for (let at = parent.get(p.pid), depth = 0; at && depth < 8; at = parent.get(at), depth++)
      if (at === root) return true;
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

/** A process's private memory (bytes): its resident anonymous pages, and its resident shared memory, from /proc. */
async function privateOf(pid: number): Promise<{ anon: number; shmem: number } | undefined> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text ?? '')?.[1] ?? NaN) * 1024;
  const anon = kb('RssAnon');
  return Number.isFinite(anon) ? { anon, shmem: kb('RssShmem') || 0 } : undefined;
}

/**
 * Memory of the processes descended from this one (the browsers and their renderers) close to what the kernel
 * charges for them: the sum of their resident anonymous memory (private to each), plus the largest resident shared
 * memory one of them maps (Chromium's shared segments, counted once). Summed RSS counts the pages every Chromium
 * process shares (its binary, fonts) once per process: one idle browser summed to 1.8-2 GB of RSS, so a 2 GiB
 * ceiling on it replaced browsers after nearly every request. PSS (smaps_rollup) is the exact figure but took
 * 0.5-2 s to read for one browser's 16 processes here; this takes ~10-40 ms and read 404 MB where PSS read 362 MB.
 * A process whose status cannot be read counts its RSS. Returns 0 where /proc is not available.
 */
export async function descendantsMemory(root = process.pid): Promise<number> {
  const parts = await Promise.all(
    descendantsOf(await processTable(), root).map(async (p) => (await privateOf(p.pid)) ?? { anon: p.rss, shmem: 0 }),
  );
  return parts.reduce((total, p) => total + p.anon, 0) + Math.max(0, ...parts.map((p) => p.shmem));
}
