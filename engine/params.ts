/** A value parsed from the query string: text, a list, or a nested object of dotted keys. */
export type Raw = string | Raw[] | RawObject;
/** A nested object of query values; `$value` holds a scalar given beside dotted children (`a=false&a.b=1`). */
export interface RawObject { [key: string]: Raw }

const SNAKE = /_([a-z0-9])/g;

/** Turns `full_page` into `fullPage`; names already in camelCase are returned unchanged. */
export function camelCase(name: string): string {
  return name.replace(SNAKE, (_, c: string) => c.toUpperCase());
}

function isObject(value: Raw | undefined): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function assign(target: RawObject | Raw[], key: string, value: Raw): void {
  const slot = target as Record<string, Raw>;
  const prev = slot[key];
  if (prev === undefined) slot[key] = value;
  else if (isObject(prev) && typeof value === 'string') prev.$value = value;
  else if (isObject(value) && typeof prev === 'string') slot[key] = { ...value, $value: prev };
  else if (Array.isArray(prev) && typeof value === 'string') prev.push(value);
  else if (typeof prev === 'string' && typeof value === 'string') slot[key] = [prev, value];
}

function child(container: RawObject | Raw[], key: string, numericNext: boolean): RawObject | Raw[] {
  const slot = container as Record<string, Raw>;
  const prev = slot[key];
  if (isObject(prev) || Array.isArray(prev)) return prev;
  const next: RawObject | Raw[] = numericNext ? [] : {};
  if (typeof prev === 'string' && !numericNext) (next as RawObject).$value = prev;
  slot[key] = next;
  return next;
}

/**
 * Parses a query string into a nested tree following the naming rules of the contract: dotted keys nest,
 * numeric segments become list positions, a repeated key becomes a list, a bare key is the empty string.
 * Top-level names are normalized to camelCase; nested names are left to each schema.
 */
export function parseQuery(search: string | URLSearchParams): RawObject {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search;
  const root: RawObject = {};
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
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compactArrays);
  if (isObject(value)) {
    for (const key of Object.keys(value)) value[key] = compactArrays(value[key]!);
  }
  return value;
}
