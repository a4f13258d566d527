import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/**
 * Which proxies in front of the service are trusted to name the client (REFRACT_TRUST_PROXY): nothing (the
 * default: the socket's peer is the client), a hop count (`1`: the nearest proxy), or a comma-separated list of
 * addresses, CIDRs and proxy-addr's presets (`loopback`, `linklocal`, `uniquelocal`). Throws on a malformed one.
 */
export function trustOf(setting: string): ((addr: string, hop: number) => boolean) | undefined {
  const value = setting.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops > 0 ? (_addr, hop) => hop < hops : undefined;
  }
  try {
    return proxyaddr.compile(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  } catch (err) {
    throw new Error(
      `REFRACT_TRUST_PROXY must be a hop count or a list of addresses, CIDRs, loopback, linklocal or uniquelocal: ${(err as Error).message}`,
    );
  }
}

/** The `for=` nodes of a Forwarded header (RFC 7239), nearest proxy last, as X-Forwarded-For lists them. */
function forwardedFor(header: string): string {
  const nodes: string[] = [];
  for (const element of header.split(',')) {
    const pair = element
      .split(';')
      .map((p) => p.trim())
      .find((p) => p.toLowerCase().startsWith('for='));
    if (!pair) continue;
    let node = pair.slice(4).trim().replace(/^"|"$/g, '');
    // `[2001:db8::1]:4711` and `192.0.2.1:4711`: the address without its port.
    const v6 = /^\[([^\]]+)\]/.exec(node);
    if (v6) node = v6[1]!;
    else if (/^[\d.]+:\d+$/.test(node)) node = node.slice(0, node.indexOf(':'));
    nodes.push(node);
  }
  return nodes.join(', ');
}

/**
 * The client's address: with no trusted proxy, the socket's peer; otherwise the first address, walking
 * X-Forwarded-For (or Forwarded when it is absent) from the nearest hop back, that is not a trusted proxy.
 */
export function clientIp(req: IncomingMessage, trust: ((addr: string, hop: number) => boolean) | undefined): string {
  const peer = req.socket.remoteAddress ?? '';
  if (!trust) return peer;
  const xff = req.headers['x-forwarded-for'];
  const forwarded = req.headers.forwarded;
  const list =
    xff !== undefined
      ? Array.isArray(xff)
        ? xff.join(', ')
        : xff
      : typeof forwarded === 'string'
        ? forwardedFor(forwarded)
        : '';
  const view = {
    headers: { 'x-forwarded-for': list },
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
  };
  return proxyaddr(view as unknown as IncomingMessage, trust);
}
