import { RefractError } from '../errors.ts';

/** Parses a target address; only absolute http(s) URLs with a host are accepted (EINVALURL otherwise). */
export function checkTargetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new RefractError('EINVALURL', `Invalid \`url\`: "${text}" is not an absolute URL such as https://example.com`, { data: { param: 'url' } });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RefractError('EINVALURL', `Invalid \`url\`: protocol ${url.protocol} is not supported, use http or https`, { data: { param: 'url' } });
  }
  if (!url.hostname) throw new RefractError('EINVALURL', 'Invalid `url`: it has no host', { data: { param: 'url' } });
  return url;
}
