import type http from 'node:http';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { RefractError, type ServiceEngine as Engine } from '../engine/index.ts';
import type { HandlerResponse } from './handler.ts';
import { proCallerOf } from './callers.ts';
import { failure } from './jsend.ts';
import type { KeyRing } from './keys.ts';
import { jobRequest, publicJob, type Jobs } from '../crawl/index.ts';

/** What the routes read of a request: an IncomingMessage, or the MCP tools' call of them (its body an iterable). */
export type CrawlsRequest = Pick<http.IncomingMessage, 'method' | 'url' | 'headers'> & AsyncIterable<unknown>;

/** The warning a job's answer carries for query options the API does not know (they are ignored, as on `GET /`). */
export const unknownWarning = (names: readonly string[]) => ({
  plugin: 'query',
  code: 'EINVALQUERY',
  message: `Unknown options ignored: ${names.join(', ')}`,
});

/** The largest body `POST /crawls` reads (a list of URLs). */
const MAX_BODY = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';

/** Reads a JSON body (at most MAX_BODY bytes). */
export async function readJson(req: AsyncIterable<unknown>): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RefractError('EINVALDATA', `The body is over ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RefractError('EINVALDATA', 'The body is not JSON');
  }
}

export const answer = (status: number, data: unknown, headers: Record<string, string> = {}): HandlerResponse => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...headers },
  body: JSON.stringify({ status: 'success', data }),
});

/**
 * `POST /crawls`, `GET /crawls/<id>`, `GET /crawls/<id>/results`, `DELETE /crawls/<id>`: crawl jobs over HTTP, on
 * the pro endpoint with `x-api-key` (the free endpoint answers 403 EPRO). A job made with another key is not found.
 */
export function createCrawlsHandler(deps: {
  engine: Engine;
  jobs: Jobs;
  keys: KeyRing;
  tier: 'free' | 'pro';
  docsUrl: string;
  webhookSecret: string;
}) {
  const { engine, jobs } = deps;
  return async (req: CrawlsRequest, path: string): Promise<HandlerResponse> => {
    try {
      if (deps.tier === 'free') throw new RefractError('EPRO', 'Crawl jobs are on the pro endpoint, with `x-api-key`');
      const { id: owner, policy } = await proCallerOf(req, deps);
      const [, , id, sub] = path.split('/');
      if (!id) {
        if (req.method !== 'POST') throw new RefractError('EMETHOD', 'Use POST /crawls to start a crawl');
        const { unknown, ...request } = await jobRequest(await readJson(req), engine, deps.webhookSecret);
        const job = await jobs.create(owner, policy, request);
        // Options the API does not know are said as `GET /` says them: ignored, named in a header and a warning.
        return answer(
          202,
          {
            id: job.id,
            status: job.status,
            url: `/crawls/${job.id}`,
            ...(unknown.length ? { warnings: [unknownWarning(unknown)] } : {}),
          },
          {
            location: `/crawls/${job.id}`,
            ...(unknown.length ? { 'x-refract-unknown-params': unknown.join(', ') } : {}),
          },
        );
      }
      const job = await jobs.get(owner, id);
      if (!job || (sub !== undefined && sub !== 'results')) throw new RefractError('ENOTFOUND', `No crawl ${id}`);
      if (req.method === 'DELETE' && !sub) return answer(200, publicJob(await jobs.cancel(job)));
      if (req.method !== 'GET') throw new RefractError('EMETHOD', 'Use GET, or DELETE to cancel');
      if (!sub) return answer(200, publicJob(job));
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      const cursor = Number(params.get('cursor') ?? 0);
      const limit = Math.min(1000, Number(params.get('limit') ?? 100));
      if (!Number.isInteger(cursor) || cursor < 0 || !Number.isInteger(limit) || limit < 1)
        throw new RefractError('EINVALQUERY', '`cursor` and `limit` are whole numbers (limit 1 to 1000)');
      const page = await jobs.results(
        job,
        cursor,
        /ndjson/.test(String(req.headers.accept)) ? Number.MAX_SAFE_INTEGER : limit,
      );
      if (/ndjson/.test(String(req.headers.accept))) {
        return {
          status: 200,
          headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' },
          body: '',
          stream: Readable.from(page.lines.map((l) => `${l}\n`)),
        };
      }
      // While the job runs, the cursor past the last line is where to ask again; once it ended, `null` is the end.
      const next = page.more || !jobs.isTerminal(job.status) ? String(page.next) : null;
      return answer(200, { results: page.lines.map((l) => JSON.parse(l) as unknown), next, status: job.status });
    } catch (err) {
      const { status, body } = failure(err, randomUUID(), deps.docsUrl);
      return {
        status,
        headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' },
        body: JSON.stringify(body),
      };
    }
  };
}
