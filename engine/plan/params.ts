/** A value parsed from the query string: text, a list, or a nested object of dotted keys. */
export type Raw = string | Raw[] | RawObject;
/** A nested object of query values; `$value` holds a scalar given beside dotted children (`a=false&a.b=1`). */
export interface RawObject {
  [key: string]: Raw;
}

const SNAKE = /_([a-z0-9])/g;

/** Turns `full_page` into `fullPage`; names already in camelCase are returned unchanged. */
export function camelCase(name: string): string {
  return name.replace(SNAKE, (_, c: string) => c.toUpperCase());
}

function isObject(value: Raw | undefined): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A container for parsed keys. Entries are only ever read as own properties and written as data properties
 * (`put`), so `__proto__`, `constructor` and `prototype` are plain names: nothing a client sends can reach
 * Object.prototype (`a.__proto__.pp.0=x` once polluted every object, and the next request crashed the process).
 */
function bare(): RawObject {
  return {};
}

/** Reads an own entry only (a list's `constructor` or `__proto__` is not a value of the query). */
function own(container: RawObject | Raw[], key: string): Raw | undefined {
  return Object.hasOwn(container, key) ? (container as Record<string, Raw>)[key] : undefined;
}

/** Writes an own entry, as data: never through a setter such as `__proto__`. */
function put(container: RawObject | Raw[], key: string, value: Raw): void {
  Object.defineProperty(container, key, { value, writable: true, enumerable: true, configurable: true });
}

function assign(target: RawObject | Raw[], key: string, value: Raw): void {
  const prev = own(target, key);
  if (prev === undefined) put(target, key, value);
  else if (isObject(prev) && typeof value === 'string') prev.$value = value;
  else if (isObject(value) && typeof prev === 'string') put(target, key, { ...value, $value: prev });
  else if (Array.isArray(prev) && typeof value === 'string') prev.push(value);
  else if (typeof prev === 'string' && typeof value === 'string') put(target, key, [prev, value]);
}

function child(container: RawObject | Raw[], key: string, numericNext: boolean): RawObject | Raw[] {
  const prev = own(container, key);
  if (isObject(prev) || Array.isArray(prev)) return prev;
  const next: RawObject | Raw[] = numericNext ? [] : bare();
  if (typeof prev === 'string' && !numericNext) (next as RawObject).$value = prev;
  put(container, key, next);
  return next;
}

/**
 * Parses a query string into a nested tree following the naming rules of the contract: dotted keys nest,
 * numeric segments become list positions, a repeated key becomes a list, a bare key is the empty string.
 * Top-level names are normalized to camelCase; nested names are left to each schema.
 */
export function parseQuery(search: string | URLSearchParams): RawObject {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const root = bare();
  for (const [fullKey, value] of params) {
    if (!fullKey) continue;
    const parts = fullKey.split('.');
    parts[0] = camelCase(parts[0]!);
    let node: RawObject | Raw[] = root;
    for (let i = 0; i < parts.length - 1; i++) {
      node = child(node, parts[i]!, /^\d+$/.test(parts[i + 1]!));
    }
    assign(node, parts[parts.length - 1]!, value);
  }
  return compactArrays(root) as RawObject;
}

function compactArrays(value: Raw): Raw {
  // A plain loop: `filter` and `map` would read the list's own `constructor` entry (`a.0=x&a.constructor=y`).
  if (Array.isArray(value)) {
    const out: Raw[] = [];
    for (let i = 0; i < value.length; i++) if (value[i] !== undefined) out.push(compactArrays(value[i]!));
    return out;
  }
  if (isObject(value)) {
    for (const key of Object.keys(value)) put(value, key, compactArrays(value[key]!));
  }
  return value;
}

/** The options of a request as a library, a crawl body or a tool gives them: query text, or an object. */
export type QueryInput = string | URLSearchParams | Readonly<Record<string, unknown>> | undefined;

/**
 * Options given as an object, written as the query string `GET /` would read (one shape for every entry point):
 * nested objects as dotted names, lists as numbered keys, `true`/`false`/numbers as text, `null` and `undefined`
 * left out. A dotted key stays dotted (`{ 'linkStats.selector': 'body' }` is `linkStats.selector=body`), so it
 * nests exactly as it does in a query string; `{ screenshot: false }` is `screenshot=false`, never a step turned on.
 */
export function queryParams(input: QueryInput): URLSearchParams {
  if (input === undefined) return new URLSearchParams();
  if (typeof input === 'string') return new URLSearchParams(input);
  if (input instanceof URLSearchParams) return new URLSearchParams(input);
  const out = new URLSearchParams();
  // Iterative: an object nested thousands deep (from JSON) must not exhaust the stack.
  const stack: [string, unknown][] = Object.entries(input).reverse();
  while (stack.length) {
    const [name, value] = stack.pop()!;
    if (value === undefined || value === null) continue;
    if (typeof value === 'object') {
      const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([`${name}.${entries[i]![0]}`, entries[i]![1]]);
    } else out.append(name, String(value));
  }
  return out;
}

/** Parses options given in any accepted shape (see `queryParams`) into the query tree `parseQuery` makes. */
export function parseOptions(input: QueryInput): RawObject {
  return parseQuery(queryParams(input));
}
