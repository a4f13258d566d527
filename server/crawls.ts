import type http from 'node:http';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { RefractError, checkTargetUrl, type Engine } from '../engine/index.ts';
import type { HandlerResponse } from './handler.ts';
import { proCallerOf } from './callers.ts';
import { failure } from './jsend.ts';
import type { KeyRing } from './keys.ts';
import { checkedQuery, publicJob, type JobRequest, type Jobs } from '../crawl/index.ts';

/** What the routes read of a request: an IncomingMessage, or the MCP tools' call of them (its body an iterable). */
export type CrawlsRequest = Pick<http.IncomingMessage, 'method' | 'url' | 'headers'> & AsyncIterable<unknown>;

/** A RefractError for a body field: its code and which field. */
const fieldError = (code: 'EINVALURL' | 'EINVALQUERY' | 'EINVALDATA', field: string, why: string) =>
  new RefractError(code, `\`${field}\`: ${why}`, { data: { field } });

/** The warning a job's answer carries for query options the API does not know (they are ignored, as on `GET /`). */
const unknownWarning = (names: readonly string[]) => ({
  plugin: 'query',
  code: 'EINVALQUERY',
  message: `Unknown options ignored: ${names.join(', ')}`,
});

/** The largest body `POST /crawls` reads (a list of URLs). */
const MAX_BODY = 1024 * 1024;
const EVENTS = ['started', 'page', 'completed', 'failed', 'cancelled'] as const;
const JSON_TYPE = 'application/json; charset=utf-8';

/** The pages an HTTP job visits at most when its body sets no `maxPages` (a link-following crawl has no end). */
export const DEFAULT_JOB_PAGES = 1000;

/** `POST /crawls`'s body: checked here, and described from here in OpenAPI and the MCP `crawl_start` tool. */
export const bodySchema = z
  .object({
    start: z.string().optional().describe('Follow links from this page (same host unless `anyHost`).'),
    urls: z.array(z.string()).max(100_000).optional().describe('A list of pages.'),
    sitemap: z.string().optional().describe('The pages of a sitemap or sitemap index.'),
    maxPages: z.number().int().positive().optional().describe(`Pages at most (default ${DEFAULT_JOB_PAGES}).`),
    maxDepth: z.number().int().min(0).optional().describe('Link depth from `start` (default 3).'),
    include: z.array(z.string()).optional().describe('Globs a followed link must match (any of them).'),
    exclude: z.array(z.string()).optional().describe('Globs of links never followed.'),
    anyHost: z.boolean().optional().describe('Follow links to other hosts too (default false).'),
    robots: z.boolean().optional().describe('Obey robots.txt (default true).'),
    query: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .describe("The API's options for every page: `screenshot&palette`, or as an object."),
    webhook: z
      .object({ url: z.string(), events: z.array(z.enum(EVENTS)).default([...EVENTS]) })
      .strict()
      .optional()
      .describe('Where to POST signed events (`started`, `page`, `completed`, `failed`, `cancelled`).'),
  })
  .strict();

/** Reads a JSON body (at most MAX_BODY bytes). */
async function readJson(req: AsyncIterable<unknown>): Promise<unknown> {
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

/**
 * A host of the body through the SSRF guard now: a private or loopback address (unless allowed), in any form
 * (`2130706434`, `[::ffff:127.0.0.2]`), is 403 EFORBIDDENURL naming the field. With `anyFailure`, a host that does not
 * resolve is refused too (a webhook); a crawl target that does not resolve now is left to its page.
 */
async function guardField(engine: Engine, host: string, field: string, anyFailure = false): Promise<void> {
  try {
    await engine.guard.resolve(host);
  } catch (err) {
    if (anyFailure || (err as { code?: string }).code === 'EFORBIDDENURL')
      throw new RefractError('EFORBIDDENURL', `\`${field}\`: ${(err as Error).message}`, { data: { field } });
  }
}

/** The targets of a job through the guard at POST, not page by page later; each host is asked once, 16 at a time. */
async function refuseForbidden(
  engine: Engine,
  input: { start?: string; sitemap?: string; urls?: string[] },
): Promise<void> {
  const fields = new Map<string, string>();
  if (input.start) fields.set(new URL(input.start).hostname, 'start');
  if (input.sitemap) fields.set(new URL(input.sitemap).hostname, 'sitemap');
  input.urls?.forEach((u, i) => {
    const host = new URL(u).hostname;
    if (!fields.has(host)) fields.set(host, `urls.${i}`);
  });
  const hosts = [...fields];
  for (let i = 0; i < hosts.length; i += 16)
    await Promise.all(hosts.slice(i, i + 16).map(([host, field]) => guardField(engine, host, field)));
}

/** A body checked into a job request: one input, the CLI's options, a webhook the guard lets through (also the Actor's input). */
export async function jobRequest(
  raw: unknown,
  engine: Engine,
  secret: string,
): Promise<JobRequest & { unknown: string[] }> {
  const parsed = bodySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : 'body');
    throw fieldError(field === 'query' ? 'EINVALQUERY' : 'EINVALDATA', field, issue.message);
  }
  const b = parsed.data;
  const inputs = [b.start, b.urls, b.sitemap].filter((v) => v !== undefined);
  if (inputs.length !== 1) throw fieldError('EINVALDATA', 'start', 'give exactly one of `start`, `urls` or `sitemap`');
  const checkUrl = (field: string, url: string) => {
    try {
      return checkTargetUrl(url).href;
    } catch (err) {
      throw fieldError('EINVALURL', field, (err as Error).message);
    }
  };
  const input =
    b.start !== undefined
      ? { start: checkUrl('start', b.start) }
      : b.sitemap !== undefined
        ? { sitemap: checkUrl('sitemap', b.sitemap) }
        : { urls: b.urls!.map((u, i) => checkUrl(`urls.${i}`, u)) };
  await refuseForbidden(engine, input);
  let webhook: JobRequest['webhook'];
  if (b.webhook) {
    if (!secret)
      throw fieldError('EINVALDATA', 'webhook', 'this service has no REFRACT_WEBHOOK_SECRET to sign deliveries with');
    const url = new URL(checkUrl('webhook.url', b.webhook.url));
    // The same guard as every target: a private or loopback address (unless allowed) is refused now.
    await guardField(engine, url.hostname, 'webhook.url', true);
    webhook = { url: url.href, events: b.webhook.events };
  }
  const { maxPages = DEFAULT_JOB_PAGES, maxDepth, include, exclude, anyHost, robots } = b;
  // One shape of query whatever the caller sent (text or an object), checked as `GET /` checks it, now.
  const { text: query, unknown } = checkedQuery(engine, b.query, 'pro');
  return {
    input,
    options: { maxPages, maxDepth, include, exclude, anyHost, robots, query },
    webhook,
    unknown,
  };
}

const answer = (status: number, data: unknown, headers: Record<string, string> = {}): HandlerResponse => ({
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
