import http from 'node:http';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { createEngine, loadPlugins, type Config, type Plugin, type Engine } from '../engine/index.ts';
import { createCache } from '../engine/cache.ts';
import { defaultPlugins } from '../plugins/index.ts';
import { createHandler, type HandlerRequest, type HandlerResponse } from './handler.ts';
import { createQuota } from './quota.ts';
import { createKeyRing } from './keys.ts';
import { createState, systemClock, type Clock } from './state.ts';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const COMPRESSIBLE = /json|text|markdown|xml|javascript|svg/;
const MIN_COMPRESS = 512;

/** A running Refract: the engine and its free and pro endpoints. */
export interface App {
  engine: Engine; freeUrl: string; proUrl: string;
  /** Background events: `refresh` ({ url, ok }) when a stale cache entry was regenerated. */
  events: EventEmitter;
  close(): Promise<void>;
}

async function compress(res: HandlerResponse, acceptEncoding: string): Promise<HandlerResponse> {
  const body = typeof res.body === 'string' ? Buffer.from(res.body) : res.body;
  const type = res.headers['content-type'] ?? '';
  if (body.length < MIN_COMPRESS || !COMPRESSIBLE.test(type)) return { ...res, body };
  const accepted = acceptEncoding.toLowerCase();
  if (/\bbr\b/.test(accepted)) {
    const out = await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
    return { ...res, headers: { ...res.headers, 'content-encoding': 'br' }, body: out };
  }
  if (/\bgzip\b/.test(accepted)) {
    return { ...res, headers: { ...res.headers, 'content-encoding': 'gzip' }, body: await gzip(body, { level: 6 }) };
  }
  return { ...res, body };
}

function listen(server: http.Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address() as AddressInfo;
      resolve(`http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address === '0.0.0.0' ? '127.0.0.1' : addr.address}:${addr.port}`);
    });
  });
}

/** Starts the engine and both endpoints; extra plugins come after the built-in ones and those named in config. */
export async function startApp(baseConfig: Config, extraPlugins: readonly Plugin[] = [], opts: { clock?: Clock } = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const plugins = [...defaultPlugins, ...(await loadPlugins(baseConfig.plugins)), ...extraPlugins];
  let handlers: ((req: HandlerRequest) => Promise<HandlerResponse>)[] = [];
  let engine: Engine | undefined;
  const servers = [0, 1].map((i) => {
    const server = http.createServer(async (req, res) => {
      let out: HandlerResponse;
      if (req.method === 'GET' && req.url === '/docs/errors') {
        out = { status: 200, headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: errorsDoc };
      } else if ((req.method === 'GET' || req.method === 'HEAD') && req.url?.startsWith('/assets/') && engine) {
        const asset = await engine.assets.get(req.url.slice('/assets/'.length));
        out = asset
          ? { status: 200, headers: {
            'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'access-control-allow-origin': '*',
            // A generated HTML report runs its own script in a sandbox: an opaque origin, never this service's.
            ...(asset.contentType.startsWith('text/html') ? { 'content-security-policy': 'sandbox allow-scripts allow-popups' } : {}),
          }, body: asset.bytes }
          : { status: 404, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ status: 'fail', code: 'ENOTFOUND', message: 'No such asset' }) };
      } else {
        out = await handlers[i]!({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ip: req.socket.remoteAddress ?? '' });
      }
      out = await compress(out, String(req.headers['accept-encoding'] ?? ''));
      const body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
      res.writeHead(out.status, { ...out.headers, 'content-length': String(body.length) });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    // Longer than the usual 60 s idle timeout of clients and load balancers, so they close idle sockets first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    return server;
  });
  const errorsDoc = await readFile(new URL('../docs/errors.md', import.meta.url));
  const freeUrl = await listen(servers[0]!, baseConfig.port, baseConfig.host);
  const proUrl = await listen(servers[1]!, baseConfig.proPort, baseConfig.host);
  const config = { ...baseConfig, publicUrl: baseConfig.publicUrl || freeUrl };
  engine = await createEngine({ config, plugins });
  // Cache, quotas and in-flight coalescing live in Redis when REDIS_URL is set, so processes share them.
  const state = await createState(config.redisUrl, clock);
  const cache = createCache({ maxBytes: config.cacheMaxBytes, store: state.store, locks: state.locks, now: () => clock.now() });
  const quota = createQuota(state.counters, clock);
  const keys = createKeyRing(config.apiKeys);
  const docsUrl = `${config.publicUrl}/docs/errors`;
  const events = new EventEmitter();
  handlers = (['free', 'pro'] as const).map((tier) => createHandler({ engine: engine!, cache, quota, tier, keys, docsUrl, clock, events }));
  const ready = engine;
  return {
    engine: ready,
    events,
    freeUrl,
    proUrl,
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); })));
      await ready.close();
      await cache.close();
      await state.close();
    },
  };
}
