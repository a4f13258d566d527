// A crawl job's request as `POST /crawls` and the Apify Actor take it: the body's schema (which OpenAPI and the MCP
// `crawl_start` tool describe), checked into a JobRequest with its targets and webhook through the SSRF guard.
import { z } from 'zod';
import { RefractError, checkTargetUrl, type Engine } from '../engine/index.ts';
import type { JobRequest } from './job.ts';
import { checkedQuery } from './pages.ts';

/** A RefractError for a body field: its code and which field. */
export const fieldError = (code: 'EINVALURL' | 'EINVALQUERY' | 'EINVALDATA', field: string, why: string) =>
  new RefractError(code, `\`${field}\`: ${why}`, { data: { field } });

const EVENTS = ['started', 'page', 'completed', 'failed', 'cancelled'] as const;

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

/** A JSON body checked by its schema: its first problem is a 400 naming the field (EINVALQUERY for `query`). */
export function checkedBody<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : 'body');
  throw fieldError(field === 'query' ? 'EINVALQUERY' : 'EINVALDATA', field, issue.message);
}

/** A body checked into a job request: one input, the CLI's options, a webhook the guard lets through (also the Actor's input). */
export async function jobRequest(
  raw: unknown,
  engine: Engine,
  secret: string,
): Promise<JobRequest & { unknown: string[] }> {
  const b = checkedBody(bodySchema, raw);
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
