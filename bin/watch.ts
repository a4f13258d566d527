// `refract watch <url>`: a page read on a schedule in this process (the library's `watch`), each change report a JSON
// line. `refract monitor ...`: the monitors of a running Refract (`POST /monitors` and the rest), as its API answers.
import { parseArgs } from 'node:util';
import type { Engine } from '../engine/index.ts';
import { UsageError } from './usage.ts';

export const WATCH_USAGE = `       refract watch <url> (--every <interval> | --cron <expr> | --once) [--query <options>] [--tag <name>]
                             reads the page now and on the schedule with \`changes\`, one change report a JSON line
                             (new, same, changed, failed); baselines in REFRACT_DATA_DIR. --once: one read, exit 1
                             when it failed. Stops on Ctrl-C or SIGTERM`;

export const MONITOR_USAGE = `       refract monitor add <url> (--every <interval> | --cron <expr>) [--query <options>] [--tag <name>] [--webhook <url>]
       refract monitor list | show <id> | changes <id> | rm <id>     [--endpoint <url>] [--key <api key>]
                             the monitors of a running Refract (its pro endpoint: --endpoint or REFRACT_ENDPOINT, the
                             key from --key or REFRACT_API_KEY); prints its answer's data as JSON`;

const SCHEDULE = {
  every: { type: 'string' },
  cron: { type: 'string' },
  query: { type: 'string' },
  tag: { type: 'string' },
} as const;

export async function watchCommand(args: string[], engineFor: () => Promise<Engine>): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...SCHEDULE, once: { type: 'boolean' } },
  });
  const [url, ...more] = positionals;
  if (!url || more.length)
    throw new UsageError('watch takes one URL, e.g. refract watch https://example.com/ --every 1h');
  const schedules = [values.every, values.cron, values.once].filter((v) => v !== undefined).length;
  if (schedules !== 1) throw new UsageError('give one of --every, --cron or --once');
  const [{ watch, WATCH_MIN_INTERVAL }, { isRefractError }] = await Promise.all([
    import('../crawl/index.ts'),
    import('../engine/index.ts'),
  ]);
  const engine = await engineFor();
  const stop = new AbortController();
  const stopped = () => stop.abort();
  process.once('SIGINT', stopped);
  process.once('SIGTERM', stopped);
  try {
    const every = values.once ? WATCH_MIN_INTERVAL : values.every;
    const reports = watch(engine, url, {
      every,
      cron: values.cron,
      query: values.query,
      tag: values.tag,
      signal: stop.signal,
    });
    for await (const report of reports) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      if (values.once) return report.status === 'failed' ? 1 : 0;
    }
    return 0;
  } catch (err) {
    // Options the watch refused (a bad schedule, query or URL) are a usage error, named by their field.
    if (isRefractError(err)) throw new UsageError(`${err.code}: ${err.message.replace(/`/g, '')}`);
    throw err;
  } finally {
    process.off('SIGINT', stopped);
    process.off('SIGTERM', stopped);
    await engine.close();
  }
}

export async function monitorCommand(args: string[], env = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...SCHEDULE, webhook: { type: 'string' }, endpoint: { type: 'string' }, key: { type: 'string' } },
  });
  const [action, arg, ...more] = positionals;
  const endpoint = values.endpoint ?? env.REFRACT_ENDPOINT;
  if (!endpoint || !URL.canParse(endpoint))
    throw new UsageError('monitor needs the pro endpoint of a running Refract: --endpoint <url> or REFRACT_ENDPOINT');
  const key = values.key ?? env.REFRACT_API_KEY;
  if (!key) throw new UsageError('monitor needs an API key: --key or REFRACT_API_KEY');
  if (more.length) throw new UsageError(`monitor ${action} takes one argument (got "${more[0]}")`);
  let method = 'GET';
  let route: string;
  let body: unknown;
  const id = () => {
    if (!arg) throw new UsageError(`monitor ${action} takes a monitor id`);
    return `/monitors/${encodeURIComponent(arg)}`;
  };
  if (action === 'add') {
    if (!arg) throw new UsageError('monitor add takes the URL to watch');
    method = 'POST';
    route = '/monitors';
    body = { url: arg, every: values.every, cron: values.cron, query: values.query, tag: values.tag };
    if (values.webhook) body = { ...(body as object), webhook: { url: values.webhook } };
  } else if (action === 'list') {
    if (arg) throw new UsageError('monitor list takes no argument');
    route = '/monitors?limit=100';
  } else if (action === 'show') route = id();
  else if (action === 'changes') route = `${id()}/changes?limit=100`;
  else if (action === 'rm') {
    method = 'DELETE';
    route = id();
  } else throw new UsageError(`monitor takes add, list, show, changes or rm (got "${action ?? ''}")`);
  const res = await fetch(`${endpoint.replace(/\/+$/, '')}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = (await res.json().catch(() => ({}))) as {
    status?: string;
    data?: unknown;
    code?: string;
    message?: string;
  };
  if (answer.status !== 'success') {
    process.stderr.write(`refract: ${answer.code ?? res.status}: ${answer.message ?? res.statusText}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(answer.data, null, 2)}\n`);
  return 0;
}
