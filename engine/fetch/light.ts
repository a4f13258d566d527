import http from 'node:http';
import https from 'node:https';
import type { Guard } from './guard.ts';
import { flatHeaders, kindOf, REDIRECT, resultOf, type FetchResult, type Hop } from './http.ts';
import { fromNetwork } from '../kernel/failures.ts';

/** Keep-alive connection pools of one engine's light GETs (probes, oEmbed, robots.txt, sitemaps). */
export interface LightAgents {
  http: http.Agent;
  https: https.Agent;
}

/** Creates an engine's connection pools; `destroy` closes their sockets when the engine closes. */
export function createLightAgents(): LightAgents & { destroy(): void } {
  const pools = {
    http: new http.Agent({ keepAlive: true, maxSockets: 32 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 32 }),
  };
  return {
    ...pools,
    destroy: () => {
      pools.http.destroy();
      pools.https.destroy();
    },
  };
}
const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/147.0.0.0 Safari/537.36';

/** Options of a light GET: the guard, the deadline, the byte limit, and extra headers (a Range, say). */
export interface LightOptions {
  guard: Guard;
  signal: AbortSignal;
  maxBytes: number;
  headers?: Record<string, string>;
  maxRedirects?: number;
  agents?: LightAgents;
}

function once(url: URL, opts: LightOptions): Promise<Hop> {
  opts.guard.checkUrl(url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      {
        agent: opts.agents ? (url.protocol === 'https:' ? opts.agents.https : opts.agents.http) : false,
        lookup: opts.guard.lookup as never,
        signal: opts.signal,
        headers: { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity', ...opts.headers },
      },
      (res) => {
        const headers = flatHeaders(res.headers);
        const chunks: Buffer[] = [];
        let length = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          chunks.push(chunk);
          length += chunk.length;
          if (length >= opts.maxBytes) {
            truncated = true;
            res.destroy();
            resolve({ statusCode: res.statusCode ?? 0, headers, body: Buffer.concat(chunks), truncated });
          }
        });
        res.on('end', () =>
          resolve({ statusCode: res.statusCode ?? 0, headers, body: Buffer.concat(chunks), truncated }),
        );
        res.on('error', (err) => (truncated ? undefined : reject(err)));
      },
    );
    req.on('error', reject);
  });
}

/**
 * A plain GET for sub-resources (media probes): node's own client on keep-alive agents, the same guard on every
 * hop and socket, no browser fingerprint. Targets themselves go through http.ts (a browser's headers, TLS and
 * proxies, from got-scraping) and Crawlee instead.
 */
export async function lightGet(target: string, opts: LightOptions): Promise<FetchResult> {
  let url = new URL(target);
  const redirects: FetchResult['redirects'] = [];
  try {
    for (;;) {
      const hop = await once(url, opts);
      if (REDIRECT.has(hop.statusCode) && hop.headers.location && redirects.length < (opts.maxRedirects ?? 5)) {
        redirects.push({ statusCode: hop.statusCode, url: url.href });
        url = new URL(hop.headers.location, url);
        continue;
      }
      return resultOf(url, hop, redirects, kindOf(hop.headers['content-type'] ?? ''), '');
    }
  } catch (err) {
    throw fromNetwork(err, opts.signal, url.href);
  }
}
