import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Server, RequestError } from 'proxy-chain';
import { LRUCache } from 'lru-cache';
import { bareHost, type Guard } from '../fetch/guard.ts';
import { RefractError, isRefractError } from '../kernel/errors.ts';
import { fromNetwork } from '../kernel/failures.ts';

/**
 * The loopback forward proxy every browser connection goes through (Chromium's `--proxy-server`, loopback
 * included). Each HTTP request and each CONNECT tunnel (HTTPS, WebSocket) passes the SSRF guard, and the
 * connection is made to the very addresses that were checked: so every hop of a redirect chain, whatever
 * followed it (the network stack, a meta refresh, a script), subresources, workers, sockets and popups, is checked
 * as the fetch path checks its own hops. Pages sent through a caller's proxy reach it through this proxy too
 * (chained), their targets checked first.
 */
export interface GuardProxy {
  /** `http://127.0.0.1:PORT`: the proxy for a browser's launch. */
  url(): Promise<string>;
  /** A proxy URL (with credentials naming it) that goes through the guard on to `upstream`, until `release()`. */
  via(upstream: string): Promise<{ url: string; release(): void }>;
  /**
   * Why the guard refused a document, read from the response the proxy made in its place (plain HTTP), or from
   * the host it refused a tunnel to (HTTPS, where the browser only says ERR_TUNNEL_CONNECTION_FAILED).
   */
  refusalOf(
    response: { status: number; headers: Record<string, string> } | undefined,
    url?: string,
  ): RefractError | undefined;
  close(): Promise<void>;
}

type LookupFn = (typeof dns)['lookup'];

/** The lookup a checked connection uses: the addresses the guard passed, nothing resolved again. */
function pinned(addresses: LookupAddress[]): LookupFn {
  return ((
    _host: string,
    options: dns.LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    if (!usable.length) {
      callback(Object.assign(new Error('no address of the asked family'), { code: 'ENOTFOUND' }), '');
      return;
    }
    if (options?.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  }) as unknown as LookupFn;
}

const HEADER = 'x-refract-guard';

/**
 * Where the proxy listens: loopback for local browsers; for a browser tier, an address its nodes reach (`host`),
 * serving only the clients `allow` admits (the tier's addresses), so that it is never an open proxy.
 */
export interface GuardProxyOptions {
  host?: string;
  allow?: () => Promise<Set<string>>;
}

/** This machine's first external IPv4 address (a container's address on its network), else loopback. */
function externalAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

/** Starts nothing until first asked for its URL; one per set of browsers (and one per Lighthouse audit). */
export function createGuardProxy(guard: Guard, opts: GuardProxyOptions = {}): GuardProxy {
  const host = opts.host ?? '127.0.0.1';
  // A secret of this process marks the proxy's own refusals: a target cannot answer as if it were the guard.
  const secret = randomBytes(12).toString('hex');
  const upstreams = new Map<string, string>();
  const refusedHosts = new LRUCache<string, RefractError>({ max: 512 });
  let server: Server | undefined;
  let listening: Promise<string> | undefined;
  const refuse = (host: string, err: unknown): never => {
    const coded = isRefractError(err) ? err : fromNetwork(err, undefined, host);
    refusedHosts.set(host, coded);
    throw new RequestError(coded.message, 403, { [HEADER]: `${secret} ${coded.code}` });
  };
  const start = (): Promise<string> => {
    listening ??= (async () => {
      server = new Server({
        port: 0,
        host,
        verbose: false,
        prepareRequestFunction: async ({ hostname, username, request }) => {
          if (opts.allow && !(await opts.allow()).has(request.socket.remoteAddress ?? ''))
            throw new RequestError('Not a client of this proxy', 403);
          const target = bareHost(hostname);
          const upstream = username ? upstreams.get(username) : undefined;
          if (username && !upstream) throw new RequestError('This proxy route has ended', 403);
          let addresses: LookupAddress[];
          try {
            addresses = await guard.resolve(target);
          } catch (err) {
            return refuse(target, err);
          }
          // Through a caller's proxy the proxy resolves the name; direct, the connection goes to what was checked.
          return upstream ? { upstreamProxyUrl: upstream } : { dnsLookup: pinned(addresses) };
        },
      });
      // A client that goes away mid-request is not the server's failure.
      server.on('requestFailed', () => undefined);
      server.server.unref();
      await server.listen();
      // Listening on every interface, the proxy is reached at this machine's first external address.
      const reach = host === '0.0.0.0' ? externalAddress() : host;
      return `http://${reach.includes(':') ? `[${reach}]` : reach}:${server.port}`;
    })();
    return listening;
  };
  return {
    url: start,
    async via(upstream) {
      const base = new URL(await start());
      const token = randomBytes(9).toString('hex');
      upstreams.set(token, upstream);
      base.username = token;
      base.password = 'x';
      let released = false;
      return {
        url: base.href.replace(/\/$/, ''),
        release: () => {
          if (!released) {
            released = true;
            upstreams.delete(token);
          }
        },
      };
    },
    refusalOf(response, url) {
      // The reason the proxy recorded for the refused host: the tunnel's (no response), or its marked answer's.
      const recorded = () => (url && URL.canParse(url) ? refusedHosts.get(bareHost(new URL(url).hostname)) : undefined);
      if (!response) return recorded();
      const mark = response.headers[HEADER];
      if (!mark?.startsWith(`${secret} `)) return undefined;
      return (
        recorded() ??
        new RefractError(
          mark.slice(secret.length + 1) === 'EINVALURL' ? 'EINVALURL' : 'EFORBIDDENURL',
          'The target redirected to an address that is not fetched (private, loopback or reserved)',
        )
      );
    },
    async close() {
      const s = server;
      server = undefined;
      listening = undefined;
      await s?.close(true);
    },
  };
}
