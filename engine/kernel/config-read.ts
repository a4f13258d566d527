// How each setting's variable is read (config.ts lists the settings): a setting's declaration, and the readers
// of counts, durations, lists, locations and levels, each naming the variable in its error.
import { parseDuration } from './duration.ts';

export type Env = Record<string, string | undefined>;

/** One setting: how its variable's text becomes a value, and what it is when the variable is unset or empty. */
export interface Setting<T> {
  env: string;
  doc: string;
  read(raw: string, name: string): T;
  /** The value when unset: fixed, or computed from the other variables (the warm pages follow the concurrency). */
  fallback: T | ((env: Env) => T);
  /** How the default is written in the docs, when it is not the value itself. */
  shown?: string;
}

export function setting<T>(
  env: string,
  read: (raw: string, name: string) => T,
  fallback: T | ((env: Env) => T),
  doc: string,
  shown?: string,
): Setting<T> {
  return { env, read, fallback, doc, shown };
}

export const text = (raw: string) => raw;
export const list = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
export function count(raw: string, name: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}
export const atLeast = (min: number) => (raw: string, name: string) => Math.max(min, count(raw, name));
export function duration(raw: string, name: string): number {
  const n = parseDuration(raw);
  if (n === undefined) throw new Error(`${name} must be a duration such as 30s or 60000, got "${raw}"`);
  return n;
}
export const durationAtLeast = (min: number) =>
  timed((raw: string, name: string) => Math.max(min, duration(raw, name)));
/** Readers of durations (their defaults are written 28s, 24h). */
export const durationReaders = new WeakSet<object>([duration]);
export function timed<T extends (raw: string, name: string) => number>(read: T): T {
  durationReaders.add(read);
  return read;
}
export function locations(raw: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const pair of list(raw)) {
    const m = /^([a-z]{2})=(.+)$/i.exec(pair);
    if (!m) throw new Error(`REFRACT_PROXY_LOCATIONS entries must look like us=http://host:8000, got "${pair}"`);
    (out[m[1]!.toLowerCase()] ??= []).push(m[2]!);
  }
  return out;
}
export const SANDBOX = ['auto', 'on', 'off'] as const;
export function sandbox(raw: string, name: string): (typeof SANDBOX)[number] {
  if (!(SANDBOX as readonly string[]).includes(raw)) throw new Error(`${name} must be auto, on or off, got "${raw}"`);
  return raw as (typeof SANDBOX)[number];
}
export const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export const level = (raw: string): (typeof LEVELS)[number] =>
  (LEVELS as readonly string[]).includes(raw) ? (raw as (typeof LEVELS)[number]) : 'info';

export const MiB = 1024 * 1024;
export const HOUR = 3600_000;

/** The value of one setting in an environment: read from its variable, or its default. */
export function read<T>(s: Setting<T>, env: Env): T {
  const raw = env[s.env];
  if (raw === undefined || raw === '')
    return typeof s.fallback === 'function' ? (s.fallback as (env: Env) => T)(env) : s.fallback;
  return s.read(raw, s.env);
}
export const PARENT_WATCH = ['npm', 'on', 'off'] as const;
export function parentWatch(raw: string, name: string): (typeof PARENT_WATCH)[number] {
  if (!(PARENT_WATCH as readonly string[]).includes(raw))
    throw new Error(`${name} must be npm, on or off, got "${raw}"`);
  return raw as (typeof PARENT_WATCH)[number];
}
