import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';
import { promisify } from 'node:util';
import { createEngine, loadPlugins, RefractError, type Config, type Plugin, type Engine } from '../engine/index.ts';
import { defaultPlugins } from '../plugins/index.ts';
import { createHandler, type HandlerRequest, type HandlerResponse } from './handler.ts';
import { failure } from './jsend.ts';
import { createQuota } from './quota.ts';
import { createKeyRing } from './keys.ts';
import { systemClock, type Clock } from '../engine/state.ts';
import { serverTiming } from '../engine/timing.ts';

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

/** Compressed forms of bodies that are sent again (a cache HIT answers the same Buffer each time). */
const compressed = new WeakMap<Buffer, Map<string, Buffer>>();

async function compress(res: HandlerResponse, acceptEncoding: string): Promise<HandlerResponse> {
  const body = typeof res.body === 'string' ? Buffer.from(res.body) : res.body;
  const type = res.headers['content-type'] ?? '';
  if (!acceptEncoding || body.length < MIN_COMPRESS || !COMPRESSIBLE.test(type)) return { ...res, body };
  // q-values count (`br;q=0, gzip` is gzip); on a tie the server's order (brotli first) decides.
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as { encoding(available: string[], opts: { preferred: string[] }): string | undefined };
  const encoding = negotiator.encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip', 'identity'] });
  if (encoding !== 'br' && encoding !== 'gzip') return { ...res, body };
  const kept = compressed.get(body);
  let out = kept?.get(encoding);
  if (!out) {
    out = encoding === 'br'
      ? await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
      : await gzip(body, { level: 6 });
    // Only a body that is not ours alone (a string made into bytes just now is) may be asked for again.
    if (typeof res.body !== 'string') compressed.set(body, (kept ?? new Map()).set(encoding, out));
  }
  return { ...res, headers: { ...res.headers, 'content-encoding': encoding }, body: out };
}

/** The longest request line plus headers served (documented with ETOOLARGE). */
const MAX_HEAD_BYTES = 64 * 1024;

/** Sockets whose unparseable request was answered already. */
const answered = new WeakSet<object>();

/**
 * A request that cannot be parsed (a head over the limit, malformed HTTP) still gets a JSend answer with a code.
 * The socket is read to its end meanwhile: closing it while the client still sends would reset the connection
 * before the client reads the answer.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: import('node:stream').Duplex, docsUrl: string): void {
  // Every later chunk of an unparseable request fails again: the first failure was answered, the rest is read away.
  if (answered.has(socket)) return;
  answered.add(socket);
  if (err.code === 'ECONNRESET' || !socket.writable) { socket.destroy(); return; }
  const refused = err.code === 'HPE_HEADER_OVERFLOW'
    ? new RefractError('ETOOLARGE', `The request line and headers exceed ${MAX_HEAD_BYTES / 1024} KB`)
    : new RefractError('EINVALQUERY', 'The request is not valid HTTP');
  const { status, body } = failure(refused, randomUUID(), docsUrl);
  const text = JSON.stringify(body);
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  setTimeout(() => socket.destroy(), 5000).unref();
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${text}`);
}

/** The answer while the engine starts (a load balancer's health check during a deploy, say). */
function starting(): HandlerResponse {
  return {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'cache-control': 'no-store' },
    body: JSON.stringify({ status: 'error', code: 'EBUSY', message: 'The service is starting; retry in a moment', data: null }),
  };
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
  // Where error codes are documented: known once the free endpoint listens (its first possible answer).
  let docsUrl = '';
  const servers = [0, 1].map((i) => {
    const server = http.createServer({ maxHeaderSize: MAX_HEAD_BYTES }, async (req, res) => {
      const started = performance.now();
      let out: HandlerResponse;
      if (req.method === 'GET' && req.url === '/docs/errors') {
        out = { status: 200, headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: errorsDoc };
      } else if ((req.method === 'GET' || req.method === 'HEAD') && req.url?.startsWith('/assets/') && engine) {
        // The name is the path alone: a query string (a cache buster, say) names the same file.
        const asset = await engine.assets.get(req.url.slice('/assets/'.length).split('?')[0]!);
        out = asset
          ? { status: 200, headers: {
            'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'access-control-allow-origin': '*',
            // A generated HTML report runs its own script in a sandbox: an opaque origin, never this service's.
            ...(asset.contentType.startsWith('text/html') ? { 'content-security-policy': 'sandbox allow-scripts allow-popups' } : {}),
          }, body: asset.bytes }
          : { status: 404, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(failure(new RefractError('ENOTFOUND', 'No such asset'), randomUUID(), docsUrl).body) };
      } else {
        out = !handlers[i] ? starting() : await handlers[i]!({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, ip: req.socket.remoteAddress ?? '' });
      }
      const phases = out.phases ?? [];
      const compressing = performance.now();
      out = await compress(out, String(req.headers['accept-encoding'] ?? ''));
      if (out.headers['content-encoding']) phases.push({ name: 'compress', ms: performance.now() - compressing });
      const body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
      // Every answer says where its time went (cache, queue, fetch, page, navigate, each step...), and in all.
      const timing = serverTiming([...phases, { name: 'total', ms: performance.now() - started }]);
      res.writeHead(out.status, { ...out.headers, 'server-timing': timing, 'content-length': String(body.length) });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: import('node:stream').Duplex) => answerClientError(err, socket, docsUrl));
    // Longer than the usual 60 s idle timeout of clients and load balancers, so they close idle sockets first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    return server;
  });
  const errorsDoc = await readFile(new URL('../docs/errors.md', import.meta.url));
  const freeUrl = await listen(servers[0]!, baseConfig.port, baseConfig.host);
  docsUrl = `${baseConfig.publicUrl || freeUrl}/docs/errors`;
  const proUrl = await listen(servers[1]!, baseConfig.proPort, baseConfig.host);
  const config = { ...baseConfig, publicUrl: baseConfig.publicUrl || freeUrl };
  engine = await createEngine({ config, plugins, clock });
  // The quotas count in the engine's shared state: Redis when REDIS_URL is set, so processes share them.
  const quota = createQuota(engine.shared.counters, clock);
  const keys = createKeyRing(config.apiKeys);
  handlers = (['free', 'pro'] as const).map((tier) => createHandler({ engine: engine!, quota, tier, keys, docsUrl, clock }));
  const ready = engine;
  return {
    engine: ready,
    events: ready.events,
    freeUrl,
    proUrl,
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); })));
      await ready.close();
    },
  };
}
