import { RefractError } from '../kernel/errors.ts';

/** Parses a target address; only absolute http(s) URLs with a host are accepted (EINVALURL otherwise). */
export function checkTargetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new RefractError(
      'EINVALURL',
      `Invalid \`url\`: "${text}" is not an absolute URL such as https://example.com`,
      { data: { param: 'url' } },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RefractError(
      'EINVALURL',
      `Invalid \`url\`: protocol ${url.protocol} is not supported, use http or https`,
      { data: { param: 'url' } },
    );
  }
  if (!url.hostname) throw new RefractError('EINVALURL', 'Invalid `url`: it has no host', { data: { param: 'url' } });
  if (!validHostName(url.hostname)) {
    throw new RefractError(
      'EINVALURL',
      `Invalid \`url\`: "${url.hostname.slice(0, 80)}" is not a host name (a label is 1-63 characters, the name at most 253)`,
      { data: { param: 'url' } },
    );
  }
  return url;
}

/**
 * Whether a host as the URL parser gave it can be looked up: an address literal, or a name whose labels are 1-63
 * characters and whose whole is at most 253 (RFC 1035, as the resolver enforces: it failed with EINVAL, a 500).
 */
export function validHostName(hostname: string): boolean {
  if (hostname.startsWith('[')) return true;
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => label.length >= 1 && label.length <= 63);
}
