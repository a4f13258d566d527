import type https from 'node:https';
import { hooks, Options } from 'got-scraping';

export type TlsProfile = Pick<
  https.RequestOptions,
  'ciphers' | 'sigalgs' | 'ecdhCurve' | 'minVersion' | 'maxVersion'
> & {
  requestOCSP?: boolean;
};
const tlsProfiles = new Map<string, TlsProfile>();

/** The TLS settings of the browser the user agent names, as got-scraping's tlsHook chooses them (kept per user agent). */
export function tlsProfile(headers: Record<string, string>): TlsProfile {
  const agent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1] ?? '';
  let profile = tlsProfiles.get(agent);
  if (!profile) {
    // A got Options, the type the hook takes; requestOCSP is the one setting it writes among got's Unix options.
    const options = new Options({ headers });
    hooks.tlsHook(options);
    const { ciphers, signatureAlgorithms, ecdhCurve, minVersion, maxVersion } = options.https;
    const unix = (options as unknown as { _unixOptions?: { requestOCSP?: boolean } })._unixOptions;
    profile = {
      ciphers,
      sigalgs: signatureAlgorithms,
      ecdhCurve,
      minVersion,
      maxVersion,
      requestOCSP: unix?.requestOCSP,
    };
    if (tlsProfiles.size < 16) tlsProfiles.set(agent, profile);
  }
  return profile;
}
