import { durationReaders, HOUR, MiB, read, type Env, type Setting } from './config-read.ts';
import { SERVICE_SETTINGS } from './config-service.ts';
import { WORK_SETTINGS } from './config-work.ts';

/**
 * Every setting Refract reads from the environment, declared once: its variable, how its text is read, its
 * default, and its documentation, in which `{default}` stands for the default as shown. The `Config` type, the
 * parsing in `loadConfig`, and ENV_DOCS (README's settings table and `--help` carry its rows: a test checks
 * README against it) all come from this one list, so a default cannot differ between them.
 */

/** Refract's settings, by their name in `Config`: the service's and the work's. */
export const SETTINGS = { ...SERVICE_SETTINGS, ...WORK_SETTINGS };

type Settings = typeof SETTINGS;
/** Refract's configuration: one value per setting, typed by how that setting is read. */
export type Config = { [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never };

/** A default as the docs write it: durations in their unit (28s, 24h), sizes in MiB or GiB. */
export function shownDefault(key: keyof Settings): string {
  const s = SETTINGS[key] as Setting<unknown>;
  if (s.shown !== undefined) return s.shown;
  const value = s.fallback as unknown;
  if (typeof value === 'number' && durationReaders.has(s.read))
    return value % HOUR === 0 ? `${value / HOUR}h` : value % 1000 === 0 ? `${value / 1000}s` : `${value} ms`;
  if (typeof value === 'number' && value >= MiB && value % MiB === 0)
    return value % (1024 * MiB) === 0 ? `${value / (1024 * MiB)} GiB` : `${value / MiB} MiB`;
  return String(value);
}

/** Documentation of each environment variable, keyed by name, its default written in. */
export const ENV_DOCS: Record<string, string> = Object.fromEntries(
  (Object.keys(SETTINGS) as (keyof Settings)[]).map((key) => {
    const shown = shownDefault(key);
    return [SETTINGS[key].env, SETTINGS[key].doc.replace('{default}', shown)];
  }),
);

/** Builds the configuration from an environment (process.env by default); throws on a malformed value. */
export function loadConfig(env: Env = process.env): Config {
  return Object.fromEntries(
    (Object.keys(SETTINGS) as (keyof Settings)[]).map((key) => [key, read(SETTINGS[key] as Setting<unknown>, env)]),
  ) as Config;
}
