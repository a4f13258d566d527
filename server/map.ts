// `GET /map?url=…`: a site's URLs without rendering anything (crawl/map.ts), on both endpoints, charged as one request.
import { randomUUID } from 'node:crypto';
import { RefractError } from '../engine/index.ts';
import { mapQuery, mapSite } from '../crawl/index.ts';
import { freeCallerOf, proCallerOf } from './callers.ts';
import type { HandlerDeps, HandlerRequest, HandlerResponse } from './handler.ts';
import { failure, success } from './jsend.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

export function createMapHandler(deps: Pick<HandlerDeps, 'engine' | 'quota' | 'keys' | 'tier' | 'docsUrl'>) {
  const { engine, quota } = deps;
  return async (req: HandlerRequest): Promise<HandlerResponse> => {
    const headers: Record<string, string> = {
      'content-type': JSON_TYPE,
      'cache-control': 'no-store',
      'x-pricing-plan': deps.tier,
      'access-control-allow-origin': '*',
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw new RefractError('EMETHOD', `Method ${req.method} is not allowed; use GET`);
      const { id, policy } = deps.tier === 'free' ? freeCallerOf(req, deps) : await proCallerOf(req, deps);
      const cut = req.url.indexOf('?');
      const { query, unknown } = mapQuery(cut < 0 ? '' : req.url.slice(cut + 1));
      if (unknown.length) headers['x-refract-unknown-params'] = unknown.map(encodeURIComponent).join(', ');
      const rate = await quota.consume(id, policy);
      headers['x-rate-limit-limit'] = String(rate.limit);
      headers['x-rate-limit-remaining'] = String(rate.remaining);
      headers['x-rate-limit-reset'] = String(rate.resetEpochSecs);
      if (rate.exceeded)
        throw new RefractError('ERATE', 'The request quota of this window is used up; wait for the reset');
      const urls = await mapSite(engine, query.url, query);
      return { status: 200, headers, body: JSON.stringify(success({ url: query.url, urls })) };
    } catch (err) {
      const { status, body } = failure(err, randomUUID(), deps.docsUrl);
      return { status, headers, body: JSON.stringify(body) };
    }
  };
}
