import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** One provider of the oEmbed registry format (the shipped list and operator files share it). */
export interface Provider {
  provider_name: string;
  endpoints: { schemes?: string[]; url: string }[];
}

/** A compiled endpoint: the URL patterns it serves and its API address. */
export interface Endpoint { name: string; patterns: RegExp[]; url: string }

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a scheme such as `https://*.youtube.com/watch*` into a pattern (either protocol matches). */
function compile(scheme: string): RegExp {
  const rest = scheme.replace(/^https?:\/\//i, '');
  return new RegExp(`^https?://${rest.split('*').map(escape).join('.*')}$`, 'i');
}

/** Compiles a providers list; endpoints without schemes are discovery-only and are skipped. */
export function compileProviders(list: readonly Provider[]): Endpoint[] {
  const out: Endpoint[] = [];
  for (const provider of list) {
    for (const endpoint of provider.endpoints ?? []) {
      if (!endpoint.schemes?.length || !endpoint.url) continue;
      out.push({ name: provider.provider_name, patterns: endpoint.schemes.map(compile), url: endpoint.url.replace('{format}', 'json') });
    }
  }
  return out;
}

let shipped: Endpoint[] | undefined;
const extra = new Map<string, Endpoint[]>();

/** The shipped registry (the `oembed-providers` package, read once; nothing is downloaded at run time). */
function shippedProviders(): Endpoint[] {
  shipped ??= compileProviders(createRequire(import.meta.url)('oembed-providers/providers.json') as Provider[]);
  return shipped;
}

/** The operator's extra providers (REFRACT_OEMBED_PROVIDERS), read once per path. */
function extraProviders(file: string | undefined): Endpoint[] {
  if (!file) return [];
  let list = extra.get(file);
  if (!list) {
    list = compileProviders(JSON.parse(readFileSync(file, 'utf8')) as Provider[]);
    extra.set(file, list);
  }
  return list;
}

/** The oEmbed endpoint that serves a page URL, from the operator's providers first, then the shipped list. */
export function findEndpoint(url: string, extraFile?: string): Endpoint | undefined {
  for (const endpoint of [...extraProviders(extraFile), ...shippedProviders()]) {
    if (endpoint.patterns.some((p) => p.test(url))) return endpoint;
  }
  return undefined;
}
