import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { macOf, signingSecretOf } from '../engine/index.ts';

/** A pro key as stored: its digest (never the key itself), an id safe to log and count by, its own quota. */
interface KeyRecord {
  digest: Buffer;
  id: string;
  quota?: number;
  /** Its signing secret, once derived, with the master secret it was derived from. */
  signing?: { master: string; secret: string };
}

/** Who a valid key is: an id for quotas and logs (a digest prefix, not the key) and its monthly quota if set. */
export interface KeyOwner {
  id: string;
  quota?: number;
}

/** The pro keys: checked in constant time, re-read from their file when it changes (rotation without restart). */
export interface KeyRing {
  check(key: string): Promise<KeyOwner | undefined>;
  /** The key whose signing secret (derived from `master`) gives `mac` for `canonical`, if any. */
  signer(canonical: string, mac: string, master: string): Promise<KeyOwner | undefined>;
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
    async signer(canonical, mac, master) {
      await refresh();
      const given = Buffer.from(mac);
      let found: KeyRecord | undefined;
      // Every key's MAC is computed and compared, as every digest is above.
      for (const r of records) {
        if (r.signing?.master !== master) r.signing = { master, secret: signingSecretOf(master, r.digest) };
        const expected = Buffer.from(macOf(canonical, r.signing.secret));
        if (expected.length === given.length && timingSafeEqual(expected, given) && !found) found = r;
      }
      return found && { id: found.id, quota: found.quota };
    },
  };
}
