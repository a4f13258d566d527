import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** One provider of the oEmbed registry format (the shipped list and operator files share it). */
export interface Provider {
  provider_name: string;
  endpoints: { schemes?: string[]; url: string }[];
}

/** A compiled endpoint: the URL patterns it serves and its API address. */
export interface Endpoint {
  name: string;
  patterns: RegExp[];
  url: string;
}

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a scheme such as `https://*.youtube.com/watch*` into a pattern (either protocol matches). */
function compile(scheme: string): RegExp {
  const rest = scheme.replace(/^https?:\/\//i, '');
  return new RegExp(`^https?://${rest.split('*').map(escapeRegExp).join('.*')}$`, 'i');
}

/** Compiles a providers list; endpoints without schemes are discovery-only and are skipped. */
export function compileProviders(list: readonly Provider[]): Endpoint[] {
  const out: Endpoint[] = [];
  for (const provider of list) {
    for (const endpoint of provider.endpoints ?? []) {
      if (!endpoint.schemes?.length || !endpoint.url) continue;
      out.push({
        name: provider.provider_name,
        patterns: endpoint.schemes.map(compile),
        url: endpoint.url.replace('{format}', 'json'),
      });
    }
  }
  return out;
}

/**
 * The providers an engine matches: the operator's extra file (REFRACT_OEMBED_PROVIDERS) first, then the list
 * shipped in the `oembed-providers` package (nothing is downloaded at run time). Read once per engine.
 */
export function loadProviders(extraFile: string | undefined): Endpoint[] {
  const shipped = compileProviders(createRequire(import.meta.url)('oembed-providers/providers.json') as Provider[]);
  const extra = extraFile ? compileProviders(JSON.parse(readFileSync(extraFile, 'utf8')) as Provider[]) : [];
  return [...extra, ...shipped];
}

/** The oEmbed endpoint that serves a page URL, the first of `providers` whose scheme matches. */
export function findEndpoint(url: string, providers: readonly Endpoint[]): Endpoint | undefined {
  return providers.find((endpoint) => endpoint.patterns.some((p) => p.test(url)));
}
