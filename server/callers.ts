// Who a request is: an IP on the free endpoint, a key on the pro endpoint, or the key that signed a link on either.
import { RefractError, canonicalQuery, SIGNATURE_PARAM, EXPIRES_PARAM } from '../engine/index.ts';
import type { HandlerDeps, HandlerRequest } from './handler.ts';
import type { KeyOwner } from './keys.ts';
import type { QuotaPolicy } from './quota.ts';

/** A request header's first value. */
export function header(req: Pick<HandlerRequest, 'headers'>, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Who is calling on the free endpoint: its IP (a key is refused there). */
export function freeCallerOf(
  req: Pick<HandlerRequest, 'headers' | 'ip'>,
  deps: Pick<HandlerDeps, 'engine'>,
): { id: string; policy: QuotaPolicy } {
  if (header(req, 'x-api-key') !== undefined)
    throw new RefractError('EPRO', 'Do not send `x-api-key` to the free endpoint; use the pro endpoint');
  const config = deps.engine.config;
  return { id: `ip:${req.ip}`, policy: { limit: config.freeQuota, window: config.freeQuotaWindowSecs * 1000 } };
}

/** Who is calling on the pro endpoint: a valid key (the key itself is never logged or echoed). */
export async function proCallerOf(
  req: Pick<HandlerRequest, 'headers'>,
  deps: Pick<HandlerDeps, 'engine' | 'keys'>,
): Promise<{ id: string; policy: QuotaPolicy }> {
  const key = header(req, 'x-api-key');
  const config = deps.engine.config;
  const owner: KeyOwner | undefined = key ? await deps.keys.check(key) : undefined;
  if (!owner) throw new RefractError('EAUTH', 'A valid `x-api-key` header is required on the pro endpoint');
  return { id: owner.id, policy: { limit: owner.quota ?? config.proQuota, window: 'month' } };
}

/** A query that names `signature` or `expires` (in any case): a signed link, always checked as one. */
export const SIGNED = /(?:^|&)(?:signature|expires)(?:[=&]|$)/i;

/**
 * The caller of a signed link (`…&expires=<unix>&signature=<mac>`, engine/kernel/signing.ts): the key whose signing secret
 * gives that MAC for exactly this query, charged as that key's pro request; the query to plan, without the two.
 */
export async function signedCallerOf(
  search: string,
  deps: Pick<HandlerDeps, 'engine' | 'keys' | 'clock'>,
): Promise<{ id: string; policy: QuotaPolicy; query: string }> {
  const params = new URLSearchParams(search);
  const [mac, ...moreMacs] = params.getAll(SIGNATURE_PARAM);
  const [expires, ...moreExpires] = params.getAll(EXPIRES_PARAM);
  if (!mac || moreMacs.length || moreExpires.length)
    throw new RefractError('EAUTH', 'A signed link carries one `signature` and one `expires`; sign it again');
  const master = deps.engine.config.signingSecret;
  if (!master) throw new RefractError('EAUTH', 'Signed links are off on this server (REFRACT_SIGNING_SECRET is unset)');
  if (!expires || !/^\d{1,12}$/.test(expires))
    throw new RefractError('EAUTH', 'A signed link needs `expires`, the Unix time (seconds) it stops working');
  const owner = await deps.keys.signer(canonicalQuery(params), mac, master);
  if (!owner) throw new RefractError('EAUTH', 'The signature does not match this query, or its key is no longer valid');
  if (Number(expires) * 1000 <= deps.clock.now())
    throw new RefractError('EAUTH', `This signed link expired at ${new Date(Number(expires) * 1000).toISOString()}`);
  params.delete(SIGNATURE_PARAM);
  params.delete(EXPIRES_PARAM);
  const policy = { limit: owner.quota ?? deps.engine.config.proQuota, window: 'month' as const };
  return { id: owner.id, policy, query: params.toString() };
}
