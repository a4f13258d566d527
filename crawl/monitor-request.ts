// A monitor as `POST /monitors` takes it: the body's schema (which OpenAPI describes), checked into a MonitorSpec: the
// page through the SSRF guard, the query as `GET /` checks it, a schedule (an interval or a cron expression no more
// often than the service allows), an optional signed webhook.
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { RefractError, checkTargetUrl, formatDuration, parseDuration, type Engine } from '../engine/index.ts';
import { checkedQuery } from './pages.ts';
import { checkedBody, fieldError } from './job-request.ts';

export const MONITOR_EVENTS = ['changed', 'failed'] as const;

/** `POST /monitors`'s body: checked here, and described from here in OpenAPI and the MCP tool. */
export const monitorBodySchema = z
  .object({
    url: z.string().describe('The page to watch.'),
    query: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .describe(
        "The API's options for each read (`data.price.selector=.price&changes.ignore=.ad`), as text or an object.",
      ),
    every: z
      .union([z.string(), z.number()])
      .optional()
      .describe('How often to read it: milliseconds or text (`30s`, `1h`); or give `cron`.'),
    cron: z.string().optional().describe('When to read it: a cron expression (`*/5 * * * *`, UTC); or give `every`.'),
    tag: z
      .string()
      .regex(/^[\w.-]{1,64}$/)
      .optional()
      .describe(
        "The history's tag (`changes.tag`; default the monitor's id): a tag shared with requests shares their history.",
      ),
    webhook: z
      .object({ url: z.string(), events: z.array(z.enum(MONITOR_EVENTS)).default([...MONITOR_EVENTS]) })
      .strict()
      .optional()
      .describe('Where to POST signed events: `changed` (with the report), `failed` (after 3 failed reads in a row).'),
  })
  .strict();

/** A monitor's settings, checked. */
export interface MonitorSpec {
  url: string;
  /** The query each read runs (text), without `url` and `changes`. */
  query: string;
  every?: number;
  cron?: string;
  tag?: string;
  webhook?: { url: string; events: string[] };
}

/** The next run of a schedule after `now` (epoch ms). */
export function nextRun(spec: Pick<MonitorSpec, 'every' | 'cron'>, now: number): number {
  if (spec.every) return now + spec.every;
  return CronExpressionParser.parse(spec.cron!, { currentDate: new Date(now), tz: 'UTC' })
    .next()
    .getTime();
}

/** A body checked into a MonitorSpec (400 naming the field, 403 for a forbidden page or webhook). */
export async function monitorRequest(
  raw: unknown,
  engine: Engine,
  secret: string,
  minIntervalMs: number,
): Promise<MonitorSpec & { unknown: string[] }> {
  const b = checkedBody(monitorBodySchema, raw);
  const checkUrl = async (field: string, value: string) => {
    let url: URL;
    try {
      url = checkTargetUrl(value);
    } catch (err) {
      throw fieldError('EINVALURL', field, (err as Error).message);
    }
    try {
      await engine.guard.resolve(url.hostname);
    } catch (err) {
      if (field !== 'url' || (err as { code?: string }).code === 'EFORBIDDENURL')
        throw new RefractError('EFORBIDDENURL', `\`${field}\`: ${(err as Error).message}`, { data: { field } });
    }
    return url.href;
  };
  const url = await checkUrl('url', b.url);
  if ((b.every === undefined) === (b.cron === undefined))
    throw fieldError('EINVALDATA', 'every', 'give exactly one of `every` or `cron`');
  const slowest = formatDuration(minIntervalMs);
  let every: number | undefined;
  if (b.every !== undefined) {
    every = parseDuration(b.every);
    if (every === undefined)
      throw fieldError('EINVALDATA', 'every', 'expected milliseconds or a duration (`30s`, `1h`)');
    if (every < minIntervalMs) throw fieldError('EINVALDATA', 'every', `at least ${slowest}`);
  } else {
    try {
      const runs = CronExpressionParser.parse(b.cron!, { tz: 'UTC' });
      const first = runs.next().getTime();
      if (runs.next().getTime() - first < minIntervalMs)
        throw fieldError('EINVALDATA', 'cron', `runs at least ${slowest} apart`);
    } catch (err) {
      if (err instanceof RefractError) throw err;
      throw fieldError('EINVALDATA', 'cron', `not a cron expression: ${(err as Error).message}`);
    }
  }
  let webhook: MonitorSpec['webhook'];
  if (b.webhook) {
    if (!secret)
      throw fieldError('EINVALDATA', 'webhook', 'this service has no REFRACT_WEBHOOK_SECRET to sign deliveries with');
    webhook = { url: await checkUrl('webhook.url', b.webhook.url), events: b.webhook.events };
  }
  // The query as `GET /` checks it, now; `changes` is the monitor's own.
  const { text, unknown } = checkedQuery(engine, b.query, 'pro');
  const params = new URLSearchParams(text);
  for (const name of [...params.keys()]) if (name === 'changes' || name === 'changes.tag') params.delete(name);
  return { url, query: params.toString(), every, cron: b.cron, tag: b.tag, webhook, unknown };
}
