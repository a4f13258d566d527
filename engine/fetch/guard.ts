import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { RefractError } from '../kernel/errors.ts';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Resolver = (hostname: string) => Promise<LookupAddress[]>;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The SSRF guard: decides whether an address may be contacted and pins connections to checked addresses. */
export interface Guard {
  /** Throws EFORBIDDENURL when the URL's host is an address literal in a forbidden range. */
  checkUrl(url: URL): void;
  /** Resolves a host and throws EFORBIDDENURL when any of its addresses is forbidden. */
  resolve(hostname: string): Promise<LookupAddress[]>;
  /** A `lookup` for sockets: resolves, checks, and hands the connection only checked addresses. */
  lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void;
}

const defaultResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

const v4At = (bytes: number[], at: number, xor = 0) => new ipaddr.IPv4(bytes.slice(at, at + 4).map((b) => b ^ xor));

/**
 * What an IPv6 address reaches over IPv4, when it embeds an IPv4 address: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: the server and
 * the obfuscated client address). `null` when the address is not to be reached whatever it embeds:
 * IPv4-compatible (::a.b.c.d, deprecated, and ::, ::1) and local-use NAT64 (64:ff9b:1::/48).
 */
function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const bytes = addr.toByteArray();
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return [v4At(bytes, 12)];
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return [v4At(bytes, 12)];
  if (zeros(0, 12)) return null;
  const range = addr.range();
  // The well-known NAT64 prefix carries the address in its last 32 bits; a local-use prefix's layout is the operator's.
  if (range === 'rfc6052') return zeros(4, 12) ? [v4At(bytes, 12)] : null;
  if (range === '6to4') return [v4At(bytes, 2)];
  if (range === 'teredo') return [v4At(bytes, 4), v4At(bytes, 12, 0xff)];
  return [];
}

/** True for addresses on the public internet; every private, loopback, link-local, multicast or reserved range is false. */
export function isPublicAddress(addr: Addr): boolean {
  if (addr.kind() === 'ipv6') {
    const embedded = embeddedV4(addr as ipaddr.IPv6);
    if (embedded === null) return false;
    if (embedded.length) return embedded.every(isPublicAddress);
  }
  return addr.range() === 'unicast';
}

/** A host as the guard compares it: lower case, an IPv6 literal without its brackets. */
export function bareHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

function parseAllow(entries: readonly string[]) {
  const hosts = new Set<string>();
  const ranges: [Addr, number][] = [];
  for (const entry of entries) {
    const text = bareHost(entry.trim());
    if (text.includes('/')) ranges.push(ipaddr.parseCIDR(text));
    else if (ipaddr.isValid(text)) {
      const a = ipaddr.parse(text);
      ranges.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    } else hosts.add(text);
  }
  return { hosts, ranges };
}

/** How many verdicts a guard keeps (each memo is emptied when full). */
const VERDICTS = 4096;

function forbidden(host: string, address: string): RefractError {
  return new RefractError(
    'EFORBIDDENURL',
    `The URL host ${host} resolves to ${address}, which is not a public address`,
    { data: { host } },
  );
}

/** Creates the guard; `allow` lists host names or CIDRs exempt from it (REFRACT_ALLOW_PRIVATE_HOSTS). */
export function createGuard(allow: readonly string[] = [], resolver: Resolver = defaultResolver): Guard {
  const { hosts, ranges } = parseAllow(allow);
  const allowed = (addr: Addr): boolean => {
    const mapped = addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).range() === 'ipv4Mapped';
    const plain = mapped ? (addr as ipaddr.IPv6).toIPv4Address() : addr;
    return ranges.some(([net, bits]) => net.kind() === plain.kind() && plain.match(net, bits));
  };
  // Verdicts by host and address (they depend on nothing else): ipaddr's parsing and range walks took ~25 us a
  // fetch. Bounded: emptied when full.
  const verdicts = new Map<string, boolean>();
  const literals = new Map<string, boolean>();
  const remember = <V>(memo: Map<string, V>, key: string, value: V): V => {
    if (memo.size >= VERDICTS) memo.clear();
    memo.set(key, value);
    return value;
  };
  const check = (host: string, address: string): void => {
    if (hosts.has(host)) return;
    const key = `${host} ${address}`;
    let ok = verdicts.get(key);
    if (ok === undefined) {
      const addr = ipaddr.parse(address);
      ok = remember(verdicts, key, isPublicAddress(addr) || allowed(addr));
    }
    if (!ok) throw forbidden(host, address);
  };
  const isLiteral = (host: string): boolean => literals.get(host) ?? remember(literals, host, ipaddr.isValid(host));
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    const host = bareHost(hostname);
    if (isLiteral(host)) {
      check(host, host);
      return [{ address: host, family: host.includes(':') ? 6 : 4 }];
    }
    const addresses = await resolver(host);
    if (addresses.length === 0) throw new RefractError('EINVALURL', `The URL host ${host} does not resolve`);
    for (const a of addresses) check(host, a.address);
    return addresses;
  };
  return {
    checkUrl(url) {
      const host = bareHost(url.hostname);
      if (isLiteral(host)) check(host, host);
    },
    resolve,
    lookup(hostname, options, callback) {
      resolve(hostname).then(
        (addresses) => {
          const family = options.family === 4 || options.family === 6 ? options.family : 0;
          const usable = family ? addresses.filter((a) => a.family === family) : addresses;
          if (usable.length === 0) {
            callback(Object.assign(new Error(`No IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '');
            return;
          }
          if (options.all) callback(null, usable);
          else callback(null, usable[0]!.address, usable[0]!.family);
        },
        (err: Error) => callback(err as NodeJS.ErrnoException, ''),
      );
    },
  };
}
