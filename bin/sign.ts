// `refract sign`: signed links for a key (engine/kernel/signing.ts), made without loading the engine.
import { parseArgs } from 'node:util';
import { expiresAt, signingSecret, signUrl } from '../engine/about.ts';
import { UsageError } from './usage.ts';

export const SIGN_USAGE = `       refract sign <query> (--key <api key> | --secret <signing secret>) [--expires <when>] [--endpoint <url>]
                             a link that needs no header, charged to the key, for exactly this query, until
                             --expires (a duration from now such as 1h or 30d, or Unix seconds; default 24h);
                             --key derives the key's signing secret from REFRACT_SIGNING_SECRET
       refract sign --secret-of <api key>
                             the key's signing secret, for its holder to sign with (needs REFRACT_SIGNING_SECRET)`;

/** Unix seconds from `--expires`: a duration from now, or Unix seconds themselves (ten digits). */
function expiresOf(value: string | undefined, now: number): number {
  if (value === undefined) return Math.floor(now / 1000) + 24 * 3600;
  const at = expiresAt(value, now);
  if (!Number.isFinite(at) || at * 1000 <= now)
    throw new UsageError(`--expires must be a duration such as 1h or Unix seconds, got "${value}"`);
  return at;
}

function master(env: NodeJS.ProcessEnv): string {
  const secret = env.REFRACT_SIGNING_SECRET;
  if (!secret) throw new UsageError('REFRACT_SIGNING_SECRET is unset: give the key holder --secret, or set it');
  return secret;
}

export function signCommand(args: string[], env = process.env, now = Date.now()): number {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      secret: { type: 'string' },
      'secret-of': { type: 'string' },
      expires: { type: 'string' },
      endpoint: { type: 'string' },
    },
  });
  if (values['secret-of'] !== undefined) {
    process.stdout.write(`${signingSecret(master(env), values['secret-of'])}\n`);
    return 0;
  }
  const [query, ...more] = positionals;
  if (!query || more.length) throw new UsageError('sign takes one query, e.g. "url=https://example.com&screenshot"');
  if (!values.key === !values.secret) throw new UsageError('sign needs --key or --secret (one of them)');
  const secret = values.secret ?? signingSecret(master(env), values.key!);
  // A whole API link is taken too: its query is what is signed, its origin the endpoint.
  const link = /^https?:\/\//i.test(query) ? new URL(query) : undefined;
  const endpoint = values.endpoint ?? (link ? `${link.origin}${link.pathname}` : undefined);
  const signed = signUrl({
    query: link ? link.search : query.replace(/^\?/, ''),
    secret,
    expires: expiresOf(values.expires, now),
    endpoint,
  });
  process.stdout.write(`${signed}\n`);
  return 0;
}
