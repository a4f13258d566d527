import { z } from 'zod';
import { camelCase } from './params.ts';
import { formatDuration, parseDuration } from '../kernel/duration.ts';
import { deviceProblem } from './devices.ts';

export { z };

const TRUE = new Set(['', 'true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Reads a query flag: a bare name, `true`, `1` mean true; `false`, `0` mean false; anything else stays as is. */
export function toBoolean(value: unknown): unknown {
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
  }
  return value;
}

/** A boolean query parameter with coercion from text. */
export function bool() {
  return z.preprocess(toBoolean, z.boolean({ error: 'expected true or false' }));
}

/** A number query parameter with coercion from text and optional bounds. */
export function num(opts: { min?: number; max?: number; int?: boolean } = {}) {
  let schema = z.number({ error: 'expected a number' });
  if (opts.int) schema = schema.int({ error: 'expected a whole number' });
  if (opts.min !== undefined) schema = schema.min(opts.min, { error: `expected at least ${opts.min}` });
  if (opts.max !== undefined) schema = schema.max(opts.max, { error: `expected at most ${opts.max}` });
  return z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v),
    schema,
  );
}

/** A text parameter; a list given for it is refused. */
export function text() {
  return z.string({ error: 'expected text' });
}

/** One of a fixed set of words, compared without case. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(values, { error: `expected one of ${values.join(', ')}` }),
  );
}

/** A duration in milliseconds: a number or human text such as `90s`, `1h`, `2 minutes`. */
export function duration(opts: { min?: number; max?: number } = {}) {
  // A bound is said with its unit: `expected at least 60000 ms (1m)`, not a bare number.
  const said = (ms: number) => `${ms} ms (${formatDuration(ms)})`;
  let schema = z.number({ error: 'expected milliseconds or a duration such as 10s' });
  if (opts.min !== undefined) schema = schema.min(opts.min, { error: `expected at least ${said(opts.min)}` });
  if (opts.max !== undefined) schema = schema.max(opts.max, { error: `expected at most ${said(opts.max)}` });
  // The mark tells the API description that text such as `10s` is accepted too.
  return z.preprocess((v) => parseDuration(v) ?? v, schema).meta({ [DURATION_MARK]: true });
}

/** Marks, in a schema's metadata, the forms a parameter accepts besides its validated type (for the API description). */
export const DURATION_MARK = 'x-refract-duration';
export const TEXT_FORM_MARK = 'x-refract-text-form';

/** A string or a list of strings, normalized to a list. */
export function list() {
  return z.preprocess(
    (v) => (typeof v === 'string' ? [v] : v),
    z.array(z.string(), { error: 'expected text or a list of text' }),
  );
}

/**
 * An object of options whose keys may arrive in snake_case or camelCase; unknown keys are dropped and a bare
 * flag (`name=true` with no dotted options) counts as the empty object.
 */
export function options<S extends z.ZodRawShape>(shape: S) {
  const known = new Set(Object.keys(shape));
  return z.preprocess(
    (v) => {
      if (v === undefined || toBoolean(v) === true) return {};
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(v)) {
        const name = camelCase(key);
        if (known.has(name)) out[name] = value;
      }
      return out;
    },
    z.object(shape, { error: 'expected dotted options' }),
  );
}

type Issue = z.core.$ZodIssue;

/**
 * For a value that matched no branch of a union, the problem of the branch that got furthest (the deepest
 * path; a type mismatch at the union itself counts least), with its full path, so the message names the
 * broken key (`data.price.type`) rather than the whole value.
 */
function innermost(issue: Issue, base: readonly PropertyKey[] = []): Issue {
  const path = [...base, ...issue.path];
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return { ...issue, path } as Issue;
  let best: Issue | undefined;
  let bestScore = -1;
  for (const branch of issue.errors) {
    if (!branch[0]) continue;
    const inner = innermost(branch[0], path);
    const score = inner.path.length * 2 + (inner.code === 'invalid_type' && inner.path.length === path.length ? 0 : 1);
    if (score > bestScore) {
      best = inner;
      bestScore = score;
    }
  }
  // No branch got past the union itself: the union's own message ("expected auto, true or false") says it best.
  if (!best || best.path.length === path.length) return { ...issue, path } as Issue;
  return best;
}

/** Formats the first problem of a failed parse as `name: what is expected`. */
export function describeIssue(prefix: string, error: z.ZodError): { param: string; message: string } {
  const issue = innermost(error.issues[0]!);
  const param = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return { param, message: `Invalid \`${param}\`: ${issue.message}` };
}

/** A device preset name, checked against the registry before any I/O (the message suggests the nearest names). */
export function device() {
  return z.string({ error: 'expected a device name' }).superRefine((value, ctx) => {
    const problem = deviceProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  getter?: () => z.ZodType;
};

/** The object shapes and records a value of `schema` may be read by, through wrappers, pipes, unions and lazy schemas. */
function containers(
  schema: z.ZodType,
  seen = new Set<z.ZodType>(),
): { shapes: Record<string, z.ZodType>[]; records: z.ZodType[] } {
  const out = { shapes: [] as Record<string, z.ZodType>[], records: [] as z.ZodType[] };
  if (seen.has(schema)) return out;
  seen.add(schema);
  // zod's public `.def`, the schema's definition.
  const def = (schema as unknown as { def: Def }).def;
  const merge = (inner: z.ZodType | undefined) => {
    if (!inner) return;
    const found = containers(inner, seen);
    out.shapes.push(...found.shapes);
    out.records.push(...found.records);
  };
  if (def.type === 'object' && def.shape) out.shapes.push(def.shape);
  else if (def.type === 'record' && def.valueType) out.records.push(def.valueType);
  else if (def.type === 'pipe') {
    merge(def.in);
    merge(def.out);
  } else if (def.type === 'union') for (const option of def.options ?? []) merge(option);
  else if (def.type === 'lazy' && def.getter) merge(def.getter());
  else merge(def.innerType);
  return out;
}

/** Each schema's containers, found once (schemas do not change): walking a data rule's recursive schema took ~0.8 ms a request. */
const containersOf = new WeakMap<z.ZodType, ReturnType<typeof containers>>();

/**
 * The dotted names under `prefix` that `schema` does not read in `value` (a query's nested options, in any case
 * style): `screenshot.fulPage` for a typo of `fullPage`. Values under records (data rules' names) are any names.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, prefix: string): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  let found = containersOf.get(schema);
  if (!found) containersOf.set(schema, (found = containers(schema)));
  const { shapes, records } = found;
  if (!shapes.length && !records.length) return [];
  const unknown: string[] = [];
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    // The value given to the name itself beside its dotted options (`screenshot=false&screenshot.x=1`).
    if (key === '$value') continue;
    const name = camelCase(key);
    const field =
      shapes
        .map((shape) => (Object.hasOwn(shape, name) ? shape[name] : Object.hasOwn(shape, key) ? shape[key] : undefined))
        .find(Boolean) ?? records[0];
    if (!field) unknown.push(`${prefix}.${key}`);
    else unknown.push(...unknownKeys(field, inner, `${prefix}.${key}`));
  }
  return unknown;
}
