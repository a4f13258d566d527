import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { create as contentDisposition } from 'content-disposition';
import { RefractError, openAsset, type ServiceEngine as Engine } from '../engine/index.ts';
import type { HandlerResponse } from './handler.ts';
import type { Asked, Registered } from './routes.ts';
import { failure } from './jsend.ts';
import type { Metrics } from './metrics.ts';
import type { Web } from './reference/web.ts';

/** Types a browser shows without running anything of theirs (a PDF viewer does not load under a CSP sandbox). */
const INERT = /^(image\/(png|jpeg|webp|avif|gif)|application\/pdf|video\/|audio\/)/i;

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** What a running server holds that its answers read: filled in as the start goes on. */
export interface AppState {
  engine?: Engine;
  metrics?: Metrics;
  /** Each route's answer for each endpoint ([free, pro]; routes.ts): the server's own pages from the start, the
   * others once the engine exists (until then, 503 "starting"). */
  routes: Registered;
  /** `/mcp` of each endpoint (it writes its own answers), once the engine exists. */
  mcp?: ((req: http.IncomingMessage, res: http.ServerResponse, ip: string) => Promise<void>)[];
  /** Where error codes are documented: known once the free endpoint listens (its first possible answer). */
  docsUrl: string;
  draining: boolean;
  inflight: number;
  settled?: () => void;
  /** Requests whose answer has not been written: each answers 503 EBUSY when called (the end of a drain's grace). */
  unanswered: Set<() => void>;
  trust: ((addr: string, hop: number) => boolean) | undefined;
  reportUrl: string;
}

/** The server's own pages besides the API: the public face and the error reference. */
export interface OwnPages {
  web: Web;
  errorsHtml: string;
  errorsDoc: Buffer;
}

/** Whether this process takes requests, and why not (each check). */
export function readiness(state: AppState) {
  const { engine } = state;
  const checks = {
    started: state.routes.api !== undefined,
    draining: state.draining,
    browser: engine?.browsers.ready() ?? false,
    redis: engine ? engine.shared.healthy() : false,
    executor: engine?.alive() ?? false,
    // A store that cannot write would answer every screenshot with ESTORAGE.
    assets: engine?.assets.writable() ?? false,
  };
  return {
    ready: checks.started && !state.draining && checks.browser && checks.redis && checks.executor && checks.assets,
    checks,
  };
}

/** Answers that do not reach the engine's handlers: health, metrics, error docs and generated files. */
export async function serveOwn(
  state: AppState,
  own: OwnPages,
  req: Asked['req'],
  path: string,
  endpoint: 'free' | 'pro' = 'pro',
): Promise<HandlerResponse | undefined> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  const { engine, metrics, docsUrl } = state;
  if (path === '/healthz')
    return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ status: 'success', data: { alive: true } }) };
  if (path === '/readyz') {
    const { ready, checks } = readiness(state);
    return {
      status: ready ? 200 : 503,
      headers: JSON_HEADERS,
      body: JSON.stringify({ status: ready ? 'success' : 'fail', data: { ready, checks } }),
    };
  }
  if (path === '/metrics' && metrics) {
    const token = engine!.config.metricsToken;
    // The public free port shows no metrics unless a token guards them: they are the operator's.
    if (!token && endpoint === 'free') {
      const { status, body } = failure(
        new RefractError(
          'ENOTFOUND',
          '`/metrics` is served on the pro port, or on both with REFRACT_METRICS_TOKEN set',
        ),
        randomUUID(),
        docsUrl,
      );
      return { status, headers: JSON_HEADERS, body: JSON.stringify(body) };
    }
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      const { status, body } = failure(
        new RefractError('EAUTH', '`/metrics` requires `Authorization: Bearer <REFRACT_METRICS_TOKEN>`'),
        randomUUID(),
        docsUrl,
      );
      return { status, headers: { ...JSON_HEADERS, 'www-authenticate': 'Bearer' }, body: JSON.stringify(body) };
    }
    const { type, body } = await metrics.scrape();
    return { status: 200, headers: { 'content-type': type, 'cache-control': 'no-store' }, body };
  }
  // The page the `more` links point at (an anchor per code); its Markdown source at /docs/errors.md.
  if (path === '/docs/errors')
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=3600' },
      body: own.errorsHtml,
    };
  if (path === '/docs/errors.md')
    return { status: 200, headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: own.errorsDoc };
  // The public face describes the loaded plugins: it answers once the engine (and so the registry) exists.
  const page = engine ? await own.web.serve(path) : undefined;
  if (page) return page;
  if (path.startsWith('/assets/') && engine) return serveAsset(engine, path.slice('/assets/'.length), req, docsUrl);
  return undefined;
}

/**
 * A generated file, streamed from its store (the local folder or the bucket), whole or one byte range; the name is
 * the path alone (a query string, a cache buster say, names the same file). Names are content hashes: immutable.
 */
async function serveAsset(engine: Engine, name: string, req: Asked['req'], docsUrl: string): Promise<HandlerResponse> {
  const range = req.method === 'GET' && typeof req.headers.range === 'string' ? req.headers.range : undefined;
  const asset = await openAsset(engine.assets, name, range, req.method === 'HEAD');
  if (!asset)
    return {
      status: 404,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(failure(new RefractError('ENOTFOUND', 'No such asset'), randomUUID(), docsUrl).body),
    };
  if (asset.status === 416)
    return { status: 416, headers: { 'content-range': `bytes */${asset.size}`, 'accept-ranges': 'bytes' }, body: '' };
  const { name: file } = asset;
  return {
    status: asset.status,
    headers: {
      'content-type': file.contentType,
      'cache-control': 'public, max-age=31536000, immutable',
      'access-control-allow-origin': '*',
      'content-disposition': contentDisposition(file.filename, { type: 'inline' }),
      'accept-ranges': 'bytes',
      etag: `"${file.stored.split('.')[0]}"`,
      'content-length': String(asset.length),
      ...(asset.range ? { 'content-range': `bytes ${asset.range.start}-${asset.range.end}/${asset.size}` } : {}),
      'x-content-type-options': 'nosniff',
      // A generated HTML report runs its own script in a sandbox: an opaque origin, never this service's. Any other
      // file that a browser could run (SVG, XML, a plugin's own type) is sandboxed with no script at all.
      ...(file.contentType.startsWith('text/html')
        ? { 'content-security-policy': 'sandbox allow-scripts allow-popups' }
        : INERT.test(file.contentType)
          ? {}
          : { 'content-security-policy': 'sandbox' }),
    },
    body: '',
    stream: asset.body,
  };
}
