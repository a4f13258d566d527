// One request of an endpoint, answered: its route (routes.ts) and what startApp registered for it, compressed when
// the client takes it, with Server-Timing, counted in the metrics and the access log; a drain's cut answers 503.
import type http from 'node:http';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { RefractError, serverTiming } from '../engine/index.ts';
import type { HandlerResponse } from './handler.ts';
import { failure } from './jsend.ts';
import { clientIp } from './client-ip.ts';
import { compress, encodingOf } from './compress.ts';
import { JSON_HEADERS, type AppState } from './own.ts';
import { answerOf, routeOf } from './routes.ts';

/** Paths answered by the server itself on both endpoints, outside quotas and the access log. */
const HEALTH = new Set(['/healthz', '/readyz']);
/** The pages of the public face (counted as `docs` in the metrics). */
const WEB = /^\/(openapi\.json|playground\/?|docs(\/.*)?)$/;

/** The answer while the engine starts (a load balancer's health check during a deploy, say). */
export function starting(): HandlerResponse {
  return {
    status: 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', 'cache-control': 'no-store' },
    body: JSON.stringify({
      status: 'error',
      code: 'EBUSY',
      message: 'The service is starting; retry in a moment',
      data: null,
    }),
  };
}

/** Answers one request of an endpoint (`i`: 0 free, 1 pro): the API, or the server's own pages. */
export async function respond(
  state: AppState,
  endpoint: 'free' | 'pro',
  i: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const started = performance.now();
  state.inflight++;
  // Cut by the end of a drain's grace before its answer was written: answered 503 EBUSY (and logged as such), so that
  // the client knows to retry elsewhere instead of seeing its connection reset.
  const cut = () => {
    if (res.headersSent) return;
    const id = randomUUID();
    const { status, body } = failure(
      new RefractError(
        'EBUSY',
        'The service is stopping and this request did not finish within its grace period; retry',
      ),
      id,
      state.docsUrl,
      state.reportUrl,
    );
    res.writeHead(status, { ...JSON_HEADERS, 'retry-after': '1', connection: 'close' });
    res.end(JSON.stringify(body));
    state.engine?.logger.access({
      id,
      endpoint,
      method: req.method,
      status,
      code: 'EBUSY',
      ms: Math.round((performance.now() - started) * 10) / 10,
      cache: 'MISS',
      fetch: 'none',
      output: 'none',
      target: undefined,
      ip: clientIp(req, state.trust),
    });
  };
  state.unanswered.add(cut);
  try {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const ip = clientIp(req, state.trust);
    // MCP answers on the connection itself (the SDK's transport writes the response).
    if (routeOf(path) === 'mcp') {
      state.unanswered.delete(cut);
      if (state.mcp) await state.mcp[i]!(req, res, ip);
      else {
        const out = starting();
        res.writeHead(out.status, out.headers);
        res.end(out.body);
      }
      return;
    }
    let out = (await answerOf(state.routes, i, { req, url, path, ip })) ?? starting();
    // Answered already: the drain's grace ended first.
    if (res.headersSent) return;
    state.unanswered.delete(cut);
    const phases = out.phases ?? [];
    const encoding = encodingOf(out, String(req.headers['accept-encoding'] ?? ''));
    if (encoding) {
      const compressing = performance.now();
      out = await compress(out, encoding);
      phases.push({ name: 'compress', ms: performance.now() - compressing });
    }
    const body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
    // Every answer says where its time went (cache, queue, fetch, page, navigate, each step...), and in all.
    const ms = performance.now() - started;
    phases.push({ name: 'total', ms });
    // The handlers' headers are made for this answer; the server's own pages may share theirs between answers.
    const headers = out.facts ? out.headers : { ...out.headers };
    headers['server-timing'] = serverTiming(phases);
    // A streamed file, and a HEAD of one, carry the file's own length.
    if (!out.stream && !(req.method === 'HEAD' && out.headers['content-length']))
      headers['content-length'] = String(body.length);
    // While draining, each answer closes its connection: the client reconnects to another instance.
    if (state.draining) headers.connection = 'close';
    res.writeHead(out.status, headers);
    // A streamed file counts as in flight until it is sent (a drain waits for it); a broken one cuts the connection.
    if (out.stream)
      await pipeline(out.stream, res).catch((err) =>
        state.engine?.logger.warn('streaming an asset failed', { error: (err as Error).message }),
      );
    else res.end(req.method === 'HEAD' ? undefined : body);
    const { engine, metrics } = state;
    if (out.facts && engine) {
      const f = out.facts;
      metrics?.record({
        endpoint,
        status: out.status,
        output: f.output,
        cache: f.cache,
        fetchMode: f.fetchMode,
        seconds: ms / 1000,
      });
      engine.logger.access({
        id: f.id,
        endpoint,
        method: req.method,
        status: out.status,
        code: f.code,
        ms: Math.round(ms * 10) / 10,
        cache: f.cache,
        fetch: f.fetchMode,
        output: f.output,
        target: f.target,
        ip,
      });
    } else if (!HEALTH.has(path) && path !== '/metrics') {
      metrics?.record({
        endpoint: path.startsWith('/assets/')
          ? 'assets'
          : path.startsWith('/docs/errors') || WEB.test(path)
            ? 'docs'
            : endpoint,
        status: out.status,
        output: 'none',
        seconds: ms / 1000,
      });
    }
  } catch (err) {
    // A defect past the handlers (they answer every failure themselves): logged, and still an answer.
    state.engine?.logger.error('unexpected failure while answering', err);
    const { status, body } = failure(err, randomUUID(), state.docsUrl, state.reportUrl);
    if (!res.headersSent) res.writeHead(status, JSON_HEADERS);
    res.end(JSON.stringify(body));
  } finally {
    state.unanswered.delete(cut);
    state.inflight--;
    if (state.inflight === 0) state.settled?.();
  }
}
