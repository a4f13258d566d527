import { randomUUID } from 'node:crypto';
import { RefractError, type ServiceEngine as Engine } from '../engine/index.ts';
import type { HandlerResponse } from './handler.ts';
import { proCallerOf } from './callers.ts';
import { failure } from './jsend.ts';
import type { KeyRing } from './keys.ts';
import { answer, readJson, unknownWarning, type CrawlsRequest } from './crawls.ts';
import { monitorRequest, type Monitors } from '../crawl/index.ts';

/** The cursor and page size of a list (`?cursor=&limit=`, at most 100 a page). */
function pageOf(url: string | undefined): { cursor: number; limit: number } {
  const params = new URL(url ?? '/', 'http://x').searchParams;
  const cursor = Number(params.get('cursor') ?? 0);
  const limit = Math.min(100, Number(params.get('limit') ?? 20));
  if (!Number.isInteger(cursor) || cursor < 0 || !Number.isInteger(limit) || limit < 1)
    throw new RefractError('EINVALQUERY', '`cursor` and `limit` are whole numbers (limit 1 to 100)');
  return { cursor, limit };
}

/**
 * `POST /monitors`, `GET /monitors`, `GET /monitors/<id>`, `GET /monitors/<id>/changes`, `DELETE /monitors/<id>`:
 * monitors over HTTP, on the pro endpoint with `x-api-key` (the free endpoint answers 403 EPRO). Another key's
 * monitor is not found.
 */
export function createMonitorsHandler(deps: {
  engine: Engine;
  monitors: Monitors;
  keys: KeyRing;
  tier: 'free' | 'pro';
  docsUrl: string;
  webhookSecret: string;
}) {
  const { engine } = deps;
  return async (req: CrawlsRequest, path: string): Promise<HandlerResponse> => {
    try {
      if (deps.tier === 'free') throw new RefractError('EPRO', 'Monitors are on the pro endpoint, with `x-api-key`');
      const { id: owner, policy } = await proCallerOf(req, deps);
      const { monitors } = deps;
      const [, , id, sub] = path.split('/');
      if (!id) {
        if (req.method === 'GET') {
          const { cursor, limit } = pageOf(req.url);
          const page = await monitors.list(owner, cursor, limit);
          return answer(200, { monitors: page.items, next: page.next });
        }
        if (req.method !== 'POST')
          throw new RefractError('EMETHOD', 'Use POST /monitors to start one, GET to list them');
        const { unknown, ...spec } = await monitorRequest(
          await readJson(req),
          engine,
          deps.webhookSecret,
          engine.config.monitorMinInterval,
        );
        const monitor = await monitors.create(owner, spec, policy);
        if (!monitor)
          throw new RefractError('ERATE', `This key keeps ${engine.config.monitorsPerKey} monitors, the most it may`);
        return answer(
          201,
          { ...monitor, ...(unknown.length ? { warnings: [unknownWarning(unknown)] } : {}) },
          { location: `/monitors/${monitor.id}` },
        );
      }
      const monitor = await monitors.get(owner, id);
      if (!monitor || (sub !== undefined && sub !== 'changes')) throw new RefractError('ENOTFOUND', `No monitor ${id}`);
      if (req.method === 'DELETE' && !sub) {
        await monitors.delete(owner, id);
        return answer(200, { id, deleted: true });
      }
      if (req.method !== 'GET') throw new RefractError('EMETHOD', 'Use GET, or DELETE to stop it');
      if (!sub) return answer(200, monitor);
      const { cursor, limit } = pageOf(req.url);
      const page = (await monitors.changes(owner, id, cursor, limit))!;
      return answer(200, { changes: page.items, next: page.next });
    } catch (err) {
      const { status, body } = failure(err, randomUUID(), deps.docsUrl);
      return {
        status,
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
        body: JSON.stringify(body),
      };
    }
  };
}
