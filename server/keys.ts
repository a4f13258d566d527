import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';

/** A pro key as stored: its digest (never the key itself), an id safe to log and count by, its own quota. */
interface KeyRecord {
  digest: Buffer;
  id: string;
  quota?: number;
}

/** Who a valid key is: an id for quotas and logs (a digest prefix, not the key) and its monthly quota if set. */
export interface KeyOwner {
  id: string;
  quota?: number;
}

/** The pro keys: checked in constant time, re-read from their file when it changes (rotation without restart). */
export interface KeyRing {
  check(key: string): Promise<KeyOwner | undefined>;
}

const digest = (key: string) => createHash('sha256').update(key).digest();

function parse(lines: string[]): KeyRecord[] {
  const out: KeyRecord[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    // `key` or `key <quota>` (space, tab or comma between): the quota is this key's requests per month.
    const [key, quota] = line.split(/[\s,]+/);
    const d = digest(key!);
    out.push({
      digest: d,
      id: `key-${d.toString('hex').slice(0, 12)}`,
      quota: quota !== undefined && /^\d+$/.test(quota) ? Number(quota) : undefined,
    });
  }
  return out;
}

/**
 * Builds the key ring from REFRACT_API_KEYS: a comma-separated list, or one path of a file with one key per
 * line (optionally followed by its quota). A file is re-read when its modification time changes.
 */
export function createKeyRing(setting: readonly string[]): KeyRing {
  const file = setting.length === 1 && /^(\/|\.{1,2}\/)/.test(setting[0]!) ? setting[0]! : undefined;
  let records = file ? [] : parse([...setting]);
  let seen = -1;
  const refresh = async () => {
    if (!file) return;
    const info = await stat(file).catch(() => undefined);
    const mtime = info ? info.mtimeMs + info.size : 0;
    if (mtime === seen) return;
    seen = mtime;
    records = info ? parse((await readFile(file, 'utf8')).split('\n')) : [];
  };
  return {
    async check(key) {
      await refresh();
      const d = digest(key);
      let found: KeyRecord | undefined;
      // Every record is compared, equal digests in constant time: the timing says nothing about which key is close.
      for (const r of records) if (timingSafeEqual(r.digest, d) && !found) found = r;
      return found && { id: found.id, quota: found.quota };
    },
  };
}
